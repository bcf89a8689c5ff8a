package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TLS listeners serve HTTP/1.1 with the same connection loop as plain
// ones: these tests run each connection rule on a plain and a TLS
// listener of one server, and check that HTTP/2 and the graceful stop
// and reload hold on TLS.

// tlsSite writes a site with a plain and a TLS listener (the TLS port is
// returned) and the configuration of every test here; extra goes into
// the http block.
func tlsSite(t *testing.T, dir, extra string) (conf string, tlsPort int) {
	t.Helper()
	cert, key := selfSigned(t, dir)
	writeFile(t, filepath.Join(dir, "www/a.txt"), "a")
	tlsPort = freePort(t)
	return fmt.Sprintf(`http { root %s/www; %s
		server { listen 127.0.0.1:{port}; listen 127.0.0.1:%d ssl http2; server_name mosaic.test;
			ssl_certificate %s; ssl_certificate_key %s;
			location = /scheme { return 200 "$scheme $https $server_protocol"; } } }`,
		dir, extra, tlsPort, cert, key), tlsPort
}

// listenerDials dials the plain and the TLS listener; the TLS client
// offers HTTP/1.1 only, as a client without HTTP/2 does.
func listenerDials(port, tlsPort int) map[string]func() (net.Conn, error) {
	return map[string]func() (net.Conn, error){
		"plain": func() (net.Conn, error) { return net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)) },
		"tls": func() (net.Conn, error) {
			return tls.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", tlsPort), &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		},
	}
}

func mustDial(t *testing.T, dial func() (net.Conn, error)) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return c, bufio.NewReader(c)
}

// closedAfter reads until the server closes the connection and reports
// whether it did so with nothing more sent.
func closedAfter(br *bufio.Reader) error {
	rest, err := io.ReadAll(br)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%q sent before the close", rest)
	}
	return nil
}

// keepalive_requests, pipelining, large_client_header_buffers,
// client_header_timeout and the request's scheme, on a plain and a TLS
// listener: the same answers, but for $scheme and $https.
func TestTLSListenerConnectionRules(t *testing.T) {
	dir := t.TempDir()
	conf, tlsPort := tlsSite(t, dir, "keepalive_requests 3; large_client_header_buffers 2 1k; client_header_timeout 500ms;")
	port := freePort(t)
	waitPort(t, tlsPort, startMosaic(t, dir, conf, port))
	const get = "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n"

	for name, dial := range listenerDials(port, tlsPort) {
		t.Run(name, func(t *testing.T) {
			// keepalive_requests 3: the third response closes.
			c, br := mustDial(t, dial)
			for i := 1; i <= 3; i++ {
				if resp := exchange(t, c, br, get); resp.Close != (i == 3) {
					t.Errorf("keepalive_requests: request %d: Close = %v", i, resp.Close)
				}
			}
			if err := closedAfter(br); err != nil {
				t.Errorf("keepalive_requests: after the last response: %v", err)
			}

			// Pipelined requests, in one write, are answered in order on
			// the one connection.
			c, br = mustDial(t, dial)
			if _, err := io.WriteString(c, "GET /scheme HTTP/1.1\r\nHost: t\r\n\r\n"+get+"GET /nothing HTTP/1.1\r\nHost: t\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			wantScheme := map[string]string{"plain": "http  HTTP/1.1", "tls": "https on HTTP/1.1"}[name]
			for i, want := range []struct {
				status int
				body   string
			}{{200, wantScheme}, {200, "a"}, {404, ""}} {
				resp, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("pipelined response %d: %v", i, err)
				}
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != want.status || want.body != "" && string(b) != want.body {
					t.Errorf("pipelined response %d: %d %q, want %d %q", i, resp.StatusCode, b, want.status, want.body)
				}
			}

			// large_client_header_buffers 2 1k.
			for _, tc := range headerBufferCases() {
				c, br := mustDial(t, dial)
				resp := exchange(t, c, br, tc.req)
				if resp.StatusCode != tc.want || tc.want != 200 && !resp.Close {
					t.Errorf("%s: status %d, close %v; want %d", tc.name, resp.StatusCode, resp.Close, tc.want)
				}
			}

			// client_header_timeout 500ms cuts a header left half sent.
			c, br = mustDial(t, dial)
			if _, err := io.WriteString(c, "GET /a.txt HTTP/1.1\r\nHost: t\r\n"); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			err := closedAfter(br)
			if d := time.Since(start); err != nil || d < 300*time.Millisecond || d > 5*time.Second {
				t.Errorf("client_header_timeout: closed after %v (%v), want about 500ms", d, err)
			}
		})
	}
}

