package fastcgi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/gateway"
	"github.com/mosaic-edge/mosaic/vars"
)

// stream builds an application's answer from records.
func stream(recs ...[2]any) []byte {
	var b []byte
	for _, r := range recs {
		b = AppendRecord(b, r[0].(uint8), []byte(r[1].(string)))
	}
	return b
}

func end() [2]any { return [2]any{TypeEndRequest, string(make([]byte, 8))} }

func read(t *testing.T, c *Client, data []byte) (*http.Response, string, error) {
	t.Helper()
	resp, err := c.ReadResponse(bufio.NewReader(bytes.NewReader(data)), httptest.NewRequest("GET", "/x.php", nil))
	if err != nil {
		return nil, "", err
	}
	body, err := io.ReadAll(resp.Body)
	return resp, string(body), err
}

func TestReadResponse(t *testing.T) {
	var logged []string
	c := &Client{KeepConn: true, Stderr: func(r *http.Request, s string) {
		// A record amid the head is logged with the request too.
		logged = append(logged, r.URL.Path+" "+s)
	}}
	// The head split across records, stderr in between, the body in two.
	resp, body, err := read(t, c, stream(
		[2]any{TypeStdout, "Status: 404 Not Found\r\nX-A: 1\r"},
		[2]any{TypeStderr, "PHP message: warning.\n"},
		[2]any{TypeStdout, "\nContent-Type: text/html\r\n\r\nhello, "},
		[2]any{TypeStdout, "world"},
		[2]any{TypeStdout, ""},
		end(),
	))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 404 || resp.Header.Get("X-A") != "1" || resp.Header.Get("Content-Type") != "text/html" || body != "hello, world" {
		t.Errorf("%d %v %q", resp.StatusCode, resp.Header, body)
	}
	if resp.Close {
		t.Error("a complete response with KeepConn must leave the connection open")
	}
	if len(logged) != 1 || logged[0] != "/x.php PHP message: warning" {
		t.Errorf("stderr %q", logged)
	}

	// The empty STDOUT record before the body's length is the body's
	// end, short, with NGINX's error; where no length is left, STDOUT
	// after it is relayed, as NGINX relays it. END_REQUEST before the
	// length, with no empty record, has NGINX's error of its own.
	var errs []string
	c.Error = func(r *http.Request, text string) { errs = append(errs, text) }
	for _, tc := range []struct {
		method, head, want string
		noEnd              bool // no empty STDOUT record
		logged             string
	}{
		{"GET", "Content-Length: 12", "body", false, "upstream prematurely closed FastCGI stdout while reading upstream"},
		{"GET", "Content-Length: 20", "bodyLEFTOVER", true, "upstream prematurely closed FastCGI request while reading upstream"},
		{"GET", "Content-Length: 4", "body", false, ""},
		{"GET", "X-A: 1", "bodyLEFTOVER", false, ""},
		{"GET", "Status: 304\r\nContent-Length: 12", "bodyLEFTOVER", false, ""},
		{"HEAD", "Content-Length: 12", "bodyLEFTOVER", false, ""},
	} {
		errs = nil
		recs := [][2]any{{TypeStdout, tc.head + "\r\n\r\nbody"}, {TypeStdout, ""}, {TypeStdout, "LEFTOVER"}, {TypeStdout, ""}, end()}
		if tc.noEnd {
			recs = [][2]any{recs[0], recs[2], end()}
		}
		resp, err := c.ReadResponse(bufio.NewReader(bytes.NewReader(stream(recs...))), httptest.NewRequest(tc.method, "/", nil))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		// Cut at the empty record, the connection is not read to
		// END_REQUEST and not kept.
		cut := tc.want == "body" && tc.logged != ""
		if string(b) != tc.want || err != nil || resp.Close != cut || strings.Join(errs, "|") != tc.logged {
			t.Errorf("%s %q: %q, %v, close %v, logged %q; want %q, %q", tc.method, tc.head, b, err, resp.Close, errs, tc.want, tc.logged)
		}
	}
	c.Error = nil

	resp, _, _ = read(t, &Client{}, stream([2]any{TypeStdout, "Location: /next\n\n"}, end()))
	if resp.StatusCode != 302 || !resp.Close {
		t.Errorf("Location alone: %d, close %v", resp.StatusCode, resp.Close)
	}
}

