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
// wait. A buffered try does not wait for the client (NGINX's event pipe
// finalizes once the upstream is done); an unbuffered one ends only once
// the client has taken the body (ngx_http_upstream_process_non_buffered_
// request finalizes with no busy buffers left), so a slow client's
// 200 ms count even for an answer that came whole with its head.
func TestUpstreamResponseTimeEndsWithLastRead(t *testing.T) {
	const whole = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
	for _, c := range []struct {
		name, head string
		off        bool          // proxy_buffering off
		upWait     time.Duration // the upstream's, after the head
		clientWait time.Duration // each write to the client's
		wait       time.Duration // what $upstream_response_time counts past the head
	}{
		{name: "whole with its head", head: whole},
		{name: "closed later", head: "HTTP/1.0 200 OK\r\n\r\n", upWait: 200 * time.Millisecond, wait: 200 * time.Millisecond},
		{name: "buffered, slow client", head: whole, clientWait: 200 * time.Millisecond},
		{name: "unbuffered, slow client", head: whole, off: true, clientWait: 200 * time.Millisecond, wait: 200 * time.Millisecond},
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
				time.Sleep(c.upWait)
			}()
			h := proxyTo(t, "http://"+ln.Addr().String(), proxy.Options{BufferingOff: c.off})
			st := &vars.State{Start: time.Now()}
			r := httptest.NewRequest("GET", "/", nil)
			w := &slowWriter{httptest.NewRecorder(), c.clientWait}
			h.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
			header, _ := st.Get("upstream_header_time")
			total, _ := st.Get("upstream_response_time")
			hs, err1 := strconv.ParseFloat(header, 64)
			ts, err2 := strconv.ParseFloat(total, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("$upstream_header_time %q, $upstream_response_time %q", header, total)
			}
			if wait := c.wait; wait == 0 && total != header {
				t.Errorf("$upstream_response_time %q, want $upstream_header_time's %q", total, header)
			} else if ts < wait.Seconds() || ts-hs < wait.Seconds()/2 {
				t.Errorf("$upstream_response_time %q after $upstream_header_time %q, want the %v wait in it", total, header, wait)
			}
		})
	}
}

// slowWriter is a client that takes wait to accept each write.
type slowWriter struct {
	*httptest.ResponseRecorder
	wait time.Duration
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(w.wait)
	return w.ResponseRecorder.Write(p)
}
