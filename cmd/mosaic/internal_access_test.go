package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// Which requests reach internal and method-limited locations after a
// rewrite or an error page, against Debian's NGINX on the same
// configuration.

// methodOrigin answers with the method and the body it received.
func methodOrigin(t *testing.T) string {
	t.Helper()
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %q", r.Method, b)
	}))
	t.Cleanup(o.Close)
	return o.Listener.Addr().String()
}

// sameAnswer sends a request (its head without the empty line, and its
// body) to both servers and reports where their statuses or bodies
// differ.
func sameAnswer(t *testing.T, mport, nport int, head, body string) {
	t.Helper()
	req := head + "\r\nConnection: close\r\n\r\n" + body
	m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	if m.StatusCode != n.StatusCode || m.StatusCode == http.StatusOK && mb != nb {
		t.Errorf("%q: mosaic %d %q, nginx %d %q", req, m.StatusCode, mb, n.StatusCode, nb)
	}
}

// TestErrorPageNamedKeepsMethodAsNGINX: "error_page 404 = @name" passes
// the request as it came, method and body (only a URI target turns it
// into a GET): the named location's limit_except sees the POST, and a
// fallback upstream gets it.
func TestErrorPageNamedKeepsMethodAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := methodOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d; root /nonexistent;
			location /guarded/ { error_page 404 = @limited; }
			location @limited { limit_except GET { deny all; } proxy_pass http://%[2]s; }
			location /app/ { error_page 404 = @backend; }
			location @backend { proxy_pass http://%[2]s; }
			location /page/ { error_page 404 = /fallback; }
			location = /fallback { proxy_pass http://%[2]s; }
		}`, port, origin)
	})
	post := "POST %s HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3"
	for _, c := range []struct{ head, body string }{
		{fmt.Sprintf(post, "/guarded/x"), "abc"},
		{"DELETE /guarded/x HTTP/1.1\r\nHost: a.test", ""},
		{"GET /guarded/x HTTP/1.1\r\nHost: a.test", ""},
		{fmt.Sprintf(post, "/app/x"), "abc"},
		{fmt.Sprintf(post, "/page/x"), "abc"},
	} {
		sameAnswer(t, mport, nport, c.head, c.body)
	}
}

// TestRewriteIntoInternalAsNGINX: a URI that a rewrite made may reach an
// internal location (NGINX marks such a request internal), at server and
// at location level; the location's own URI asked by a client may not.
func TestRewriteIntoInternalAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		writeFile(t, filepath.Join(dir, who, "www/protected/f.txt"), "protected file")
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		root := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "www")
		return fmt.Sprintf(`types { text/plain txt; }
		server {
			listen 127.0.0.1:%d; root %s;
			rewrite ^/srv/(.*)$ /protected/$1;
			location /download/ { rewrite ^/download/(.*)$ /protected/$1 last; }
			location /protected/ { internal; }
		}`, port, root)
	})
	for _, path := range []string{"/download/f.txt", "/srv/f.txt", "/protected/f.txt"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// TestInternalRedirectKeepsSlashesAsNGINX (ldiff28): the URI of an
// internal redirect (try_files' fallback, error_page, an absolute index
// name, the index file of a rewritten "//") keeps its "//" whatever
// merge_slashes says, as NGINX takes it as written, so "//fb.txt" is
// chosen by "location /", not by "location = /fb.txt"; mosaic merged
// them. A rewrite to "//" reaches the index, which redirects to
// "//index.html" (with merge_slashes off, a client's "//" does too).
func TestInternalRedirectKeepsSlashesAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/index.html"), "root index")
	mport, nport := startBoth(t, dir, func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location / { return 200 "prefix $uri"; }
			location = /fb.txt { return 200 "exact $uri"; }
			location = /index.html { return 200 "exact $uri"; }
			location /tf/ { try_files /none //fb.txt; }
			location /ep/ { error_page 404 =200 //fb.txt; }
			location /ix/ { index //fb.txt; }
			location /rw/ { rewrite ^/rw/(.*)$ //$1 break; root %[2]s/www; index index.html; }
		}`, port, dir)
	})
	for _, path := range []string{"/tf/x", "/ep/x", "/ix/", "/rw/"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// failingOrigin reads each request with its body and closes the
// connection without an answer: a 502 for the proxy in front of it.
func failingOrigin(t *testing.T) string {
	t.Helper()
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if req, err := http.ReadRequest(br); err == nil {
			io.Copy(io.Discard, req.Body)
		}
	}).Addr()
}

// TestErrorPageBodyAsNGINX: the body an error page's location gets. A
// fallback after a failed upstream gets the POST's body again (the proxy
// read it into memory); a body refused as too large (413) is not passed
// on, as NGINX discards it. A body that was streamed to the failed
// upstream cannot be given again: the fallback gets the POST without it
// (NGINX, holding the body, sends it), not a short body and a 400.
func TestErrorPageBodyAsNGINX(t *testing.T) {
	nginxPath(t)
	origin, failing := methodOrigin(t), failingOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			location /up/ { proxy_pass http://%s; error_page 502 = @fallback; }
			location /small/ { client_max_body_size 5; error_page 413 = @fallback; }
			location /stream/ { proxy_pass http://%[2]s; proxy_request_buffering off; error_page 502 = @fallback; }
			location @fallback { proxy_pass http://%s; }
		}`, port, failing, origin)
	})
	streamed := "POST /stream/x HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"
	if resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), streamed); resp.StatusCode != http.StatusOK || body != `POST ""` {
		t.Errorf("a streamed body's fallback: %d %q, want 200 %q", resp.StatusCode, body, `POST ""`)
	}
	post := "POST %s HTTP/1.1\r\nHost: a.test\r\nContent-Length: %d"
	for _, c := range []struct{ head, body string }{
		{fmt.Sprintf(post, "/up/x", 3), "abc"},
		{fmt.Sprintf(post, "/small/x", 1000), strings.Repeat("b", 1000)},
	} {
		sameAnswer(t, mport, nport, c.head, c.body)
	}
}

// An error page whose target streams its answer (a named location that
// proxies, a body of unknown length) is sent whole: the length of the
// page it replaces (return 404's own) does not go with it, as in NGINX.
func TestErrorPageStreamedTargetWholeAsNGINX(t *testing.T) {
	nginxPath(t)
	body := strings.Repeat("streamed answer ", 20000)
	origin := streamingOrigin(t, body, 4000)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /named { error_page 404 = @b; return 404; }
			location /uri { error_page 404 /b; return 404; }
			location /b { proxy_pass %[2]s; }
			location @b { proxy_pass %[2]s; } }`, port, origin.URL)
	})
	for _, path := range []string{"/named", "/uri"} {
		sig := func(port int) string {
			r, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			return fmt.Sprintf("%d %q whole=%v", r.StatusCode, r.Header.Get("Content-Type"), b == body)
		}
		if m, n := sig(mport), sig(nport); m != n {
			t.Errorf("%s: mosaic %s, nginx %s", path, m, n)
		}
	}
}
