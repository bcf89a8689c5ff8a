package proxy_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/textproto"
	"strings"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

func gzipped(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func chunked(t *testing.T, p []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	cw := httputil.NewChunkedWriter(&b)
	cw.Write(p)
	cw.Close()
	b.WriteString("\r\n")
	return b.Bytes()
}

// TestOtherTransferCodings: a Transfer-Encoding net/http refuses is read
// by RFC 9112's framing rules instead of answered with 502; its codings
// are undone, and the field never reaches the client. A coding mosaic
// cannot undo (compress among them) is 502: relayed, it would pass for
// the plain body.
func TestOtherTransferCodings(t *testing.T) {
	const text = "hello, transfer codings"
	for _, c := range []struct {
		name, te string
		body     []byte
		extra    string // more header lines
		want     string // "" with status 502
	}{
		{"gzip close-delimited", "gzip", gzipped(t, text), "", text},
		{"gzip then chunked", "gzip, chunked", chunked(t, gzipped(t, text)), "", text},
		{"two lines", "gzip\r\nTransfer-Encoding: chunked", chunked(t, gzipped(t, text)), "", text},
		{"case and parameters", "X-GZIP;q=1 , Chunked", chunked(t, gzipped(t, text)), "", text},
		// Content-Length does not count beside Transfer-Encoding.
		{"gzip, with Content-Length", "gzip", gzipped(t, text), "Content-Length: 5\r\n", text},
		{"unknown", "foo", []byte(text), "", ""},
		{"unknown then chunked", "foo, chunked", chunked(t, []byte(text)), "", ""},
		{"gzip over unknown", "foo, gzip", gzipped(t, text), "", ""},
		{"compress", "compress", []byte(text), "", ""},
		{"x-compress then chunked", "x-compress, chunked", chunked(t, []byte(text)), "", ""},
		{"chunked twice", "chunked, chunked", chunked(t, chunked(t, []byte(text))), "", ""},
		{"malformed member", "gz/ip", []byte(text), "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := testorigin.NewRaw(t, func(conn net.Conn, br *bufio.Reader) {
				http.ReadRequest(br)
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: %s\r\n%s\r\n", c.te, c.extra)
				conn.Write(c.body)
			})
			f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{HTTPVersion: "1.1"}))
			status, body, h := get(t, f.URL+"/")
			if c.want == "" {
				if status != http.StatusBadGateway {
					t.Errorf("status %d %q, want 502", status, body)
				}
				return
			}
			if status != 200 || body != c.want {
				t.Errorf("got %d %q, want 200 %q", status, body, c.want)
			}
			if v := h.Get("Content-Length"); v == "5" {
				t.Errorf("Content-Length %q passed on beside Transfer-Encoding", v)
			}
		})
	}
}

// TestOtherTransferCodingNotReused: the connection a response framed by
// these rules came on is never reused, even when its framing (chunked)
// ends the body: what the origin sends next on it is no answer to the
// next request, which goes on a new connection. The origin leaves out the
// CRLF that ends the empty trailer section, so that no byte of the first
// response is left unread and only that rule stands in the way of reuse.
func TestOtherTransferCodingNotReused(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	o := testorigin.NewRaw(t, func(conn net.Conn, br *bufio.Reader) {
		mu.Lock()
		conns++
		first := conns == 1
		mu.Unlock()
		for i := 0; ; i++ {
			if _, err := http.ReadRequest(br); err != nil {
				return
			}
			switch {
			case first && i == 0:
				body := chunked(t, gzipped(t, "first"))
				fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n%s", body[:len(body)-2])
			case first:
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nstray")
			default:
				io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh")
			}
		}
	})
	up := mustUpstream(t, "backend", 4, server(o.Addr()))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}))
	for i, want := range []string{"first", "fresh", "fresh"} {
		if status, body, _ := get(t, f.URL+"/"); status != 200 || body != want {
			t.Errorf("request %d: %d %q, want 200 %q", i+1, status, body, want)
		}
	}
}

