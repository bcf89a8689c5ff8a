package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// redirectOrigin answers every request with a 302 whose Location (and, on
// ?refresh=, whose Refresh url=) is the query's "to", with "{self}"
// standing for the origin's own address.
func redirectOrigin(t *testing.T) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	self := ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := strings.ReplaceAll(r.URL.Query().Get("to"), "{self}", self)
		if r.URL.Query().Has("refresh") {
			w.Header().Set("Refresh", "3; URL="+to)
		} else {
			w.Header().Set("Location", to)
		}
		w.WriteHeader(http.StatusFound)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return self
}

func redirectHTTP(origin string) string {
	return fmt.Sprintf(`
		server {
			listen 127.0.0.1:{port};
			location /implicit/ { proxy_pass http://%[1]s/up/; }
			location /noURI/    { proxy_pass http://%[1]s; }
			location /outer/    {
				proxy_redirect http://%[1]s/srv/ /from-outer/;
				location /outer/inherit/ { proxy_pass http://%[1]s/up/; }
			}
			location /prefix/   { proxy_pass http://%[1]s/up/; proxy_redirect http://%[1]s/up/ /new/; }
			location /case/     { proxy_pass http://%[1]s/up/; proxy_redirect HTTP://%[1]s/up/ /new/; }
			location /order/    {
				proxy_pass http://%[1]s/up/;
				proxy_redirect http://a.test/ /a/;
				proxy_redirect default;
				proxy_redirect ~^http://(\w+)\.test/(.*)$ https://$1.example/$2;
				proxy_redirect ~*^HTTP://B\.test/ /never/;
			}
			location /ci/       { proxy_pass http://%[1]s/up/; proxy_redirect ~*^HTTP://([^/]+)/UP/(.*)$ /ci/$2?host=$1; }
			location /vars/     { proxy_pass http://%[1]s/up/; proxy_redirect http://$arg_h/ /vars-$arg_v/; }
			location /off/      { proxy_pass http://%[1]s/up/; proxy_redirect off; }
			location /relative/ { proxy_pass http://%[1]s/up/; proxy_redirect /up/ /rel/; }
		}`, origin)
}

// redirectCases: a path with its query ("to" is the upstream's target),
// and the Location (or Refresh) the client must get; {proxy} is the
// server's own address, {self} the origin's.
var redirectCases = []struct{ path, want string }{
	{"/implicit/x?to=http://{self}/up/a?b=1", "http://{proxy}/implicit/a?b=1"},
	{"/implicit/x?to=/up/a", "/up/a"},
	{"/noURI/x?to=http://{self}/q", "http://{proxy}/q"},
	// A level with its own lines has no default line.
	{"/outer/inherit/x?to=http://{self}/srv/a", "http://{proxy}/from-outer/a"},
	{"/outer/inherit/x?to=http://{self}/up/a", "http://{self}/up/a"},
	{"/prefix/x?to=http://{self}/up/deep/er", "http://{proxy}/new/deep/er"},
	{"/case/x?to=http://{self}/up/a", "http://{self}/up/a"},
	{"/order/x?to=http://a.test/b", "http://{proxy}/a/b"},
	{"/order/x?to=http://{self}/up/c", "http://{proxy}/order/c"},
	{"/order/x?to=http://zz.test/d/e", "https://zz.example/d/e"},
	{"/order/x?to=http://B.TEST/f", "http://{proxy}/never/"},
	{"/ci/x?to=http://{self}/up/g", "http://{proxy}/ci/g?host={self}"},
	{"/vars/x?h=other.example&v=7&to=http://other.example/h", "http://{proxy}/vars-7/h"},
	{"/vars/x?h=else.example&v=7&to=http://other.example/h", "http://other.example/h"},
	{"/off/x?to=http://{self}/up/a", "http://{self}/up/a"},
	{"/relative/x?to=/up/z", "http://{proxy}/rel/z"},
	{"/prefix/x?refresh=1&to=http://{self}/up/r", "3; URL=/new/r"},
	{"/order/x?refresh=1&to=http://zz.test/s", "3; URL=https://zz.example/s"},
}

