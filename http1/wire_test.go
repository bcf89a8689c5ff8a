package http1

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"
)

// wireSizes is what the access log asks the writer at the end of a
// handler (vars.WireSizer).
type wireSizes interface {
	RequestSize() int64
	HeaderSize() int64
	BodyOverhead(complete bool) int64
}

// countingConnReader counts the bytes a client reads.
type countingConnReader struct {
	r io.Reader
	n int64
}

func (c *countingConnReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestServeWireSizes checks that what a handler learns at its end about
// the request and the response (for $request_length, $bytes_sent and
// $body_bytes_sent) is what crossed the connection: the response whether
// it went before the handler returned or waits in the buffer, chunked or
// not; the request with its chunked body's framing.
func TestServeWireSizes(t *testing.T) {
	big := pattern(20000)
	type sizes struct{ req, sent int64 }
	got := make(chan sizes, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var wrote int64
		_, _ = io.Copy(io.Discard, r.Body)
		switch r.URL.Path {
		case "/small":
			n, _ := w.Write([]byte("hello"))
			wrote += int64(n)
		case "/flush":
			n, _ := w.Write([]byte("a"))
			w.(http.Flusher).Flush()
			m, _ := w.Write([]byte("bc"))
			wrote += int64(n + m)
		case "/big":
			for p := big; len(p) > 0; p = p[1000:] {
				n, _ := w.Write(p[:1000])
				wrote += int64(n)
			}
		case "/trailer":
			w.Header().Set("Trailer", "X-T")
			n, _ := w.Write([]byte("abc"))
			w.Header().Set("X-T", "v")
			wrote += int64(n)
		case "/status":
			w.WriteHeader(http.StatusNoContent)
		}
		if r.Method == http.MethodHead {
			wrote = 0
		}
		ws := w.(wireSizes)
		got <- sizes{ws.RequestSize(), ws.HeaderSize() + ws.BodyOverhead(true) + wrote}
	}))
	for _, req := range []string{
		get("/small"),
		get("/flush"),
		get("/big"),
		get("/trailer"),
		get("/status"),
		"HEAD /small HTTP/1.1\r\nHost: test\r\n\r\n",
		"GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		"GET /flush HTTP/1.0\r\n\r\n",
		"POST /small HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello",
		"POST /flush HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0010\r\n0123456789abcdef\r\n0\r\nX-Trail: 1\r\n\r\n",
		"\r\nGET /small HTTP/1.1\r\nHost: test\r\n\r\n", // an empty line first, which NGINX does not count
	} {
		c := dial(t, ts.addr)
		cr := &countingConnReader{r: c.c}
		br := bufio.NewReader(cr)
		c.send(req)
		method, _, _ := strings.Cut(strings.TrimPrefix(req, "\r\n"), " ")
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatalf("%q: %v", req, err)
		}
		resp.Body.Close()
		s := <-got
		wire := cr.n - int64(br.Buffered())
		if s.sent != wire {
			t.Errorf("%q: the handler counted %d bytes sent, %d came", req, s.sent, wire)
		}
		if want := int64(len(strings.TrimPrefix(req, "\r\n"))); s.req != want {
			t.Errorf("%q: the handler counted a request of %d bytes, it has %d", req, s.req, want)
		}
	}
}

// A request that had begun to arrive before the previous response ended
// is pipelined ($pipe); one that came after is not.
func TestServePipelinedFlag(t *testing.T) {
	got := make(chan bool, 3)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- w.(interface{ Pipelined() bool }).Pipelined()
	}))
	c := dial(t, ts.addr)
	c.send(get("/1") + get("/2"))
	for range 2 {
		resp := c.response("GET")
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	c.roundTrip("GET", get("/3"))
	for i, want := range []bool{false, true, false} {
		if p := <-got; p != want {
			t.Errorf("request %d: pipelined %v, want %v", i+1, p, want)
		}
	}
}
