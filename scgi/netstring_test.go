package scgi

import (
	"bufio"
	"errors"
	"io"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

// The bytes NGINX sends: the netstring's length counts every name, value
// and NUL, CONTENT_LENGTH comes first, the body follows the comma.
func TestAppendRequest(t *testing.T) {
	got, err := AppendRequest(nil, 3, []Var{{Name: "SCGI", Value: "1"}, {Name: "REQUEST_METHOD", Value: "POST"}, {Name: "EMPTY", Value: ""}})
	if err != nil {
		t.Fatal(err)
	}
	want := "51:CONTENT_LENGTH\x003\x00SCGI\x001\x00REQUEST_METHOD\x00POST\x00EMPTY\x00\x00,"
	if string(got) != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if n := len(want) - len("51:,"); n != 51 {
		t.Fatalf("the example's length is %d", n)
	}
	for _, v := range []Var{{Name: "A\x00B", Value: "x"}, {Name: "A", Value: "x\x00HTTP_EVIL\x00y"}} {
		if _, err := AppendRequest(nil, 0, []Var{v}); !errors.Is(err, ErrNUL) {
			t.Errorf("%q: %v", v, err)
		}
	}
}

func TestReadRequestRoundTrip(t *testing.T) {
	vars := []Var{{Name: "SCGI", Value: "1"}, {Name: "REQUEST_URI", Value: "/a?b=c"}, {Name: "HTTP_X", Value: ""}}
	head, _ := AppendRequest(nil, 4, vars)
	br := bufio.NewReader(strings.NewReader(string(head) + "bodyNEXT"))
	req, err := ReadRequest(br, 0)
	if err != nil {
		t.Fatal(err)
	}
	if req.ContentLength != 4 || !reflect.DeepEqual(req.Vars[1:], vars) {
		t.Errorf("%+v", req)
	}
	if v, ok := req.Get("REQUEST_URI"); !ok || v != "/a?b=c" {
		t.Errorf("Get: %q %v", v, ok)
	}
	body := make([]byte, req.ContentLength)
	io.ReadFull(br, body)
	if string(body) != "body" {
		t.Errorf("the body reads %q", body)
	}
}

func TestReadRequestMalformed(t *testing.T) {
	for _, in := range []string{
		"x:",                          // no length
		"01:A\x00B\x00,",              // a leading zero
		"3:A\x00B\x00,",               // the length does not match
		"4:A\x00B\x00;",               // no comma
		"4:A\x00B\x00,",               // CONTENT_LENGTH not first
		"17:CONTENT_LENGTH\x00x\x00,", // not a number
		"18:CONTENT_LENGTH\x00-1\x00,",
		"18:CONTENT_LENGTH\x00+1\x00,",
		"18:CONTENT_LENGTH\x0001\x00,",
		"15:CONTENT_LENGTH\x00,", // a value without its NUL
		"99999999999999999999:",  // over the limit
	} {
		if _, err := ReadRequest(bufio.NewReader(strings.NewReader(in)), 0); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: %v", in, err)
		}
	}
	for _, in := range []string{"12", "30:CONTENT_LENGTH\x000\x00"} {
		if _, err := ReadRequest(bufio.NewReader(strings.NewReader(in)), 0); err != io.ErrUnexpectedEOF {
			t.Errorf("%q cut short: %v", in, err)
		}
	}
	if _, err := ReadRequest(bufio.NewReader(strings.NewReader("")), 0); err != io.EOF {
		t.Errorf("nothing: %v", err)
	}
}

// The Wire sends the netstring, the body as it is (none with DropBody,
// the length still stated), and the default variables of scgi_params.
func TestWireAppendHead(t *testing.T) {
	r := httptest.NewRequest("PUT", "http://site.test/p?q=1", strings.NewReader("abc"))
	head, err := (&Wire{}).AppendHead(nil, r, 3)
	if err != nil {
		t.Fatal(err)
	}
	req, err := ReadRequest(bufio.NewReader(strings.NewReader(string(head))), 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range req.Vars {
		got = append(got, v.Name+"="+v.Value)
	}
	want := "CONTENT_LENGTH=3 REQUEST_METHOD=PUT REQUEST_URI=/p?q=1 QUERY_STRING=q=1 CONTENT_TYPE= DOCUMENT_URI=/p SCGI=1 " +
		"SERVER_PROTOCOL=HTTP/1.1 REQUEST_SCHEME=http REMOTE_ADDR=192.0.2.1 REMOTE_PORT=1234 SERVER_PORT= SERVER_NAME=site.test HTTP_HOST=site.test"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	var out strings.Builder
	bw := bufio.NewWriter(&out)
	for _, w := range []*Wire{{}, {Stream: gateway.Stream{DropBody: true}}} {
		out.Reset()
		w.WriteBody(bw, []byte("abc"))
		w.EndBody(bw)
		bw.Flush()
		if want := map[bool]string{false: "abc", true: ""}[w.DropBody]; out.String() != want {
			t.Errorf("DropBody %v: %q", w.DropBody, out.String())
		}
	}
}

// The answer's head is limited by MaxHeaderSize.
func TestWireReadResponse(t *testing.T) {
	big := "Status: 404 Gone\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n"
	if _, err := (&Wire{}).ReadResponse(bufio.NewReader(strings.NewReader(big)), httptest.NewRequest("GET", "/", nil)); err == nil {
		t.Error("a head over scgi_buffer_size is read")
	}
	resp, err := (&Wire{Stream: gateway.Stream{MaxHeaderSize: 8192}}).ReadResponse(bufio.NewReader(strings.NewReader(big)), httptest.NewRequest("GET", "/", nil))
	if err != nil || resp.StatusCode != 404 || !resp.Close {
		t.Errorf("with a larger buffer: %v %v", resp, err)
	}
}

// FuzzReadRequest: whatever a client of an application sends, ReadRequest
// returns an error or a request that encodes back to the bytes it read.
func FuzzReadRequest(f *testing.F) {
	f.Add("24:CONTENT_LENGTH\x000\x00SCGI\x001\x00,")
	f.Add("4:A\x00B\x00,")
	f.Add("0:,")
	f.Add("18:CONTENT_LENGTH\x0012\x00,")
	f.Fuzz(func(t *testing.T, in string) {
		req, err := ReadRequest(bufio.NewReader(strings.NewReader(in)), 1024)
		if err != nil {
			return
		}
		out, err := AppendRequest(nil, req.ContentLength, req.Vars[1:])
		if err != nil {
			t.Fatalf("%q decodes to variables that do not encode: %v", in, err)
		}
		if !strings.HasPrefix(in, string(out)) {
			t.Fatalf("%q encodes back to %q", in, out)
		}
	})
}
