package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A module used only by the tests: "subtest_fetch URI" makes a location
// whose content issues a subrequest and reports what came back;
// "subtest_zeros N" one that answers N zero bytes, 32 KiB a write.
type subtestConf struct {
	uri   string
	zeros int
}

var subtestModule = &Module{
	Name:   "subtest",
	NewLoc: func() any { return &subtestConf{} },
	Directives: []Directive{{Name: "subtest_fetch", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		c.Loc().(*subtestConf).uri = c.Args[0]
		return nil
	}}, {Name: "subtest_zeros", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
		n, err := strconv.Atoi(c.Args[0])
		c.Loc().(*subtestConf).zeros = n
		return err
	}}},
}

func init() {
	subtestModule.Content = func(l *Location) (http.Handler, error) {
		sc := LocConf[*subtestConf](l, subtestModule)
		if sc.zeros > 0 {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				buf := make([]byte, 32<<10)
				for n := sc.zeros; n > 0; n -= len(buf) {
					if _, err := w.Write(buf[:min(n, len(buf))]); err != nil {
						return
					}
				}
			}), nil
		}
		if sc.uri == "" {
			return nil, nil
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			resp, err := Subrequest(r, sc.uri, nil)
			if err != nil {
				w.WriteHeader(599)
				fmt.Fprintf(w, "error: %v", err)
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			fmt.Fprintf(w, "%d:%s", resp.StatusCode, b)
			if err != nil {
				fmt.Fprintf(w, " (read error: %v)", err)
			}
		}), nil
	}
	contentOrder = append(contentOrder, subtestModule.Name) // after every real content
	Register(subtestModule)
}

// startRuntime applies src and returns the base URL of its only listener.
func startRuntime(t *testing.T, src string) (*Runtime, string) {
	t.Helper()
	cfg := mustLoadNoCleanup(t, src)
	rt := NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	addrs := rt.Addrs()
	if len(addrs) != 1 {
		t.Fatalf("%d listeners", len(addrs))
	}
	return rt, "http://" + addrs[0].String()
}

