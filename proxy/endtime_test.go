package proxy_test

import (
	"net"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/vars"
)

// A try whose answer came whole with its head ends when the head was
// read, as NGINX's $upstream_response_time then equals its
// $upstream_header_time; one whose connection is read again ends when
// that read does, an end of file that brings no byte included: an
// answer delimited by the close, sent 200 ms after its head, counts the
// wait.
func TestUpstreamResponseTimeEndsWithLastRead(t *testing.T) {
	for _, c := range []struct {
		name, head string
		wait       time.Duration
	}{
		{"whole with its head", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0},
		{"closed later", "HTTP/1.0 200 OK\r\n\r\n", 200 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				conn, err := ln.Accept()
				if err != nil {
					return
				}
				defer conn.Close()
				buf := make([]byte, 4096)
				_, _ = conn.Read(buf) // the request, small enough for one read
				_, _ = conn.Write([]byte(c.head))
				time.Sleep(c.wait)
			}()
			h := proxyTo(t, "http://"+ln.Addr().String(), proxy.Options{})
			st := &vars.State{Start: time.Now()}
			r := httptest.NewRequest("GET", "/", nil)
			h.ServeHTTP(httptest.NewRecorder(), r.WithContext(vars.NewContext(r.Context(), st)))
			header, _ := st.Get("upstream_header_time")
			total, _ := st.Get("upstream_response_time")
			hs, err1 := strconv.ParseFloat(header, 64)
			ts, err2 := strconv.ParseFloat(total, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("$upstream_header_time %q, $upstream_response_time %q", header, total)
			}
			if c.wait == 0 && total != header {
				t.Errorf("$upstream_response_time %q, want $upstream_header_time's %q", total, header)
			}
			if c.wait > 0 && (ts < c.wait.Seconds() || ts-hs < c.wait.Seconds()/2) {
				t.Errorf("$upstream_response_time %q after $upstream_header_time %q, want the %v wait in it", total, header, c.wait)
			}
		})
	}
}
