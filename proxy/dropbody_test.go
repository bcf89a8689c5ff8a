package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/proxy"
)

// lengthOrigin answers each request on a connection with its
// Content-Length line and the body bytes that came within a moment of the
// head, and counts its connections.
func lengthOrigin(t *testing.T, conns *atomic.Int32) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		conns.Add(1)
		tp := textproto.NewReader(br)
		for {
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := tp.ReadLine(); err != nil {
				return
			}
			hdr, err := tp.ReadMIMEHeader()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			var n int
			fmt.Sscan(hdr.Get("Content-Length"), &n)
			body := make([]byte, n)
			k, _ := io.ReadFull(br, body)
			out := fmt.Sprintf("cl=%q body=%q", hdr.Values("Content-Length"), body[:k])
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(out), out)
		}
	})
}

// TestDropBody: proxy_pass_request_body off reads the body and sends its
// length alone, as NGINX; DropLength drops that length too. A request
// that announced a body it did not send leaves no connection to keep,
// which the upstream would read the next request from as that body.
func TestDropBody(t *testing.T) {
	for _, c := range []struct {
		name string
		opts proxy.Options
		want string
	}{
		{"DropBody", proxy.Options{DropBody: true}, `cl=["5"] body=""`},
		{"DropLength", proxy.Options{DropBody: true, DropLength: true}, `cl=[] body=""`},
		{"sent", proxy.Options{DropLength: true, RequestBuffering: true}, `cl=["5"] body="hello"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var conns atomic.Int32
			o := lengthOrigin(t, &conns)
			c.opts.Upstream = mustUpstream(t, "backend", 4, server(o.Addr()))
			c.opts.HTTPVersion, c.opts.SetHeaders = "1.1", keepaliveHeaders
			f := newFront(t, proxyTo(t, "http://backend", c.opts))
			for _, body := range []io.Reader{strings.NewReader("hello"), io.MultiReader(strings.NewReader("hel"), strings.NewReader("lo"))} {
				resp, err := http.Post(f.URL, "text/plain", body) // the second chunked
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != c.want {
					t.Errorf("got %s, want %s", b, c.want)
				}
			}
			want := int32(1)
			if c.opts.DropBody && !c.opts.DropLength {
				want = 2
			}
			if n := conns.Load(); n != want {
				t.Errorf("%d connections, want %d", n, want)
			}
		})
	}
}