// TestOtherTransferCodingHead: a HEAD's answer has no body whatever its
// Transfer-Encoding says.
func TestOtherTransferCodingHead(t *testing.T) {
	o := testorigin.NewRaw(t, func(conn net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nX-Ok: 1\r\n\r\n")
		io.Copy(io.Discard, br)
	})
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	req, _ := http.NewRequest(http.MethodHead, f.URL+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Ok") != "1" {
		t.Errorf("HEAD: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestInterimResponsesRelayed: 103 and 102 from the origin reach the
// client as they come, with their own fields only; 100 Continue does not.
func TestInterimResponsesRelayed(t *testing.T) {
	o := testorigin.NewRaw(t, func(conn net.Conn, br *bufio.Reader) {
		http.ReadRequest(br)
		io.WriteString(conn, "HTTP/1.1 100 Continue\r\n\r\n")
		io.WriteString(conn, "HTTP/1.1 102 Processing\r\n\r\n")
		io.WriteString(conn, "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\nX-My-Header: test\r\nServer: hidden\r\n\r\n")
		io.WriteString(conn, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Final: 1\r\n\r\nok")
	})
	f := newFront(t, proxyTo(t, "http://"+o.Addr(), proxy.Options{}))
	var mu sync.Mutex
	var got []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, fmt.Sprintf("%d link=%q x=%q server=%q final=%q", code, h.Get("Link"), h.Get("X-My-Header"), h.Get("Server"), h.Get("X-Final")))
		return nil
	}}
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/", nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := []string{
		`102 link="" x="" server="" final=""`,
		`103 link="</style.css>; rel=preload; as=style" x="test" server="" final=""`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("interim responses:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if resp.StatusCode != 200 || string(body) != "ok" || resp.Header.Get("X-Final") != "1" {
		t.Errorf("final: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if v := resp.Header.Get("Link"); v != "" {
		t.Errorf("the 103's Link leaked into the final response: %q", v)
	}
}

// TestChunkedAsNGINX: a chunked body is read as NGINX reads one, lines
// ended by LF alone and anything after a size's space included; the
// trailer's fields go to vars.Rare.UpstreamTrailer, its other lines are
// dropped, and the connection, read to the trailer's end, serves the next
// request. Chunks NGINX refuses are logged in its words.
func TestChunkedAsNGINX(t *testing.T) {
	var mu sync.Mutex
	conns := 0
	o := testorigin.NewRaw(t, func(conn net.Conn, br *bufio.Reader) {
		mu.Lock()
		conns++
		mu.Unlock()
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			chunks := "3 x;y\nabc\n0 z\nnot a field\nX-T: tv\nX-U:  u \r\n\n"
			if req.URL.Path == "/bad" {
				chunks = "0x3\r\nabc\r\n0\r\n\r\n"
			}
			io.WriteString(conn, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n"+chunks)
		}
	})
	logs := &logBuffer{}
	up := mustUpstream(t, "backend", 4, server(o.Addr()))
	f := newFront(t, proxyTo(t, "http://backend", proxy.Options{Upstream: up, HTTPVersion: "1.1",
		SetHeaders: keepaliveHeaders, Logger: logs.logger()}))
	for i := range 2 {
		if status, body, _ := get(t, f.URL+"/"); status != 200 || body != "abc" {
			t.Fatalf("request %d: %d %q, want 200 \"abc\"", i+1, status, body)
		}
		f.mu.Lock()
		tr := f.states[len(f.states)-1].Rare().UpstreamTrailer
		f.mu.Unlock()
		if want := (http.Header{"X-T": {"tv"}, "X-U": {"u"}}); fmt.Sprint(tr) != fmt.Sprint(want) {
			t.Errorf("request %d: trailer %v, want %v", i+1, tr, want)
		}
	}
	mu.Lock()
	if conns != 1 {
		t.Errorf("%d connections, want 1", conns)
	}
	mu.Unlock()
	if status, _, _ := get(t, f.URL+"/bad"); status != http.StatusBadGateway {
		t.Errorf("/bad: %d, want 502", status)
	}
	if want := `msg="upstream sent invalid chunked response while reading upstream"`; !strings.Contains(logs.String(), want) {
		t.Errorf("log %q, want %s", logs.String(), want)
	}
}