func TestReadResponseErrors(t *testing.T) {
	for name, data := range map[string][]byte{
		"version":    append([]byte{2}, stream([2]any{TypeStdout, "X: y\r\n\r\n"})[1:]...),
		"type":       stream([2]any{TypeData, "x"}),
		"status":     stream([2]any{TypeStdout, "Status: abc\r\n\r\n"}, end()),
		"cut header": stream([2]any{TypeStdout, "X: y\r\n"}),
		"no end":     stream([2]any{TypeStdout, "X: y\r\n\r\nbody"}),
		"short end":  stream([2]any{TypeStdout, "X: y\r\n\r\n"}, [2]any{TypeEndRequest, "abc"}),
	} {
		_, _, err := read(t, &Client{}, data)
		if err == nil {
			t.Errorf("%s: no error", name)
		}
		// A broken stream is an I/O failure, an unreadable one an invalid
		// header: the proxy answers 502 for both, but only retries the first.
		if name == "cut header" || name == "no end" {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	// The stream's or the request's end before the head's: NGINX's
	// invalid header, in its words.
	for name, tc := range map[string]struct {
		data []byte
		want error
	}{
		"empty stdout in head": {stream([2]any{TypeStdout, "X: y\r\n"}, [2]any{TypeStdout, ""}, [2]any{TypeStdout, "\r\n"}, end()), ErrStdoutEnded},
		"end in head":          {stream([2]any{TypeStdout, "X: y\r\n"}, end()), ErrUnexpectedRecord},
		"end alone":            {stream(end()), ErrUnexpectedRecord},
	} {
		_, err := (&Client{}).ReadResponse(bufio.NewReader(bytes.NewReader(tc.data)), httptest.NewRequest("GET", "/", nil))
		var pe *gateway.ProtocolError
		if !errors.Is(err, tc.want) || !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a ProtocolError of %v", name, err, tc.want)
		}
	}
	if _, err := (&Client{MaxHeader: 10}).ReadResponse(bufio.NewReader(bytes.NewReader(stream([2]any{TypeStdout, "X-Long: 0123456789\r\n\r\n"}))), nil); !errors.Is(err, gateway.ErrHeaderTooBig) {
		t.Errorf("too big: %v", err)
	}
}

func TestWriteRequest(t *testing.T) {
	c := &Client{KeepConn: true, Params: func(dst []byte, r *http.Request) []byte {
		return AppendPair(AppendPair(dst, "REQUEST_METHOD", r.Method), "LONG", strings.Repeat("v", 60000))
	}}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	r := httptest.NewRequest("POST", "/", nil)
	head, err := c.AppendHead([]byte("before"), r, 5)
	if err != nil || string(head[:6]) != "before" {
		t.Fatalf("%q..., %v", head[:min(len(head), 6)], err)
	}
	bw.Write(head[6:])
	c.WriteBody(bw, []byte("hello"))
	c.EndBody(bw)
	bw.Flush()

	var params, stdin []byte
	var types []uint8
	for buf.Len() > 0 {
		h, content, err := ReadRecord(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if h.RequestID != 1 || (int(h.ContentLength)+int(h.PaddingLength))%8 != 0 {
			t.Errorf("record %+v", h)
		}
		types = append(types, h.Type)
		switch h.Type {
		case TypeBeginRequest:
			if !bytes.Equal(content, []byte{0, 1, 1, 0, 0, 0, 0, 0}) {
				t.Errorf("BEGIN_REQUEST %v", content)
			}
		case TypeParams:
			params = append(params, content...)
		case TypeStdin:
			stdin = append(stdin, content...)
		}
	}
	want := []uint8{TypeBeginRequest, TypeParams, TypeParams, TypeStdin, TypeStdin}
	if !bytes.Equal(types, want) {
		t.Errorf("records %v, want %v", types, want)
	}
	pairs, err := ParsePairs(params)
	if err != nil || len(pairs) != 2 || pairs[0] != [2]string{"REQUEST_METHOD", "POST"} || len(pairs[1][1]) != 60000 {
		t.Errorf("params %v %v", len(pairs), err)
	}
	if string(stdin) != "hello" {
		t.Errorf("stdin %q", stdin)
	}
}

// FuzzReadResponse feeds arbitrary streams to the record and head parser:
// it must return an error or a response whose body ends, never panic.
func FuzzReadResponse(f *testing.F) {
	f.Add(stream([2]any{TypeStdout, "Status: 200\r\nA: b\r\n\r\nbody"}, [2]any{TypeStderr, "e"}, end()))
	f.Add(stream([2]any{TypeStdout, "Location: /x\n\n"}, end()))
	f.Add(stream([2]any{TypeStdout, "HTTP/1.1 200 OK\r\n\r\n"}, end()))
	f.Add([]byte{1, 6, 0, 1, 0xff, 0xff, 0xff, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Client{KeepConn: true, MaxHeader: 4096, Stderr: func(*http.Request, string) {}}
		resp, err := c.ReadResponse(bufio.NewReader(bytes.NewReader(data)), httptest.NewRequest("GET", "/", nil))
		if err != nil {
			return
		}
		if resp.StatusCode < 100 || resp.StatusCode > 999 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		if n > int64(len(data)) {
			t.Fatalf("body of %d bytes from %d", n, len(data))
		}
	})
}

// FuzzParsePairs checks that what AppendPair writes, ParsePairs reads
// back, and that ParsePairs survives anything.
func FuzzParsePairs(f *testing.F) {
	f.Add([]byte{3, 1, 'A', 'B', 'C', 'x'}, "NAME", "value")
	f.Fuzz(func(t *testing.T, raw []byte, name, value string) {
		_, _ = ParsePairs(raw)
		pairs, err := ParsePairs(AppendPair(nil, name, value))
		if err != nil || len(pairs) != 1 || pairs[0] != [2]string{name, value} {
			t.Fatalf("%q %q: %v %v", name, value, pairs, err)
		}
	})
}

// TestParamsRecords checks the PARAMS stream of requests whose parameters
// fit one record, or are none: each ends with an empty record, and no
// parameters are that record alone.
func TestParamsRecords(t *testing.T) {
	none := func(dst []byte, _ *http.Request) []byte { return dst }
	one := func(dst []byte, r *http.Request) []byte { return AppendPair(dst, "REQUEST_METHOD", r.Method) }
	for _, c := range []struct {
		params func([]byte, *http.Request) []byte
		want   [][]byte // the PARAMS records' contents
	}{
		{nil, [][]byte{{}}},
		{none, [][]byte{{}}},
		{one, [][]byte{AppendPair(nil, "REQUEST_METHOD", "GET"), {}}},
	} {
		head, _ := (&Client{Params: c.params}).AppendHead(nil, httptest.NewRequest("GET", "/", nil), 0)
		var got [][]byte
		for rd := bytes.NewReader(head); rd.Len() > 0; {
			h, content, err := ReadRecord(rd)
			if err != nil {
				t.Fatal(err)
			}
			if (int(h.ContentLength)+int(h.PaddingLength))%8 != 0 {
				t.Errorf("record %+v", h)
			}
			if h.Type == TypeParams {
				got = append(got, content)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("PARAMS records %q, want %q", got, c.want)
		}
	}
}

// TestParamsEncoded pins the bytes of the PARAMS stream that gateway's
// parameters make through their Encoder: lengths from 128 on in four
// bytes with the top bit set, shorter ones in one, an empty value as a
// zero length, if_not_empty's empty value left out (a variable's, or a
// fixed one's, which the Encoder drops once), a Hide parameter never
// sent, the fixed values (encoded once, together where they follow each
// other) in their place among the others, a value of several pieces
// written piece by piece (left out with if_not_empty when they are all
// empty), the header lines after the
// configured parameters. They are the bytes the parameters made when
// they were gathered as name-value pairs and encoded one by one.
func TestParamsEncoded(t *testing.T) {
	long := strings.Repeat("N", 200)
	pieces := vars.MustCompile("<$request_method|" + strings.Repeat("p", 130) + "$uri>")
	none := vars.MustCompile("$args$is_args")
	p := gateway.NewParams([]gateway.Param{
		{Name: long, Literal: strings.Repeat("v", 128)},
		{Name: "EMPTY"},
		{Name: "SKIPPED", IfNotEmpty: true},
		{Name: "M", Value: func(r *http.Request, _ *vars.State) string { return strings.Repeat("m", 127) }},
		{Name: "GONE", IfNotEmpty: true, Value: func(*http.Request, *vars.State) string { return "" }},
		{Name: "HTTP_PROXY", Hide: true},
		{Name: "FIXED", Literal: "f"},
		{Name: "M", Value: func(r *http.Request, _ *vars.State) string { return "again" }},
		// Computed values whose length takes four bytes, after a short
		// name, and one byte, after a long name: the head made once
		// (Pairs.Short) only where the value's length fits its byte.
		{Name: "L", Value: func(r *http.Request, _ *vars.State) string { return strings.Repeat("l", 128) }},
		{Name: long, Value: func(r *http.Request, _ *vars.State) string { return "x" }},
		{Name: "Z", Value: func(r *http.Request, _ *vars.State) string { return "" }},
		// Of several pieces, written one by one.
		{Name: "PIECES", Value: pieces.EvalState, Template: pieces},
		{Name: "NOPIECES", Value: none.EvalState, Template: none, IfNotEmpty: true},
		{Name: "EMPTYPIECES", Value: none.EvalState, Template: none},
	}, true)
	r := httptest.NewRequest("GET", "http://site.test/", nil)
	r.Header.Set("X-Empty", "")
	r.Header.Set("X-Long", strings.Repeat("h", 300))
	r.Header.Set("Proxy", "hidden")
	head, _ := (&Client{Params: p.Encoder(&Pairs)}).AppendHead(nil, r, 0)

	var pairs []byte
	for _, b := range [][]byte{
		{0x80, 0, 0, 200, 0x80, 0, 0, 128}, []byte(long + strings.Repeat("v", 128)),
		{5, 0}, []byte("EMPTY"),
		{1, 127}, []byte("M" + strings.Repeat("m", 127)),
		{5, 1}, []byte("FIXEDf"),
		{1, 5}, []byte("Magain"),
		{1, 0x80, 0, 0, 128}, []byte("L" + strings.Repeat("l", 128)),
		{0x80, 0, 0, 200, 1}, []byte(long + "x"),
		{1, 0}, []byte("Z"),
		{6, 0x80, 0, 0, 137}, []byte("PIECES<GET|" + strings.Repeat("p", 130) + "/>"),
		{11, 0}, []byte("EMPTYPIECES"),
		{9, 9}, []byte("HTTP_HOSTsite.test"),
		{12, 0}, []byte("HTTP_X_EMPTY"),
		{11, 0x80, 0, 1, 44}, []byte("HTTP_X_LONG" + strings.Repeat("h", 300)),
	} {
		pairs = append(pairs, b...)
	}
	var old []byte // the encoding before the Encoder: Append's Vars, one by one
	for _, v := range p.Append(nil, r) {
		old = AppendPair(old, v.Name, v.Value)
	}
	if !bytes.Equal(old, pairs) {
		t.Errorf("Append's pairs encode as\n%q, want\n%q", old, pairs)
	}
	pad := (8 - len(pairs)%8) % 8
	want := append([]byte{1, TypeBeginRequest, 0, 1, 0, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
		1, TypeParams, 0, 1, byte(len(pairs) >> 8), byte(len(pairs)), byte(pad), 0}, pairs...)
	want = append(want, make([]byte, pad)...)
	want = append(want, 1, TypeParams, 0, 1, 0, 0, 0, 0)
	if !bytes.Equal(head, want) {
		t.Errorf("head\n%q, want\n%q", head, want)
	}
}

// TestParamsRecordBoundary: pairs up to what one record holds go in one
// PARAMS record, as NGINX sends them; a byte more is ErrTooBig, NGINX's
// "fastcgi request record is too big" (ngx_http_fastcgi_create_request
// in 1.22.1 compares the encoded pairs' length with 65535), which the
// gateway answers with 500.
func TestParamsRecordBoundary(t *testing.T) {
	for _, n := range []int{maxContent + 1, maxRecord - 1, maxRecord, maxRecord + 1, 2*maxRecord + 7} {
		value := strings.Repeat("v", n-len(AppendPair(nil, "V", strings.Repeat("v", 200)))+200)
		pairs := AppendPair(nil, "V", value)
		if len(pairs) != n {
			t.Fatalf("%d bytes of pairs, want %d", len(pairs), n)
		}
		head, err := (&Client{Params: func(dst []byte, _ *http.Request) []byte {
			return AppendPair(dst, "V", value)
		}}).AppendHead([]byte("x"), httptest.NewRequest("GET", "/", nil), 0)
		if n > maxRecord {
			if !errors.Is(err, ErrTooBig) {
				t.Errorf("%d bytes of pairs: %v, want ErrTooBig", n, err)
			}
			continue
		}
		want := AppendRecord(AppendRecord(append([]byte("x"), beginClose...), TypeParams, pairs), TypeParams, nil)
		if err != nil || !bytes.Equal(head, want) {
			t.Errorf("%d bytes of pairs: %v, or the head is not one PARAMS record and the empty one", n, err)
		}
	}
}

// record is a record of content with pad bytes of padding, bytes that
// would show in a body were they miscounted.
func record(typ uint8, content string, pad int) []byte {
	n := len(content)
	b := append([]byte{version1, typ, 0, requestID, byte(n >> 8), byte(n), byte(pad), 0}, content...)
	return append(b, bytes.Repeat([]byte{'P'}, pad)...)
}

// TestReadResponseRecordLimits reads records at the protocol's widest, a
// STDOUT record of 65535 content bytes and records with 255 padding
// bytes (which the body reader keeps in 16 and 8 bits), the padding of
// bytes that would show in the body were it miscounted: with a
// Content-Length, whose reads look ahead through the buffered records
// (restBuffered), and without.
func TestReadResponseRecordLimits(t *testing.T) {
	const tail = "tail"
	for _, withLength := range []bool{false, true} {
		head := "Status: 200\r\n\r\n"
		if withLength {
			// Five digits whatever they are: the head's length is known.
			n := 65535 - len("Content-Length: 00000\r\n\r\n") + len(tail)
			head = fmt.Sprintf("Content-Length: %d\r\n\r\n", n)
		}
		body := strings.Repeat("b", 65535-len(head))
		var data []byte
		data = append(data, record(TypeStdout, head+body, 255)...)
		data = append(data, record(TypeStderr, "e", 255)...)
		data = append(data, record(TypeStdout, tail, 255)...)
		data = append(data, record(TypeStdout, "", 255)...)
		data = append(data, record(TypeEndRequest, string(make([]byte, 8)), 255)...)
		var logged []string
		c := &Client{KeepConn: true, Stderr: func(_ *http.Request, s string) { logged = append(logged, s) }}
		resp, got, err := read(t, c, data)
		if err != nil {
			t.Fatalf("Content-Length %v: %v", withLength, err)
		}
		if got != body+tail {
			t.Errorf("Content-Length %v: body of %d bytes, want %d (%q at its end)", withLength, len(got), len(body+tail), got[max(0, len(got)-8):])
		}
		if len(logged) != 1 || logged[0] != "e" {
			t.Errorf("Content-Length %v: stderr %q", withLength, logged)
		}
		if resp.Close {
			t.Errorf("Content-Length %v: the END_REQUEST record was not reached", withLength)
		}
	}
}

// TestAppendPair checks the encoding of a pair against the specification's
// (section 3.4: a length below 128 in one byte, else four with the high
// bit set), at each length's edge and with no, too little, just enough and
// more room after what dst holds, which must stay: AppendPair takes a
// short pair's lengths in one append.
func TestAppendPair(t *testing.T) {
	spec := func(n int) []byte {
		if n < 128 {
			return []byte{byte(n)}
		}
		return []byte{byte(n>>24) | 0x80, byte(n >> 16), byte(n >> 8), byte(n)}
	}
	for _, nl := range []int{0, 1, 127, 128, 300} {
		for _, vl := range []int{0, 1, 127, 128, 70000} {
			name, value := strings.Repeat("N", nl), strings.Repeat("v", vl)
			want := append(append([]byte("xy"), spec(nl)...), spec(vl)...)
			want = append(append(want, name...), value...)
			size := len(want) - 2
			for _, room := range []int{0, size - 1, size, size + 9} {
				dst := append(make([]byte, 0, 2+max(room, 0)), "xy"...)
				if got := AppendPair(dst, name, value); !bytes.Equal(got, want) {
					t.Errorf("AppendPair: name %d, value %d bytes, room %d: % x..., want % x...",
						nl, vl, room, got[:min(len(got), 12)], want[:min(len(want), 12)])
				}
				dst = append(make([]byte, 0, 2+max(room, 0)), "xy"...)
				if got := append(AppendPairHead(dst, name, vl), value...); !bytes.Equal(got, want) {
					t.Errorf("AppendPairHead: name %d, value %d bytes, room %d: % x..., want % x...",
						nl, vl, room, got[:min(len(got), 12)], want[:min(len(want), 12)])
				}
			}
		}
	}
}

// splitReader gives its data in two reads, the first ending at cut.
type splitReader struct {
	data []byte
	cut  int
}

func (r *splitReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if r.cut > 0 {
		n, r.cut = r.cut, 0
	}
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// TestReadResponseHeadInPlaceOrNot reads answers whose connection buffer
// holds them whole, where the head is parsed in place (headInPlace), and
// cut at every byte, where the head may not be all there and is read
// through the head's reader instead: each cut must give the same status,
// fields, body, stderr and connection state, and leave the connection's
// reader at the next answer.
func TestReadResponseHeadInPlaceOrNot(t *testing.T) {
	const next = "NEXT"
	for name, data := range map[string][]byte{
		"one record": slices.Concat(record(TypeStdout, "Content-type: text/html; charset=UTF-8\r\nX-A: 1\r\n\r\nhello", 3),
			record(TypeStdout, "", 0), record(TypeEndRequest, string(make([]byte, 8)), 0)),
		"head ends the record": slices.Concat(record(TypeStdout, "Status: 404\nX-A: 1\n\n", 4),
			record(TypeStdout, "hello", 3), record(TypeStdout, "", 0), record(TypeEndRequest, string(make([]byte, 8)), 0)),
		"stderr first, no padding": slices.Concat(record(TypeStderr, "e", 7),
			record(TypeStdout, "Status: 404\r\nX-A: 1\r\n\r\n", 0), record(TypeStdout, "hello", 0),
			record(TypeStdout, "", 0), record(TypeEndRequest, string(make([]byte, 8)), 0)),
		"head over two records": slices.Concat(record(TypeStdout, "Status: 404\r\nX-", 1),
			record(TypeStdout, "A: 1\r\n\r\nhello", 2), record(TypeStdout, "", 0), record(TypeEndRequest, string(make([]byte, 8)), 0)),
	} {
		data = append(data, next...)
		var want string
		for cut := len(data); cut > 0; cut-- {
			var logged []string
			c := &Client{KeepConn: true, Stderr: func(_ *http.Request, s string) { logged = append(logged, s) }}
			src := bufio.NewReader(&splitReader{data: data, cut: cut})
			resp, err := c.ReadResponse(src, httptest.NewRequest("GET", "/", nil))
			if err != nil {
				t.Fatalf("%s, cut at %d: %v", name, cut, err)
			}
			inPlace := resp.Body.(*stdout).hb == nil
			body, err := io.ReadAll(resp.Body)
			rest, _ := io.ReadAll(src)
			got := fmt.Sprintf("%d %q %q %v %q %v %q", resp.StatusCode, resp.Header, body, err, logged, resp.Close, rest)
			if cut == len(data) {
				want = got
				if !inPlace && name != "head over two records" {
					t.Errorf("%s: a head the buffer holds was not parsed in place", name)
				}
				if !strings.Contains(got, "hello") || !strings.HasSuffix(got, "false \"NEXT\"") {
					t.Errorf("%s: %s", name, got)
				}
			} else if got != want {
				t.Errorf("%s, cut at %d (in place %v):\n got %s\nwant %s", name, cut, inPlace, got, want)
			}
		}
	}
	// A stream that breaks in the padding of a record the head ends: the
	// head is read, and the break is the body's, as reading the record
	// through the head's reader makes it.
	data := record(TypeStdout, "X-A: 1\n\n", 4)
	resp, err := (&Client{}).ReadResponse(bufio.NewReader(bytes.NewReader(data[:len(data)-2])), nil)
	if err != nil {
		t.Fatalf("cut in the padding: %v", err)
	}
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut in the padding: body's error %v", err)
	}
}

// TestReadResponseHeadOutlivesBuffer reads two answers on one kept
// connection, the second filling the connection's buffer where the
// first's head was parsed in place: the first answer's fields, which the
// proxy may still be writing to its client, must not change with it.
func TestReadResponseHeadOutlivesBuffer(t *testing.T) {
	answer := func(head string) []byte {
		return slices.Concat(record(TypeStdout, head+"hello", 0), record(TypeStdout, "", 0),
			record(TypeEndRequest, string(make([]byte, 8)), 0))
	}
	first := answer("Status: 404\r\nX-A: first\r\n\r\n")
	src := bufio.NewReader(&splitReader{data: slices.Concat(first, answer("Status: 200\r\nX-B: other\r\n\r\n")), cut: len(first)})
	c := &Client{KeepConn: true}
	var resps []*http.Response
	for range 2 {
		resp, err := c.ReadResponse(src, httptest.NewRequest("GET", "/", nil))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Body.(*stdout).hb != nil {
			t.Fatal("the head was not parsed in place")
		}
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Fatal(err)
		}
		resps = append(resps, resp)
	}
	if got := fmt.Sprint(resps[0].StatusCode, resps[0].Header); got != "404 map[Status:[404] X-A:[first]]" {
		t.Errorf("the first answer after the second was read: %s", got)
	}
}

// TestAppendHeadPadding: whatever the pairs' length modulo 8, the PARAMS
// record is padded to 8 bytes with zeros and followed by the empty
// PARAMS record (paramsEnd's last bytes), and EndBody writes the empty
// STDIN record.
func TestAppendHeadPadding(t *testing.T) {
	for n := range 9 {
		params := func(dst []byte, _ *http.Request) []byte { return AppendPair(dst, "V", strings.Repeat("v", n)) }
		head, err := (&Client{Params: params, KeepConn: true}).AppendHead(nil, httptest.NewRequest("GET", "/", nil), 0)
		if err != nil {
			t.Fatal(err)
		}
		want := AppendRecord(append([]byte(nil), beginKeep...), TypeParams, AppendPair(nil, "V", strings.Repeat("v", n)))
		want = append(want, 1, TypeParams, 0, 1, 0, 0, 0, 0)
		if !bytes.Equal(head, want) {
			t.Errorf("value of %d bytes: head\n%q, want\n%q", n, head, want)
		}
	}
	head, _ := (&Client{}).AppendHead(nil, httptest.NewRequest("GET", "/", nil), 0)
	if want := append(append([]byte(nil), beginClose...), 1, TypeParams, 0, 1, 0, 0, 0, 0); !bytes.Equal(head, want) {
		t.Errorf("no parameters: head %q, want %q", head, want)
	}
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	if err := (&Client{}).EndBody(bw); err != nil || bw.Flush() != nil {
		t.Fatal(err)
	}
	if want := []byte{1, TypeStdin, 0, 1, 0, 0, 0, 0}; !bytes.Equal(b.Bytes(), want) {
		t.Errorf("EndBody wrote %q, want %q", b.Bytes(), want)
	}
}
