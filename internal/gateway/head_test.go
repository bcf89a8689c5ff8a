package gateway

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The names as applications spell them become canonical, repeated names
// keep every value in order, values are trimmed, and a status line's
// text is the status.
func TestReadHeaderFields(t *testing.T) {
	in := "HTTP/1.1 201 Made here\r\nContent-type: text/html\r\nset-cookie: a=1\r\nX-Odd-name:  x \t\r\n" +
		"Set-Cookie: b=2\nX-EMPTY:\r\nno-colon\r\nSet-cookie:c=3\r\n\r\nbody"
	br := bufio.NewReaderSize(strings.NewReader(in), 16)
	resp, err := ReadHeader(br, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Content-Type": {"text/html"},
		"Set-Cookie":   {"a=1", "b=2", "c=3"},
		"X-Odd-Name":   {"x"},
		"X-Empty":      {""},
		"No-Colon":     {""},
	}
	if !reflect.DeepEqual(resp.Header, want) {
		t.Errorf("header %q\nwant   %q", resp.Header, want)
	}
	if resp.StatusCode != 201 || resp.Status != "201 Made here" {
		t.Errorf("status %d %q", resp.StatusCode, resp.Status)
	}
	if rest, _ := br.ReadString(0); rest != "body" {
		t.Errorf("the body reads %q", rest)
	}
	// A value appended to one name does not show in another's.
	resp.Header["Content-Type"] = append(resp.Header["Content-Type"], "more")
	if resp.Header.Get("Set-Cookie") != "a=1" || len(resp.Header["Set-Cookie"]) != 3 {
		t.Errorf("appending to one name changed another: %q", resp.Header)
	}
}

// A head of more lines than ReadHeaderInto notes on its stack (8) keeps
// every field, each name with its values in order.
func TestReadHeaderManyFields(t *testing.T) {
	var in strings.Builder
	want := http.Header{}
	for i := range 70 {
		name := "X-F" + strings.Repeat("a", i%40)
		value := strings.Repeat("v", i)
		in.WriteString(name + ":\t" + value + " \r\n")
		want[name] = append(want[name], value)
	}
	in.WriteString("\r\n")
	resp, err := ReadHeader(bufio.NewReader(strings.NewReader(in.String())), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp.Header, want) {
		t.Errorf("header %q\nwant   %q", resp.Header, want)
	}
}

// A head as PHP writes it costs the Response's few allocations, not
// several per line.
func TestReadHeaderAllocations(t *testing.T) {
	const head = "X-Powered-By: PHP/8.2.29\r\nContent-type: text/html; charset=UTF-8\r\n" +
		"Set-Cookie: s=1; path=/\r\nCache-Control: no-store\r\n\r\n"
	sr := strings.NewReader(head)
	br := bufio.NewReader(sr)
	var h Head
	resp := &h.Response
	n := testing.AllocsPerRun(100, func() {
		sr.Reset(head)
		br.Reset(sr)
		if err := ReadHeaderInto(&h, br, false, 0); err != nil {
			t.Fatal(err)
		}
	})
	// The head's text, the map and its slots: the values have their
	// slots in the Head.
	if n > 3 {
		t.Errorf("%v allocations for a head of four lines", n)
	}
	if resp.Header.Get("Content-Type") != "text/html; charset=UTF-8" || resp.StatusCode != 200 {
		t.Errorf("%d %q", resp.StatusCode, resp.Header)
	}
}

// The parameters of the usual header fields cost no allocation each.
func TestParamsAllocations(t *testing.T) {
	r, _ := http.NewRequest("GET", "http://example.com/", nil)
	for _, k := range []string{"User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Cookie",
		"Referer", "Sec-Fetch-Mode", "Upgrade-Insecure-Requests"} {
		r.Header[k] = []string{"x"}
	}
	p := NewParams(nil, true)
	dst := make([]Var, 0, 16)
	if n := testing.AllocsPerRun(100, func() { dst = p.Append(dst[:0], r) }); n != 0 {
		t.Errorf("%v allocations for nine header lines", n)
	}
	if len(dst) != 9 || dst[0].Name != "HTTP_ACCEPT" || dst[4].Name != "HTTP_HOST" || dst[4].Value != "example.com" {
		t.Errorf("%v", dst)
	}
	for _, name := range commonHeaders {
		if param, ok := commonParamName(name); !ok || param != headerParamName(name) {
			t.Errorf("%s: %s %v", name, param, ok)
		}
	}
}

