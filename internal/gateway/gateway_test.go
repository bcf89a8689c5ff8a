package gateway

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

func TestParams(t *testing.T) {
	p := NewParams([]Param{
		{Name: "SCRIPT_NAME", Literal: "/a.php"},
		{Name: "HTTPS", IfNotEmpty: true},
		{Name: "EMPTY"},
		{Name: "HTTP_PROXY", Hide: true},
	}, true)
	r := httptest.NewRequest("GET", "http://site.test/", nil)
	r.Header.Set("Proxy", "http://evil")
	r.Header.Add("X-Forwarded-For", "1.1.1.1")
	r.Header.Add("X-Forwarded-For", "2.2.2.2")
	var got []string
	for _, v := range p.Append(nil, r) {
		got = append(got, v.Name+"="+v.Value)
	}
	want := "SCRIPT_NAME=/a.php EMPTY= HTTP_HOST=site.test HTTP_X_FORWARDED_FOR=1.1.1.1 HTTP_X_FORWARDED_FOR=2.2.2.2"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
	if n := len(NewParams(nil, false).Append(nil, r)); n != 0 {
		t.Errorf("pass_request_headers off sent %d", n)
	}
}

func TestReadHeader(t *testing.T) {
	for _, c := range []struct {
		in         string
		statusLine bool
		code       int
		err        error
	}{
		{"Content-Type: text/html\r\n\r\n", false, 200, nil},
		{"Status: 404\n\n", false, 404, nil},
		{"Status: 503 Busy\r\nLocation: /x\r\n\r\n", false, 503, nil},
		{"Location: http://a/\r\n\r\n", false, 302, nil},
		{"HTTP/1.1 201 Created\r\nX: y\r\n\r\n", true, 201, nil},
		{"HTTP/1.1 201 Created\r\n\r\n", false, 200, nil},                    // a status line among the fields: skipped, as NGINX does
		{"X: y\r\nHTTP/1.1 500 Oops\r\nStatus: 404\r\n\r\n", true, 404, nil}, // the same after the first line
		// A status line as NGINX's parser reads it: a first line it
		// cannot read is a field line starting "HTTP/", skipped.
		{"HTTP/1.1  201 x\r\n\r\n", true, 201, nil},
		{"HTTP/10.1 201 x\r\n\r\n", true, 201, nil},
		{"HTTP/1.1 404.1 x\r\n\r\n", true, 404, nil},
		{"HTTP/1.1 203\r\n\r\n", true, 203, nil},
		{"HTTP/2 201\r\nStatus: 202\r\n\r\n", true, 202, nil},
		{"HTTP/1.1 abc\r\nLocation: /x\r\n\r\n", true, 302, nil},
		{"HTTP/1000.1 201 x\r\n\r\n", true, 200, nil},
		{"HTTP/1.1 201x\r\nHTTP/1.1 203 y\r\n\r\n", true, 200, nil},
		{"HTTP/1.1 099 x\r\n\r\n", true, 0, ErrInvalidHeader},
		// A line may end with CRs before its LF, not the last one.
		{"X-A: 1\r\r\nStatus: 201\r\r\r\n\r\n", false, 201, nil},
		{"X-A: 1\r\n\r\r\n", false, 0, ErrInvalidHeader},
		{"X-A: 1\rb\r\n\r\n", false, 0, ErrInvalidHeader},
		{"Status : 404\r\n\r\n", false, 0, ErrInvalidHeader},
		{"X\tY: 1\r\n\r\n", false, 0, ErrInvalidHeader},
		{"X\x7fY: 1\r\n\r\n", false, 0, ErrInvalidHeader},
		{"Status: 2x0\r\n\r\n", false, 0, ErrInvalidHeader},
		{"Status: 099\r\n\r\n", false, 0, ErrInvalidHeader},
		{" folded: x\r\n\r\n", false, 0, ErrInvalidHeader},
		{"A: b\x00c\r\n\r\n", false, 0, ErrInvalidHeader},
		{"A\x00: b\r\n\r\n", false, 0, ErrInvalidHeader},
		{"A\rB: b\r\n\r\n", false, 0, ErrInvalidHeader},
		{"AB\x00\r\n\r\n", false, 0, ErrInvalidHeader},
		{": b\r\n\r\n", false, 0, ErrInvalidHeader},
		{"\tA: b\r\n\r\n", false, 0, ErrInvalidHeader},
		{"A: b: c\x00\r\n\r\n", false, 0, ErrInvalidHeader},
		{"X-Bare\r\nStatus: 201\r\n\r\n", false, 201, nil}, // no colon: a name without a value
		{strings.Repeat("X-Long: y\r\n", 100) + "\r\n", false, 0, ErrHeaderTooBig},
	} {
		resp, err := ReadHeader(bufio.NewReaderSize(strings.NewReader(c.in), 16), c.statusLine, 512)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("%q: %v, want %v", c.in, err, c.err)
			}
			continue
		}
		if err != nil || resp.StatusCode != c.code {
			t.Errorf("%q: %v %v", c.in, resp, err)
		}
	}
}