// h2Get fetches url over HTTP/2 and returns the body.
func h2Get(t *testing.T, client *http.Client, url string) string {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.ProtoMajor != 2 {
		t.Fatalf("%s served over %s", url, resp.Proto)
	}
	return string(b)
}

// HTTP/2 goes on being served by Go's server on the TLS listener, before
// and after a reload, and HTTP/1.1 on the same socket takes the reload
// too.
func TestTLSListenerHTTP2AndReload(t *testing.T) {
	dir := t.TempDir()
	conf, tlsPort := tlsSite(t, dir, "")
	port := freePort(t)
	p := startMosaic(t, dir, conf, port)
	waitPort(t, tlsPort, p)
	h2 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"}, ForceAttemptHTTP2: true,
	}}
	url := fmt.Sprintf("https://127.0.0.1:%d/scheme", tlsPort)
	if body := h2Get(t, h2, url); body != "https on HTTP/2.0" {
		t.Fatalf("before the reload: %q", body)
	}

	writeFile(t, filepath.Join(dir, "mosaic.conf"), strings.ReplaceAll(
		strings.ReplaceAll(conf, `"$scheme $https $server_protocol"`, `"reloaded $server_protocol"`), "{port}", fmt.Sprint(port)))
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for h2Get(t, h2, url) != "reloaded HTTP/2.0" {
		if time.Now().After(deadline) {
			t.Fatal("HTTP/2 never served the reloaded configuration")
		}
		time.Sleep(20 * time.Millisecond)
	}
	c, br := mustDial(t, listenerDials(port, tlsPort)["tls"])
	resp := exchange(t, c, br, "GET /scheme HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP/1.1 after the reload: %d", resp.StatusCode)
	}
}

// SIGTERM lets requests in flight on the TLS listener finish, HTTP/1.1
// and HTTP/2 alike, then exits.
func TestTLSListenerGracefulStop(t *testing.T) {
	arrived := make(chan struct{}, 2)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		time.Sleep(700 * time.Millisecond)
		fmt.Fprint(w, "finished")
	}))
	defer origin.Close()
	dir := t.TempDir()
	conf, tlsPort := tlsSite(t, dir, "")
	conf = strings.Replace(conf, "location = /scheme", fmt.Sprintf("location /slow { proxy_pass %s; } location = /scheme", origin.URL), 1)
	port := freePort(t)
	p := startMosaic(t, dir, conf, port)
	waitPort(t, tlsPort, p)

	url := fmt.Sprintf("https://127.0.0.1:%d/slow", tlsPort)
	clients := map[string]*http.Client{
		"HTTP/1.1": {Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}}}},
		"HTTP/2.0": {Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}},
	}
	done := make(chan string, len(clients))
	for proto, client := range clients {
		go func() {
			resp, err := client.Get(url)
			if err != nil {
				done <- proto + ": " + err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			done <- resp.Proto + ": " + string(b)
		}()
	}
	// Both requests are in flight (at the origin) when the stop comes.
	for range clients {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("the requests did not reach the origin")
		}
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for range clients {
		got[<-done] = true
	}
	for proto := range clients {
		if !got[proto+": finished"] {
			t.Errorf("the in-flight %s request did not finish: %v", proto, got)
		}
	}
	waitExit(t, p)
}