// A name not among the common ones, of any length (the empty one
// included), is not found in the table, and its parameter is still made.
func TestCommonParamNameMiss(t *testing.T) {
	for _, name := range []string{"", "X", "Hos", "Hostx", "host", "X-Custom-Header", "Content-Typ", "User-Agent-"} {
		if param, ok := commonParamName(name); ok {
			t.Errorf("%q found as %q", name, param)
		}
	}
	if got := HeaderParamName("X-Custom-Header"); got != "HTTP_X_CUSTOM_HEADER" {
		t.Error(got)
	}
}

// Two Content-Length lines that disagree make the head invalid (502), as
// NGINX refuses a duplicate one: neither length can be trusted to end
// the body. The same length twice is one length.
func TestReadHeaderConflictingContentLength(t *testing.T) {
	for head, want := range map[string]int64{
		"Content-Length: 5\r\nContent-Length: 10\r\n\r\n":           -2,
		"Content-Length: 10\r\nX-A: a\r\ncontent-length: 5\r\n\r\n": -2,
		"Content-Length: 5\r\nContent-Length: 5\r\n\r\n":            5,
		"Content-Length: 5\r\n\r\n":                                 5,
	} {
		resp, err := ReadHeader(bufio.NewReader(strings.NewReader(head)), false, 0)
		switch {
		case want == -2 && !errors.Is(err, ErrInvalidHeader):
			t.Errorf("%q: %v, want an invalid header", head, err)
		case want >= 0 && (err != nil || resp.ContentLength != want):
			t.Errorf("%q: %v, want length %d", head, err, want)
		}
	}
}

// canonicalKey answers as textproto does, whether the name is canonical
// already, a common spelling (every one the table holds), a spelling of a
// common name the table does not hold, or neither.
func TestCanonicalKey(t *testing.T) {
	names := []string{"X-Powered-By", "x-powered-by", "Content-type", "CONTENT-LENGTH", "X-pOWERED",
		"Etag", "ETag", "A", "a", "-x", "X--Y", "X-Y-", "Foo(bar", "foo(bar", "x_y", "X-1a", "X-1A", "Ünicode",
		"content-Type", "CONTENT-TYPE", "Content-typ", "Content-typE", "Set-cookiE", "x-accel-REDIRECT"}
	for _, e := range knownKeys {
		if e.name != "" {
			names = append(names, e.name)
		}
	}
	for _, name := range names {
		if got, want := canonicalKey(name), textproto.CanonicalMIMEHeaderKey(name); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}

// Plain says whether a head has a Connection or an X-Accel-* field,
// however spelled and wherever among the lines.
func TestReadHeaderPlain(t *testing.T) {
	many := ""
	for i := range 20 {
		many += fmt.Sprintf("X-F%d: %d\r\n", i, i)
	}
	for head, want := range map[string]bool{
		"X-Powered-By: PHP/8.2\r\nContent-type: text/html\r\n": true,
		many:                         true,
		"X-Accel-Buffering: no\r\n":  false,
		"x-accel-limit-rate: 10\r\n": false,
		"Content-Type: a/b\r\nX-ACCEL-CHARSET: utf-8\r\n": false,
		many + "x-accel-redirect: /a\r\n":                 false,
		"connection: x-a\r\nX-A: 1\r\n":                   false,
		"Connection: close\r\n":                           false,
		"X-Accel: 1\r\nConnections: 2\r\n":                true,
		"x-thing: 1\r\n":                                  false,
	} {
		var h Head
		if err := ReadHeaderInto(&h, bufio.NewReader(strings.NewReader(head+"\r\n")), false, 0); err != nil {
			t.Fatal(err)
		}
		if h.Plain() != want {
			t.Errorf("%q: Plain %v, want %v", head, h.Plain(), want)
		}
	}
}

// A name met again after more names than the parse compares in place
// (8) gets its values together, in order.
func TestReadHeaderRepeatAfterManyNames(t *testing.T) {
	head := "Set-Cookie: a=1\r\n"
	want := http.Header{"Set-Cookie": {"a=1"}}
	for i := range 9 {
		name := fmt.Sprintf("X-N%d", i)
		head += name + ": v\r\n"
		want[name] = []string{"v"}
	}
	head += "set-cookie: b=2\r\nX-N0: w\r\n\r\n"
	want["Set-Cookie"] = append(want["Set-Cookie"], "b=2")
	want["X-N0"] = append(want["X-N0"], "w")
	resp, err := ReadHeader(bufio.NewReader(strings.NewReader(head)), false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp.Header, want) {
		t.Errorf("header %q\nwant   %q", resp.Header, want)
	}
}

// The header lines go out sorted by name, each value of a repeated field
// as its own parameter in its order, however many fields a request has
// (a few are sorted by insertion, many otherwise).
func TestParamsHeaderOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 12, 13, 40} {
		r, _ := http.NewRequest("GET", "http://example.com/", nil)
		var want []string
		for i := range n {
			k := fmt.Sprintf("X-F%02d", (i*7)%n)
			r.Header[k] = []string{"a" + k, "b" + k}
		}
		r.Header["Accept"] = []string{"*/*"}
		keys := slices.Sorted(maps.Keys(r.Header))
		keys = slices.Insert(keys, slices.Index(keys, "Accept")+1, "Host")
		for _, k := range keys {
			if k == "Host" {
				want = append(want, "HTTP_HOST=example.com")
				continue
			}
			for _, v := range r.Header[k] {
				want = append(want, headerParamName(k)+"="+v)
			}
		}
		var got []string
		for _, v := range NewParams(nil, true).Append(nil, r) {
			got = append(got, v.Name+"="+v.Value)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d fields:\ngot  %v\nwant %v", n, got, want)
		}
	}
}

