package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// proxyReqOrigin answers /c with a set of cookies, /missing with a 404,
// and anything else with what it received: method, body, length, and the
// X-Custom and X-Kept fields.
func proxyReqOrigin(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/c"):
			for _, c := range proxyReqCookies {
				w.Header().Add("Set-Cookie", c)
			}
		case strings.HasSuffix(r.URL.Path, "/missing"):
			w.WriteHeader(404)
			io.WriteString(w, "origin's 404")
		default:
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %q cl=%q custom=%q kept=%q", r.Method, b, r.Header.Get("Content-Length"),
				r.Header.Get("X-Custom"), r.Header.Get("X-Kept"))
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

var proxyReqCookies = []string{
	"a=1; Domain=.Example.COM; Path=/app/x; Secure",
	"b=2; domain=example.com; path=/other",
	"c=3;path=/app;HttpOnly;SameSite=Lax",
	"d=4; SameSite=strict",
	"novalue; path=/app/",
	"e=5; Domain=sub.example.com; Path=/APP/",
}

func proxyReqHTTP(origin, dir string) string {
	return fmt.Sprintf(`
		server {
			listen 127.0.0.1:{port};
			proxy_cookie_path /app/ /srv/;
			location /inherit/ { proxy_pass http://%[1]s; }
			location /domain/  { proxy_pass http://%[1]s; proxy_cookie_domain example.com mosaic.test; proxy_cookie_domain ~^sub\.(.+)$ $1.io; }
			location /path/    { proxy_pass http://%[1]s; proxy_cookie_path /app/ /; proxy_cookie_path ~*^/other$ /o; proxy_cookie_path /APP /x$arg_v; }
			location /flags/   { proxy_pass http://%[1]s; proxy_cookie_flags a nosecure httponly samesite=none; proxy_cookie_flags ~^[cd]$ secure samesite=strict nohttponly; proxy_cookie_flags ~. samesite=lax; }
			location /off/     { proxy_pass http://%[1]s; proxy_cookie_path off; }
			location /method/  { proxy_pass http://%[1]s; proxy_method $arg_m; }
			location /setbody/ { proxy_pass http://%[1]s; proxy_method POST; proxy_set_body "user=$arg_u"; }
			location /emptybody/ { proxy_pass http://%[1]s; proxy_set_body $arg_u; }
			location /emptynolen/ { proxy_pass http://%[1]s; proxy_set_body $arg_u; proxy_set_header Content-Length ""; }
			# NGINX passes the client's Content-Length without the body
			# unless told not to; mosaic never does (see proxy/README.md).
			location /nobody/  { proxy_pass http://%[1]s; proxy_pass_request_body off; proxy_set_header Content-Length ""; }
			location /nohdr/   { proxy_pass http://%[1]s; proxy_pass_request_headers off; proxy_set_header X-Kept $http_x_custom; }
			location /buffered/ { proxy_pass http://%[1]s; proxy_http_version 1.1; proxy_request_buffering on; }
			# proxy_request_buffering is on by default: the body is read
			# first, so $request_body has it when the request goes out.
			location /reqbody/ { proxy_pass http://%[1]s; proxy_set_header X-Kept $request_body; }
			location /intercept/ { proxy_pass http://%[1]s; proxy_intercept_errors on; error_page 404 = /page; }
			location /nointercept/ { proxy_pass http://%[1]s; error_page 404 = /page; }
			location = /page { return 200 "our page"; }
			location /store/   { proxy_pass http://%[1]s; root %[2]s/mirror; proxy_store on; proxy_store_access user:rw group:rw all:r; }
			location /storeto/ { proxy_pass http://%[1]s; proxy_store %[2]s/mirror2$uri.saved; }
		}`, origin, dir)
}

