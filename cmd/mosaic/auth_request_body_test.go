package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestAuthRequestDoesNotWaitForBodyAsNGINX: NGINX makes the auth_request
// subrequest header-only (sr->header_only): the status decides, and an
// auth endpoint whose body streams (or is large) does not hold the
// client's request until that body ends. auth_request_set still reads the
// endpoint's header.
func TestAuthRequestDoesNotWaitForBodyAsNGINX(t *testing.T) {
	nginxPath(t)
	auth := streamingAuth(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location /p/ { alias %[2]s/www/; auth_request /auth; }
			location /s/ { alias %[2]s/www/; auth_request /auth; auth_request_set $u $upstream_http_x_user; add_header X-U $u; }
			location = /auth { internal; proxy_pass http://%s; }
		}`, port, dir, auth.Listener.Addr())
	})
	want := map[string]string{"/p/a.txt": "200 ", "/s/a.txt": "200 ann"}
	for _, path := range []string{"/p/a.txt", "/s/a.txt"} {
		for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
			done := make(chan string, 1)
			go func() {
				resp, _, err := testclient.Try("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
				if err != nil {
					done <- err.Error()
					return
				}
				done <- fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("X-U"))
			}()
			select {
			case got := <-done:
				if got != want[path] {
					t.Errorf("%s %s: %q, want %q", who, path, got, want[path])
				}
			case <-time.After(3 * time.Second):
				t.Errorf("%s %s: no answer while the auth endpoint's body streams", who, path)
			}
		}
	}
}

// TestAuthRequestKeepsEmptyAnswersConnection: an auth endpoint that
// answers with an empty body (the usual 200 or 401) is read to its end,
// so that its kept connection serves the next check rather than being
// closed as a header-only subrequest's unread body would have it.
func TestAuthRequestKeepsEmptyAnswersConnection(t *testing.T) {
	var conns atomic.Int32
	auth := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "0")
	}))
	auth.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	auth.Start()
	defer auth.Close()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		upstream authz { server %s; keepalive 4; }
		server { listen 127.0.0.1:{port}; root %s/www;
			location / { auth_request /auth; }
			location = /auth { internal; proxy_pass http://authz; proxy_http_version 1.1; proxy_set_header Connection ""; }
		}
	}`, auth.Listener.Addr(), dir), port)
	for i := 0; i < 5; i++ {
		if r, b := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/a.txt", port), nil); r.StatusCode != 200 || b != "hello\n" {
			t.Fatalf("request %d: %d %q", i, r.StatusCode, b)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the auth endpoint saw %d connections for 5 checks, want 1", n)
	}
}

// TestAuthRequestIgnoreClientAbortDoesNotWaitAsNGINX: NGINX finalizes a
// header-only subrequest's upstream once its header is in, whatever
// proxy_ignore_client_abort says (it keeps reading only a body it
// caches); an auth location with the directive on must not wait for an
// endpoint's streaming body either.
func TestAuthRequestIgnoreClientAbortDoesNotWaitAsNGINX(t *testing.T) {
	nginxPath(t)
	auth := streamingAuth(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location / { auth_request /auth; }
			location = /auth { internal; proxy_pass http://%s; proxy_ignore_client_abort on; }
		}`, port, dir, auth.Listener.Addr())
	})
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		done := make(chan string, 1)
		go func() {
			resp, body, err := testclient.Try("GET", fmt.Sprintf("http://127.0.0.1:%d/a.txt", port))
			if err != nil {
				done <- err.Error()
				return
			}
			done <- fmt.Sprintf("%d %s", resp.StatusCode, body)
		}()
		select {
		case got := <-done:
			if got != "200 hello\n" {
				t.Errorf("%s: %q, want %q", who, got, "200 hello\n")
			}
		case <-time.After(3 * time.Second):
			t.Errorf("%s: no answer while the auth endpoint's body streams", who)
		}
	}
}

// streamingAuth is an auth endpoint that allows (200, X-User: ann) with a
// body that never ends: a line every 100 ms until the test ends.
func streamingAuth(t *testing.T) *httptest.Server {
	stop := make(chan struct{})
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-User", "ann")
		for {
			w.Write([]byte("hello\n"))
			w.(http.Flusher).Flush()
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	t.Cleanup(func() { close(stop); auth.Close() })
	return auth
}