func mustLoadNoCleanup(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := LoadString("test.conf", src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg
}

func get(t *testing.T, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

const corePagesConf = `http { server { listen 127.0.0.1:0;
	error_page 404 /404.html;
	error_page 500 =200 /fine;
	error_page 403 https://example.com/forbidden;
	error_page 418 = @teapot;
	location = /404.html { internal; return 200 "custom 404 for $request_uri"; }
	location = /fine { return 200 fine; }
	location /boom { return 500; }
	location /missing { return 404; }
	location /forbid { return 403; }
	location /tea { return 418; }
	location @teapot { return 202 "teapot handled"; }
	location /int { internal; return 200 secret; }
	location /big { client_max_body_size 10; return 200 ok; }
	location /tf { try_files /nope /also-nope @named; }
	location @named { return 200 "named $uri"; }
	location /tf404 { try_files /nope =404; }
	location /tfuri { try_files /nope /fine?from=tf; }
	location /loop { try_files /nope /loop; }
	location /noerr { error_page 404 /404.html; error_page 404 /x; return 404; } # the first page of a code holds, as in NGINX
	location /plain { error_page 500 /fine; return 404; }
	location /redir { return 301 /elsewhere; }
	location /redir2 { return https://other.example/x; }
	location /text { default_type text/x-test; return 200 "host=$host uri=$uri args=$args"; }
	location /sub/ { subtest_fetch /int; }
	location /subloop { subtest_fetch /subloop; }
	location /subrel/ { subtest_fetch fine; }
	location = /subrel/fine { return 200 "relative ok"; }
	location /close { return 444; }
} }`

func TestCoreResponses(t *testing.T) {
	_, base := startRuntime(t, corePagesConf)
	cases := []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/missing", 404, "custom 404 for /missing"},
		{"/boom", 200, "fine"},
		{"/tea", 202, "teapot handled"},
		{"/int", 404, "custom 404 for /int"},
		{"/tf", 200, "named /tf"},
		{"/tf404", 404, "custom 404 for /tf404"},
		{"/tfuri", 200, "fine"},
		{"/loop", 500, "500 Internal Server Error"},
		{"/noerr", 404, "custom 404 for /noerr"},
		{"/plain", 404, "404 Not Found"},
		{"/text?a=1", 200, "host=127.0.0.1 uri=/text args=a=1"},
		{"/sub/x", 200, "200:secret"},
		{"/subrel/x", 200, "200:relative ok"},
	}
	for _, c := range cases {
		resp, body := get(t, base+c.path)
		if resp.StatusCode != c.wantStatus || !strings.Contains(body, c.wantBody) {
			t.Errorf("%s: %d %q, want %d %q", c.path, resp.StatusCode, body, c.wantStatus, c.wantBody)
		}
	}
	resp, _ := get(t, base+"/forbid")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://example.com/forbidden" {
		t.Errorf("forbid: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// The port is the socket's, not 80, as NGINX's port_in_redirect adds it.
	resp, _ = get(t, base+"/redir", "Host", "site.test")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "http://site.test"+base[strings.LastIndexByte(base, ':'):]+"/elsewhere" {
		t.Errorf("redir: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = get(t, base+"/redir2")
	if resp.StatusCode != 302 || resp.Header.Get("Location") != "https://other.example/x" {
		t.Errorf("redir2: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	resp, _ = get(t, base+"/text")
	if ct := resp.Header.Get("Content-Type"); ct != "text/x-test" {
		t.Errorf("return text type %q", ct)
	}
	resp, body := get(t, base+"/subloop")
	if resp.StatusCode != 200 || !strings.Contains(body, "subrequests cycle") {
		t.Errorf("subloop: %d %q", resp.StatusCode, body)
	}
	if _, err := http.Get(base + "/close"); err == nil {
		t.Errorf("444 did not close the connection")
	}
	// Body size limit: declared and streamed.
	r, err := http.Post(base+"/big", "text/plain", strings.NewReader(strings.Repeat("x", 11)))
	if err != nil || r.StatusCode != 413 {
		t.Fatalf("413 by length: %v %v", r, err)
	}
	r.Body.Close()
	r, err = http.Post(base+"/big", "text/plain", strings.NewReader("small"))
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("small body: %v %v", r, err)
	}
	r.Body.Close()
}

func TestServerLevelReturn(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		return 301 https://$host$request_uri;
		location / { return 200 never; } } }`)
	resp, _ := get(t, base+"/a?b=c", "Host", "x.test")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "https://x.test/a?b=c" {
		t.Fatalf("%d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestTraversalRejected(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0; location / { return 200 "uri=$uri"; } } }`)
	for path, want := range map[string]string{
		"/a/./b//c":       "uri=/a/b/c",
		"/a/%2e%2e/b":     "uri=/b",
		"/a/b/..":         "uri=/a/",
		"/a/b/%2E%2E/%2E": "uri=/a/",
	} {
		_, body := get(t, base+path)
		if body != want {
			t.Errorf("%s -> %q, want %q", path, body, want)
		}
	}
	resp, _ := get(t, base+"/%2e%2e/etc/passwd")
	if resp.StatusCode != 400 {
		t.Errorf("climbing above the root: %d, want 400", resp.StatusCode)
	}
}

func TestReloadKeepsSocketsAndSwaps(t *testing.T) {
	rt, base := startRuntime(t, `http { server { listen 127.0.0.1:0; return 200 one; } }`)
	addr := rt.Addrs()[0].String()
	_, body := get(t, base+"/")
	if body != "one" {
		t.Fatalf("before reload: %q", body)
	}
	// The same address: the socket is kept, the answer changes.
	next := mustLoadNoCleanup(t, `http { server { listen 127.0.0.1:0; return 200 two; } }`)
	if err := rt.Apply(next); err != nil {
		t.Fatal(err)
	}
	if got := rt.Addrs()[0].String(); got != addr {
		t.Fatalf("socket changed: %s -> %s", addr, got)
	}
	_, body = get(t, base+"/")
	if body != "two" {
		t.Fatalf("after reload: %q", body)
	}
	// A configuration that cannot bind leaves the old one serving.
	blocker := mustLoadNoCleanup(t, fmt.Sprintf(`http { server { listen %s; return 200 three; } server { listen 127.0.0.1:1; return 200 x; } }`, "127.0.0.1:0"))
	if err := rt.Apply(blocker); err == nil {
		t.Log("binding port 1 succeeded (running with privileges); skipping the failure half")
	} else {
		_, body = get(t, base+"/")
		if body != "two" {
			t.Fatalf("after failed reload: %q", body)
		}
	}
}

func TestSubrequestOutsideServer(t *testing.T) {
	r, _ := http.NewRequest("GET", "http://x/", nil)
	if _, err := Subrequest(r, "/y", nil); !errors.Is(err, ErrNotInServer) {
		t.Fatalf("err = %v", err)
	}
}

// NGINX checks prefix and exact locations for duplicates, not named ones:
// a second "location @a" loads, and a jump to @a reaches the first (its
// ngx_http_named_location takes the first of that name).
func TestDuplicateNamedLocationFirstWinsAsNGINX(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
	location / { try_files /nonexistent @a; }
	location @a { return 200 first; }
	location @a { return 200 second; }
} }`)
	if _, body := get(t, base+"/x"); body != "first" {
		t.Errorf("body %q, want the first @a's", body)
	}
}
