package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// proxy_ignore_client_abort on keeps the upstream exchange going when the
// client leaves, so the origin's answer is read to its end; off (the
// default) ends it with the client, and the origin's writes fail.
func TestProxyIgnoreClientAbort(t *testing.T) {
	var finished, cancelled atomic.Int32
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A response that goes on after the client left: 50 pieces of
		// 64 KB, one every 10 ms. It is finished only if every write
		// went through, that is, if someone read it all.
		chunk := make([]byte, 64<<10)
		for range 50 {
			if _, err := w.Write(chunk); err != nil {
				cancelled.Add(1)
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
		finished.Add(1)
	}))
	defer origin.Close()
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http { access_log off;
		server { listen 127.0.0.1:{port};
			location /on { proxy_pass %[1]s; proxy_ignore_client_abort on; }
			location /off { proxy_pass %[1]s; } } }`, origin.URL), port)
	leave := func(path string) {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
		buf := make([]byte, 512)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, _ = c.Read(buf) // the header: the exchange is under way
		c.Close()
	}
	leave("/off")
	waitFor := func(what string, cond func() bool) {
		for end := time.Now().Add(5 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("timed out waiting for %s (finished %d, cancelled %d)", what, finished.Load(), cancelled.Load())
			}
		}
	}
	waitFor("the origin's writes to /off to fail", func() bool { return cancelled.Load() == 1 })
	leave("/on")
	waitFor("the origin to finish /on", func() bool { return finished.Load() == 1 })
	if cancelled.Load() != 1 {
		t.Errorf("the origin saw %d cancelled requests, want only /off's", cancelled.Load())
	}
}
