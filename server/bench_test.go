package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fiftyLocations is a server block with 50 locations of every kind, as a
// large site's configuration might have.
func fiftyLocations() string {
	var b strings.Builder
	b.WriteString("http { server { listen 127.0.0.1:0;\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, "location /section%d/ { return 200 p%d; }\n", i, i)
	}
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "location = /exact%d { return 200 e%d; }\n", i, i)
	}
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&b, "location ^~ /static%d/ { return 200 s%d; }\n", i, i)
	}
	b.WriteString("location ~* \\.(png|jpg|gif)$ { return 200 img; }\n")
	b.WriteString("location ~ ^/api/v(\\d+)/ { return 200 api; }\n")
	b.WriteString("location ~ \\.php$ { return 200 php; }\n")
	b.WriteString("location /section1/deep/ { return 200 deep; }\n")
	b.WriteString("location / { return 200 root; }\n")
	b.WriteString("} }\n")
	return b.String()
}

func BenchmarkLocationMatch50(b *testing.B) {
	cfg, err := LoadString("bench.conf", fiftyLocations())
	if err != nil {
		b.Fatal(err)
	}
	defer cfg.close()
	srv := cfg.servers[0]
	if n := len(srv.locs.all); n < 50 {
		b.Fatalf("%d locations", n)
	}
	uris := []string{"/section17/page.html", "/exact7", "/static3/app.js", "/api/v2/users", "/photo/a.png", "/index.php", "/section1/deep/x", "/other/path"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if l, _, _ := srv.find(uris[i%len(uris)], nil); l == nil {
			b.Fatal("no location")
		}
		i++
	}
}

// BenchmarkLocationMatchRootPass is the search of the usual PHP site,
// "location / { fastcgi_pass ...; }", whose pass marks "/" for
// auto_redirect (TestAutoRedirectRootNoLookup).
func BenchmarkLocationMatchRootPass(b *testing.B) {
	tree := newLocationTree()
	root := &Location{kind: levelPrefix, pattern: "/", autoRedirect: true}
	tree.add(root)
	tree.finish()
	for b.Loop() {
		if l, _, _ := tree.match("/index.php", nil); l != root {
			b.Fatal("not the root location")
		}
	}
}

// BenchmarkLocationMatchSubdirPass is the search of a site with a
// gateway below the root ("location /api/ { proxy_pass ...; }" beside
// "location /"), whose "/api" is redirected: a URI of another length is
// not looked up (slashLens).
func BenchmarkLocationMatchSubdirPass(b *testing.B) {
	tree := newLocationTree()
	root := &Location{kind: levelPrefix, pattern: "/"}
	tree.add(root)
	tree.add(&Location{kind: levelPrefix, pattern: "/api/", autoRedirect: true})
	tree.finish()
	for b.Loop() {
		if l, _, _ := tree.match("/index.php", nil); l != root {
			b.Fatal("not the root location")
		}
	}
}

// BenchmarkDispatchReturn measures the whole path of a request through
// the core (server choice, normalisation, location, chain) to a "return".
func BenchmarkDispatchReturn(b *testing.B) {
	benchDispatch(b, httptest.NewRequest("GET", "/section17/page.html", nil))
}

// BenchmarkDispatchBrowserHeaders is BenchmarkDispatchReturn with the
// header fields a browser sends, which the request rules look through.
func BenchmarkDispatchBrowserHeaders(b *testing.B) {
	r := httptest.NewRequest("GET", "/section17/page.html", nil)
	r.Host = "www.example.com"
	for _, k := range []string{"User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Cookie", "Referer", "Connection", "Cache-Control"} {
		r.Header[k] = []string{"x"}
	}
	benchDispatch(b, r)
}

// benchDispatch serves r again and again through the fifty-location
// configuration, whose locations answer with return, from the dispatcher
// on: the configuration in force is taken per request, as on a listener.
func benchDispatch(b *testing.B, r *http.Request) {
	cfg, err := LoadString("bench.conf", fiftyLocations())
	if err != nil {
		b.Fatal(err)
	}
	defer cfg.close()
	var cur atomic.Pointer[Config]
	cfg.refs.Add(1) // the runtime's own, as Apply takes it
	cur.Store(cfg)
	d := &dispatcher{cur: &cur}
	for bound := range cfg.addrs {
		d.bound = bound
	}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		d.ServeHTTP(w, r)
	}
}

type discardWriter struct {
	h    http.Header
	code int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(code int)        { d.code = code }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