func checkRedirects(t *testing.T, who string, port int, origin string) {
	t.Helper()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	proxyAddr := fmt.Sprintf("127.0.0.1:%d", port)
	for _, c := range redirectCases {
		resp, err := noFollow.Get("http://" + proxyAddr + strings.ReplaceAll(c.path, "{self}", origin))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Location")
		if strings.Contains(c.path, "refresh=") {
			got = resp.Header.Get("Refresh")
		}
		want := strings.NewReplacer("{self}", origin, "{proxy}", proxyAddr).Replace(c.want)
		if got != want {
			t.Errorf("%s: %s: got %q, want %q", who, c.path, got, want)
		}
	}
}

func TestProxyRedirectMatchesNGINX(t *testing.T) {
	nginxPath(t)
	origin := redirectOrigin(t)
	port := freePort(t)
	startNGINX(t, t.TempDir(), strings.ReplaceAll(redirectHTTP(origin), "{port}", fmt.Sprint(port)), port)
	checkRedirects(t, "nginx", port, origin)
}

func TestProxyRedirectThroughBinary(t *testing.T) {
	origin := redirectOrigin(t)
	port := freePort(t)
	startMosaic(t, t.TempDir(), "http {"+redirectHTTP(origin)+"}", port)
	checkRedirects(t, "mosaic", port, origin)
}

// TestProxyRedirectConfigErrors checks the lines NGINX refuses, with its
// messages.
func TestProxyRedirectConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct{ loc, want string }{
		{"proxy_redirect default; proxy_pass http://127.0.0.1:1/;", `"proxy_redirect default" should be placed after the "proxy_pass" directive`},
		{"proxy_pass http://$arg_h; proxy_redirect default;", `"proxy_redirect default" cannot be used with "proxy_pass" directive with variables`},
		{"proxy_pass http://127.0.0.1:1/; proxy_redirect off; proxy_redirect default;", `"proxy_redirect" directive is duplicate`},
		{"proxy_pass http://127.0.0.1:1/; proxy_redirect /a /b; proxy_redirect off;", `"proxy_redirect" directive is duplicate`},
		{"proxy_pass http://127.0.0.1:1/; proxy_redirect /a;", `invalid parameter "/a"`},
		{"proxy_pass http://127.0.0.1:1/; proxy_redirect ~(a /b;", `pcre`},
	} {
		path := filepath.Join(dir, "bad.conf")
		conf := "http { server { listen 127.0.0.1:1; location / { " + c.loc + " } } }"
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(strings.ToLower(string(out)), strings.ToLower(c.want)) {
			t.Errorf("%s: %v\n%s\nwant %q", c.loc, err, out, c.want)
		}
	}
}

// TestProxyRedirectSeveralLocationsAsNGINX: of several Location fields,
// NGINX makes the last one a proxy_redirect line rewrote the response's
// own: a path, it is made absolute (absolute_redirect on) and sent before
// the others, which keep their order and stay paths. mosaic made only a
// lone Location absolute (found by internal/nginxdiff/upstream).
func TestProxyRedirectSeveralLocationsAsNGINX(t *testing.T) {
	nginxPath(t)
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		// The origin's own address, which proxy_redirect default maps.
		self := "http://" + c.LocalAddr().String() + "/up/"
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			fields := map[string]string{
				// Both rewritten: the second goes first, absolute.
				"both": "Location: " + self + "a\r\nLocation: " + self + "b\r\n",
				// Only the first is rewritten: it goes first, absolute.
				"first": "Location: " + self + "a\r\nLocation: http://else.test/b\r\n",
				"three": "Location: " + self + "a\r\nLocation: " + self + "b\r\nLocation: /c\r\n",
				"none":  "Location: /a\r\nLocation: http://else.test/b\r\n",
			}[path.Base(req.URL.Path)]
			fmt.Fprintf(c, "HTTP/1.1 302 Found\r\n%sContent-Length: 0\r\n\r\n", fields)
		}
	})
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
  location /g/ { proxy_pass http://%s/up/; }
  location /off/ { proxy_pass http://%[2]s/up/; absolute_redirect off; }
}`, port, o.Addr())
	})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, p := range []string{"/g/both", "/g/first", "/g/three", "/g/none", "/off/both"} {
		var got [2]string
		for i, port := range []int{nport, mport} {
			resp, err := noFollow.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, p))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			got[i] = strings.ReplaceAll(fmt.Sprintf("%q", resp.Header["Location"]), fmt.Sprint(port), "PORT")
		}
		t.Logf("%s: nginx %s", p, got[0])
		if got[1] != got[0] {
			t.Errorf("%s: mosaic %s, nginx %s", p, got[1], got[0])
		}
	}
}
