package http1

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// UnknownLength makes a short body that ends in the output buffer go out
// as one of unknown length: chunked on HTTP/1.1, up to the connection's
// close on HTTP/1.0, and a HEAD gets no length; without it the same
// body is counted. A length the handler sets still holds.
func TestUnknownLength(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/counted" {
			w.(interface{ UnknownLength() }).UnknownLength()
		}
		if r.URL.Path == "/declared" {
			w.Header().Set("Content-Length", "5")
		}
		io.WriteString(w, "hello")
	}))
	for _, c := range []struct{ req, want, never string }{
		{"GET /filtered HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
			"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n", "Content-Length"},
		{"GET /filtered HTTP/1.0\r\nHost: t\r\n\r\n", "Connection: close\r\n\r\nhello", "Content-Length"},
		{"HEAD /filtered HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "Connection: close\r\n\r\n", "Content-Length"},
		{"HEAD /counted HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "Content-Length: 5\r\nConnection: close\r\n\r\n", "chunked"},
		{"GET /counted HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "Content-Length: 5\r\nConnection: close\r\n\r\nhello", "chunked"},
		{"GET /declared HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "Content-Length: 5\r\nConnection: close\r\n\r\nhello", "chunked"},
	} {
		cl := dial(t, ts.addr)
		cl.send(c.req)
		got, _ := io.ReadAll(cl.br)
		if !strings.HasSuffix(string(got), c.want) || strings.Contains(string(got), c.never) {
			t.Errorf("%q: got %q, want it to end with %q, without %q", c.req, got, c.want, c.never)
		}
	}
}