// TestCheckLineEveryByte puts each byte at each place of a name of up to
// 17 bytes (so in nameEnd's words of eight and after them), among bytes
// allowed next to the refused ones ('!' above the space, '~' below DEL,
// the colon's neighbours, bytes with the top bit set): a control, a
// space or DEL makes the line invalid, anything else (a colon ends the
// name) does not, and the colon is found where it is.
func TestCheckLineEveryByte(t *testing.T) {
	const allowed = "!~\x80\xff9;A\x7e\x81"
	for n := 1; n <= 17; n++ {
		for at := range n {
			for c := range 256 {
				name := make([]byte, n)
				for i := range name {
					name[i] = allowed[(i+at)%len(allowed)]
				}
				name[at] = byte(c)
				line := append(name, ": v"...)
				colon, err := checkLine(line)
				wantColon := bytes.IndexByte(line, ':')
				bad := c <= ' ' || c == 0x7f
				if c == ':' {
					bad = at == 0 // an empty name
				}
				if bad != (err != nil) || !bad && colon != wantColon {
					t.Errorf("%q: colon %d, %v", line, colon, err)
				}
			}
		}
	}
	if colon, err := checkLine([]byte("NoColon")); err != nil || colon != len("NoColon") {
		t.Errorf("a line without a colon: %d, %v", colon, err)
	}
}

// An application's names are noted as written where the header holds
// them in canonical case, one a line for a name on several lines; PHP's
// Content-type is not (NGINX writes that field under its own name), and
// an uwsgi or SCGI answer's body tells them to the relay.
func TestHeadSpellings(t *testing.T) {
	const head = "Status: 200 OK\r\nx-thing: 1\r\nContent-type: text/html\r\nX-Dup: 1\r\nX_A: 2\r\nx-dup: 2\r\n\r\nbody"
	var h Head
	if err := ReadHeaderInto(&h, bufio.NewReader(strings.NewReader(head)), false, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := h.Spellings(), []string{"x-thing", "X-Dup", "X_A", "x-dup"}; !reflect.DeepEqual(got, want) {
		t.Errorf("spellings %q, want %q", got, want)
	}
	if h.Plain() {
		t.Error("a head with names to spell is plain: the relay would not ask for them")
	}
	resp, err := ReadResponse(bufio.NewReader(strings.NewReader(head)), httptest.NewRequest("GET", "/", nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	if sb, ok := resp.Body.(interface{ Spellings() []string }); !ok || len(sb.Spellings()) != 4 {
		t.Errorf("ReadResponse's body tells no spellings")
	}
	var php Head
	if err := ReadHeaderInto(&php, bufio.NewReader(strings.NewReader("X-Powered-By: PHP\r\nContent-type: text/html\r\n\r\n")), false, 0); err != nil || php.Spellings() != nil || !php.Plain() {
		t.Errorf("PHP's head: %q, %v", php.Spellings(), err)
	}
}
