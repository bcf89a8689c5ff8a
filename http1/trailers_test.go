package http1

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// ExpectTrailers makes a body of known length go out chunked on
// HTTP/1.1, without Content-Length or a Trailer field, with AddTrailer's
// fields after the last chunk in the order added (a value's CR and LF
// made spaces, a name that is not a token dropped); HTTP/1.0 and HEAD
// keep Content-Length and get no trailers, as NGINX's add_trailer.
func TestExpectTrailers(t *testing.T) {
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e := w.(interface {
			ExpectTrailers()
			AddTrailer(name, value string)
		})
		e.ExpectTrailers()
		w.Header().Set("Content-Length", "5")
		io.WriteString(w, "hello")
		e.AddTrailer("X-B", "2")
		e.AddTrailer("X-A", "1\r\nInjected: yes")
		e.AddTrailer("Bad Name", "3")
	}))
	for _, c := range []struct{ req, want, never string }{
		{"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
			"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\nX-B: 2\r\nX-A: 1  Injected: yes\r\n\r\n", "Content-Length"},
		{"GET / HTTP/1.0\r\nHost: t\r\n\r\n", "Content-Length: 5\r\nConnection: close\r\n\r\nhello", "X-B"},
		{"HEAD / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", "Content-Length: 5\r\nConnection: close\r\n\r\n", "X-B"},
	} {
		cl := dial(t, ts.addr)
		cl.send(c.req)
		got, _ := io.ReadAll(cl.br)
		if !strings.HasSuffix(string(got), c.want) || strings.Contains(string(got), c.never) {
			t.Errorf("%q: got %q, want it to end with %q, without %q", c.req, got, c.want, c.never)
		}
	}
}
