package uwsgi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/gateway"
)

func TestWireReadResponse(t *testing.T) {
	for _, c := range []struct {
		name, method, in string
		status           int
		body             string
		header           string // a header that must be there, "Name: value"
	}{
		{"status line", "GET", "HTTP/1.1 404 Not Found\r\nX: 1\r\n\r\nabc", 404, "abc", "X: 1"},
		{"LF only", "GET", "HTTP/1.0 200 OK\nX: 1\n\nabc", 200, "abc", "X: 1"},
		{"CGI status", "GET", "Status: 201 Made\r\n\r\nabc", 201, "abc", "Status: 201 Made"},
		{"location", "GET", "Location: /x\r\n\r\n", 302, "", "Location: /x"},
		{"bare", "GET", "Content-Type: text/plain\r\n\r\nabc", 200, "abc", "Content-Type: text/plain"},
		{"length", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nabc", 200, "ab", ""},
		{"HEAD", "HEAD", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 200, "", "Content-Length: 3"},
		{"204", "GET", "HTTP/1.1 204 No Content\r\n\r\nabc", 204, "", ""},
		{"304", "GET", "HTTP/1.1 304 Not Modified\r\n\r\nabc", 304, "", ""},
	} {
		w := &Wire{}
		r := httptest.NewRequest(c.method, "/", nil)
		resp, err := w.ReadResponse(bufio.NewReader(strings.NewReader(c.in)), r)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != c.status || string(body) != c.body || !resp.Close {
			t.Errorf("%s: %d %q close=%v", c.name, resp.StatusCode, body, resp.Close)
		}
		if k, v, ok := strings.Cut(c.header, ": "); ok && resp.Header.Get(k) != v {
			t.Errorf("%s: header %v", c.name, resp.Header)
		}
	}
	for _, in := range []string{"HTTP/1.1 200 OK\r\nX: 1\r\n", "", "Status: abc\r\n\r\n"} {
		if _, err := (&Wire{}).ReadResponse(bufio.NewReader(strings.NewReader(in)), httptest.NewRequest("GET", "/", nil)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
	big := "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", 5000) + "\r\n\r\n"
	if _, err := (&Wire{}).ReadResponse(bufio.NewReader(strings.NewReader(big)), httptest.NewRequest("GET", "/", nil)); err == nil {
		t.Error("a head over uwsgi_buffer_size is read")
	}
	if _, err := (&Wire{Stream: gateway.Stream{MaxHeaderSize: 8192}}).ReadResponse(bufio.NewReader(strings.NewReader(big)), httptest.NewRequest("GET", "/", nil)); err != nil {
		t.Errorf("with a larger buffer: %v", err)
	}
}

func TestWireAppendHead(t *testing.T) {
	w := &Wire{Modifier1: 0, Modifier2: 0, Extra: []byte("x"), Vars: func(dst []Var, r *http.Request) []Var {
		return append(dst, Var{Name: "A", Value: r.Method})
	}}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	head, err := w.AppendHead(nil, httptest.NewRequest("PUT", "/", nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	bw.Write(head)
	w.WriteBody(bw, []byte("body"))
	w.EndBody(bw)
	bw.Flush()
	want := "\x00\x09\x00\x00\x01\x00A\x03\x00PUTxbody"
	if buf.String() != want {
		t.Fatalf("%q", buf.String())
	}
	w.Vars = func(dst []Var, _ *http.Request) []Var {
		return append(dst, Var{Name: "BIG", Value: strings.Repeat("v", MaxVarsSize)})
	}
	if _, err := w.AppendHead(nil, httptest.NewRequest("GET", "/", nil), 0); !errors.Is(err, ErrTooBig) {
		t.Fatalf("a packet over 64 KiB: %v", err)
	}
}