func TestHeaderParamName(t *testing.T) {
	if got := HeaderParamName("X-Real-ip"); got != "HTTP_X_REAL_IP" {
		t.Error(got)
	}
}

// The values computed from the request alone: HTTPS only over TLS.
func TestCGIParams(t *testing.T) {
	r := httptest.NewRequest("POST", "http://site.test:8080/a/b?x=1", strings.NewReader("abc"))
	r.Header.Set("Content-Type", "text/plain")
	var got []string
	for _, v := range NewParams(CGIParams("REQUEST_METHOD", "REQUEST_URI", "DOCUMENT_URI", "QUERY_STRING",
		"CONTENT_TYPE", "CONTENT_LENGTH", "HTTPS", "SERVER_NAME", "REMOTE_ADDR"), false).Append(nil, r) {
		got = append(got, v.Name+"="+v.Value)
	}
	want := "REQUEST_METHOD=POST REQUEST_URI=/a/b?x=1 DOCUMENT_URI=/a/b QUERY_STRING=x=1 " +
		"CONTENT_TYPE=text/plain CONTENT_LENGTH=3 SERVER_NAME=site.test REMOTE_ADDR=192.0.2.1"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// A head read out of the reader's buffer, when that holds all of it, and
// a head read line by line, when it comes in two pieces (split at every
// byte), give the same status, fields, length and error, and leave the
// reader at the body.
func TestReadHeaderBufferedOrNot(t *testing.T) {
	for _, c := range []struct {
		in         string
		statusLine bool
	}{
		{"X-Powered-By: PHP/8.2.29\r\nContent-type: text/html; charset=UTF-8\r\n\r\nhello", false},
		{"Status: 404 Not Here\nSet-Cookie: a=1\nSet-Cookie: b=2\nLocation: /x\n\nbody", false},
		{"HTTP/1.1 201 Created\r\nX: y\r\nContent-Length: 4\r\n\r\nbody", true},
		{"X: y\r\nHTTP/1.1 500 Oops\r\nStatus: 404\r\n\r\n", true},
		{"X-A: 1\r\r\nStatus: 201\r\r\r\nX-Bare\r\n\r\nrest", false},
		{"X-A: 1\r\n\r\r\n", false},
		{"X-A: 1\r\nA\rB: b\r\n\r\n", false},
		{"X-A: 1\r\n folded: x\r\n\r\n", false},
		{"HTTP/1.1 099 x\r\n\r\n", true},
		{"Content-Length: 5\r\ncontent-length: 6\r\n\r\n", false},
		{strings.Repeat("X-Long: y\r\n", 30) + "\r\n", false},
		{"X-Unended: y\r\n", false},
	} {
		read := func(r io.Reader) string {
			br := bufio.NewReaderSize(r, 4096)
			resp, err := ReadHeader(br, c.statusLine, 256)
			if err != nil {
				return "error " + err.Error()
			}
			rest, _ := io.ReadAll(br)
			return fmt.Sprintf("%d %q %v %d %q", resp.StatusCode, resp.Status, resp.Header, resp.ContentLength, rest)
		}
		want := read(strings.NewReader(c.in))
		for i := 1; i < len(c.in); i++ {
			if got := read(io.MultiReader(strings.NewReader(c.in[:i]), strings.NewReader(c.in[i:]))); got != want {
				t.Errorf("%q split at %d: %s, whole: %s", c.in, i, got, want)
			}
		}
	}
}

// REQUEST_URI is $request_uri, the client's target, as Debian's
// fastcgi_params and scgi_params have it: not r.RequestURI, which the
// server changes to the URI a proxy sends ("set $args" puts its new
// arguments there, a rewrite or an internal redirect empties it).
func TestCGIRequestURIIsTheClients(t *testing.T) {
	params := NewParams(CGIParams("REQUEST_URI", "QUERY_STRING"), false)
	for _, c := range []struct{ target, now, want string }{
		{"/a/b?x=1", "/a/b?a=1", "/a/b?x=1 QUERY_STRING=a=1"}, // set $args "a=1"
		{"/a/b?x=1", "", "/a/b?x=1 QUERY_STRING=a=1"},         // a rewrite
		{"http://h.test/a/b?x=1", "", "/a/b?x=1 QUERY_STRING=a=1"},
	} {
		r := httptest.NewRequest("GET", "/a/b?a=1", nil)
		r.RequestURI = c.now
		st := &vars.State{RequestURI: c.target}
		r = r.WithContext(vars.NewContext(r.Context(), st))
		got := params.Append(nil, r)
		if s := got[0].Value + " QUERY_STRING=" + got[1].Value; s != c.want {
			t.Errorf("%s then %q: REQUEST_URI=%s, want %s", c.target, c.now, s, c.want)
		}
	}
	// Outside the server, without a State: the request's own target.
	r := httptest.NewRequest("GET", "/a/b?x=1", nil)
	if got := params.Append(nil, r)[0].Value; got != "/a/b?x=1" {
		t.Errorf("without a State: %s", got)
	}
	r.RequestURI = ""
	if got := params.Append(nil, r)[0].Value; got != "/a/b?x=1" {
		t.Errorf("built in-process: %s", got)
	}
}
