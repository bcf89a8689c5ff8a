package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// TestProxyBodyCutShortLoggedAsNGINX: a client that closes after part of
// the body a proxied location reads whole: NGINX ("client prematurely
// closed connection") terminates the request, sends nothing, and logs
// "400 0" with $request_completion empty; mosaic wrote a 400 page, and
// logged it sent and the request complete.
func TestProxyBodyCutShortLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer origin.Close()
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		// escape=json: an incomplete $request_completion is written
		// as nothing, as NGINX writes it (the default escaping writes
		// "-" for it, where NGINX writes nothing).
		return fmt.Sprintf(`log_format s escape=json '$status $body_bytes_sent "$request_completion"';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, dir, who, port, origin.Listener.Addr())
	})
	got := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c := sendThenWait(t, port, "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
		c.Close()
		got[who] = waitLog(t, filepath.Join(dir, who+".log"), 1)[0]
	}
	if got["m"] != got["n"] {
		t.Errorf("mosaic %q, NGINX %q", got["m"], got["n"])
	}
}

// TestProxyBodyMalformedAnsweredAsNGINX: a chunked body that is malformed,
// not cut short, is no closed connection: NGINX ("client sent invalid
// chunked body") answers with its 400 page, and logs it sent. mosaic took
// it for a client gone, closed the connection and sent nothing.
func TestProxyBodyMalformedAnsweredAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer origin.Close()
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s escape=json '$status "$request_completion"';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d; location / { proxy_pass http://%s; } }`, dir, who, port, origin.Listener.Addr())
	})
	sameAnswer(t, mport, nport, "POST /p HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked", "zz\r\n")
	m, n := waitLog(t, filepath.Join(dir, "m.log"), 1)[0], waitLog(t, filepath.Join(dir, "n.log"), 1)[0]
	if m != n {
		t.Errorf("log: mosaic %q, NGINX %q", m, n)
	}
}

// TestProxyStreamedBodyCutShortLoggedAsNGINX: the same cut with the body
// streamed to the upstream (proxy_request_buffering off): NGINX's read of
// the unbuffered body marks the connection in error as well, and the
// request is terminated: nothing sent, "400 0", not complete. mosaic
// answered with its 400 page.
func TestProxyStreamedBodyCutShortLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // until the proxy gives up
	}))
	defer origin.Close()
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s escape=json '$status $body_bytes_sent "$request_completion"';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d; location / { proxy_request_buffering off; proxy_pass http://%s; } }`,
			dir, who, port, origin.Listener.Addr())
	})
	got := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c := sendThenWait(t, port, "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
		c.CloseWrite()
		c.SetReadDeadline(time.Now().Add(3 * time.Second))
		answer, _ := io.ReadAll(c)
		c.Close()
		got[who] = fmt.Sprintf("%q; log %s", answer, waitLog(t, filepath.Join(dir, who+".log"), 1)[0])
	}
	if got["m"] != got["n"] {
		t.Errorf("mosaic %s\nNGINX  %s", got["m"], got["n"])
	}
}