var proxyReqCases = []struct {
	method, path, body string
	chunked            bool
	want               string
}{
	{"GET", "/inherit/c", "", false, "a=1; Domain=.Example.COM; Path=/srv/x; Secure|b=2; domain=example.com; path=/other|c=3;path=/app;HttpOnly;SameSite=Lax|d=4; SameSite=strict|novalue; path=/app/|e=5; Domain=sub.example.com; Path=/APP/"},
	// The server level's proxy_cookie_path applies with the location's
	// domain and flags rules.
	{"GET", "/domain/c", "", false, "a=1; Domain=.mosaic.test; Path=/srv/x; Secure|b=2; domain=mosaic.test; path=/other|c=3;path=/app;HttpOnly;SameSite=Lax|d=4; SameSite=strict|novalue; path=/app/|e=5; Domain=example.com.io; Path=/APP/"},
	{"GET", "/path/c?v=7", "", false, "a=1; Domain=.Example.COM; Path=/x; Secure|b=2; domain=example.com; path=/o|c=3;path=/app;HttpOnly;SameSite=Lax|d=4; SameSite=strict|novalue; path=/app/|e=5; Domain=sub.example.com; Path=/x7/"},
	{"GET", "/flags/c", "", false, "a=1; Domain=.Example.COM; Path=/srv/x; HttpOnly; SameSite=None|b=2; domain=example.com; path=/other; SameSite=Lax|c=3; path=/app; SameSite=Strict; Secure|d=4; SameSite=strict; Secure|novalue; path=/app/|e=5; Domain=sub.example.com; Path=/APP/; SameSite=Lax"},
	{"GET", "/off/c", "", false, strings.Join(proxyReqCookies, "|")},
	{"GET", "/method/x?m=PUT", "", false, `PUT "" cl="" custom="c" kept=""`},
	{"GET", "/setbody/x?u=ann", "", false, `POST "user=ann" cl="8" custom="c" kept=""`},
	{"POST", "/setbody/x?u=bo", "dropped", false, `POST "user=bo" cl="7" custom="c" kept=""`},
	// An empty proxy_set_body still frames the request: "Content-Length: 0".
	{"GET", "/emptybody/x", "", false, `GET "" cl="0" custom="c" kept=""`},
	{"POST", "/emptybody/x", "dropped", false, `POST "" cl="0" custom="c" kept=""`},
	// Unless proxy_set_header takes the length away.
	{"POST", "/emptynolen/x", "dropped", false, `POST "" cl="" custom="c" kept=""`},
	{"POST", "/nobody/x", "secret", false, `POST "" cl="" custom="c" kept=""`},
	{"GET", "/nohdr/x", "", false, `GET "" cl="" custom="" kept="c"`},
	{"POST", "/buffered/x", "whole", true, `POST "whole" cl="5" custom="c" kept=""`},
	{"POST", "/reqbody/x", "form=1", false, `POST "form=1" cl="6" custom="c" kept="form=1"`},
	{"GET", "/intercept/missing", "", false, "our page"},
	{"GET", "/nointercept/missing", "", false, "origin's 404"},
	{"GET", "/store/a/b.txt", "", false, `GET "" cl="" custom="c" kept=""`},
	{"GET", "/store/missing", "", false, "origin's 404"},
	{"HEAD", "/store/head", "", false, ""},
	{"GET", "/storeto/x", "", false, `GET "" cl="" custom="c" kept=""`},
}

// checkStored looks at what proxy_store left in dir.
func checkStored(t *testing.T, who, dir string) {
	t.Helper()
	for path, want := range map[string]string{
		"mirror/store/a/b.txt":    `GET "" cl="" custom="c" kept=""`,
		"mirror2/storeto/x.saved": `GET "" cl="" custom="c" kept=""`,
		"mirror/store/missing":    "",
		"mirror/store/head":       "",
	} {
		b, err := os.ReadFile(filepath.Join(dir, path))
		// NGINX may move the file in place just after the response.
		for i := 0; i < 100 && want != "" && err != nil; i++ {
			time.Sleep(10 * time.Millisecond)
			b, err = os.ReadFile(filepath.Join(dir, path))
		}
		if string(b) != want || (want == "") != os.IsNotExist(err) {
			t.Errorf("%s: %s: %q %v, want %q", who, path, b, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "mirror/store/a/b.txt")); err != nil || fi.Mode().Perm() != 0o664 {
		t.Errorf("%s: stored file's mode %v %v, want 0664", who, fi.Mode(), err)
	}
}

func checkProxyReq(t *testing.T, who string, port int) {
	t.Helper()
	for _, c := range proxyReqCases {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
			if c.chunked {
				body = io.MultiReader(body) // no length: sent chunked
			}
		}
		req, _ := http.NewRequest(c.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), body)
		req.Header.Set("X-Custom", "c")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got := string(b)
		if strings.HasSuffix(c.path, "/c") || strings.Contains(c.path, "/c?") {
			got = strings.Join(resp.Header.Values("Set-Cookie"), "|")
		}
		if got != c.want {
			t.Errorf("%s: %s %s:\n got %q\nwant %q", who, c.method, c.path, got, c.want)
		}
	}
}

func TestProxyRequestDirectivesMatchNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	port := freePort(t)
	ndir := filepath.Join(dir, "nginx")
	if err := os.MkdirAll(ndir, 0o755); err != nil {
		t.Fatal(err)
	}
	startNGINX(t, ndir, strings.ReplaceAll(proxyReqHTTP(proxyReqOrigin(t), dir), "{port}", fmt.Sprint(port)), port)
	checkProxyReq(t, "nginx", port)
	checkStored(t, "nginx", dir)
}

func TestProxyRequestDirectivesThroughBinary(t *testing.T) {
	port := freePort(t)
	dir := t.TempDir()
	startMosaic(t, dir, "http {"+proxyReqHTTP(proxyReqOrigin(t), dir)+"}", port)
	checkProxyReq(t, "mosaic", port)
	checkStored(t, "mosaic", dir)
}

// TestProxyURIPartEscapesAsNGINX: with a URI in proxy_pass NGINX escapes
// the rest of the path again only when the client's held a
// percent-escape (quoted_uri) or the URI is not the client's (a rewrite,
// an internal redirect: internal). A client's raw `"`, `|`, `{` or byte
// above ASCII goes upstream as it came; the same made by a rewrite, or
// sent escaped, goes escaped. "set $args" alone is neither: it clears
// valid_unparsed_uri, so the decoded, normalised path goes (with and
// without a URI part), raw unless the client's held a percent-escape.
func TestProxyURIPartEscapesAsNGINX(t *testing.T) {
	nginxPath(t)
	o := lineOrigin(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /p/ { proxy_pass http://%s/up/; }
			location /rw/ { rewrite ^/rw/(.*)$ /p/$1 last; }
			location /sa/ { set $args "a=1"; proxy_pass http://%[2]s; }
			location /su/ { set $args ""; proxy_pass http://%[2]s/up/; }
			location /sr/ { set $args "a=1"; rewrite ^/sr/(.*)$ /sa/$1 last; }
		}`, port, o.Addr())
	})
	for _, path := range []string{`/p/a"b|c{d}`, `/p/a<b>^c\d` + "`", "/p/caf\xc3\xa9", `/p/a%41"b`, `/p/a%22b`, `/rw/a"b|c`,
		`/sa/a"b|c{d}?z=1`, "/sa/caf\xc3\xa9", `/sa/a%41"b`, `/sa/a%22b`,
		`/su/a"b?z=1`, "/su/caf\xc3\xa9", `/su/a%22b`, `/sr/a"b`} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}

// lineOrigin answers each request with its request line.
func lineOrigin(t *testing.T) *testorigin.Raw {
	return testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		for l := line; err == nil && l != "\r\n"; {
			l, err = br.ReadString('\n')
		}
		line = strings.TrimSuffix(line, "\r\n")
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(line), line)
	})
}

// TestSetArgsRequestLineHasNoControls: "set $args" can put what no client
// may send raw into the request line (a header's spaces and tabs, the
// decoded $uri's CR LF): NGINX sends them as they are, which would end
// the line early and let the client write header lines of its own.
// mosaic escapes them, whatever else goes raw.
func TestSetArgsRequestLineHasNoControls(t *testing.T) {
	o := lineOrigin(t)
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http { server { listen 127.0.0.1:%d;
		location /h/ { set $args "q=$http_x_q"; proxy_pass http://%[2]s; }
		location /u/ { set $args "q=$uri"; proxy_pass http://%[2]s/up/; }
	} }`, port, o.Addr()), port)
	for _, req := range []string{
		"GET /h/a\"b HTTP/1.1\r\nHost: a\r\nX-Q: p q\tr\r\nConnection: close\r\n\r\n",
		"GET /u/x%0D%0AInjected:%20y HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"GET /u/caf\xc3\xa9%0A HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
		"GET /u/x%00y HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	} {
		resp, line := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
		if resp.StatusCode == http.StatusBadRequest && strings.Contains(req, "%00") {
			continue // refused before it reaches the proxy, as by NGINX
		}
		target := strings.TrimSuffix(strings.TrimPrefix(line, "GET "), " HTTP/1.0")
		if resp.StatusCode != http.StatusOK || strings.ContainsAny(target, " \t\r\n\x00\x7f") || target == line {
			t.Errorf("%q: %d, the upstream got the line %q", req, resp.StatusCode, line)
		}
	}
}
