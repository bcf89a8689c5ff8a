package main

import (
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// $request_uri in subrequests. An auth_request subrequest has the
// $request_uri of the request it checks, as NGINX copies the parent's
// unparsed URI into a subrequest: the auth service of NGINX's documented
// setup ("proxy_set_header X-Original-URI $request_uri") decides on it.
// An SSI or ESI include keeps its own URI (see vars/README.md), so that
// the default proxy_cache_key keeps each fragment's entry apart.

// pathPolicy is an authentication service that refuses what its
// X-Original-URI puts under /admin/ and records, per X-Who, the
// X-Original-URI and X-Original-URL it was sent.
type pathPolicy struct {
	addr string
	mu   sync.Mutex
	seen map[string][]string
}

func startPathPolicy(t *testing.T) *pathPolicy {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &pathPolicy{addr: ln.Addr().String(), seen: map[string][]string{}}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		orig := r.Header.Get("X-Original-URI")
		p.mu.Lock()
		p.seen[r.Header.Get("X-Who")] = []string{orig, r.Header.Get("X-Original-URL")}
		p.mu.Unlock()
		if strings.HasPrefix(orig, "/admin/") {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return p
}

// take returns and forgets what the service was last sent for who.
func (p *pathPolicy) take(who string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.seen[who]
	delete(p.seen, who)
	return v
}

func TestAuthRequestSeesOriginalRequestURILikeNGINX(t *testing.T) {
	policy := startPathPolicy(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/admin/panel.txt"), "admin panel")
	writeFile(t, filepath.Join(dir, "www/public/page.txt"), "public page")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`types { text/plain txt; }
		server {
			listen 127.0.0.1:%d; root %s/www;
			auth_request /_authz;
			# The URI the client sent stays $request_uri after a rewrite.
			location /old/ { rewrite ^/old/(.*)$ /admin/$1 last; }
			location = /_authz {
				internal;
				proxy_pass http://%s;
				proxy_pass_request_body off;
				proxy_set_header Content-Length "";
				proxy_set_header X-Original-URI $request_uri;
				proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
				proxy_set_header X-Who %s;
			}
		}`, port, dir, policy.addr, who)
	})
	for _, target := range []string{"/admin/panel.txt?x=1", "/public/page.txt", "/old/panel.txt", "/public/../admin/panel.txt"} {
		raw := "GET " + target + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
		mseen := policy.take("m")
		n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
		nseen := policy.take("n")
		if fmt.Sprint(mseen) != fmt.Sprint(nseen) {
			t.Errorf("GET %s: the auth service got X-Original-URI, X-Original-URL %q from mosaic, %q from NGINX", target, mseen, nseen)
		}
		if m.StatusCode != n.StatusCode {
			t.Errorf("GET %s: mosaic %d %q, NGINX %d", target, m.StatusCode, trimBody(mb), n.StatusCode)
		}
	}
}

// TestIncludeRequestURIIsItsOwn: an SSI or ESI include's $request_uri is
// the URI it was included with, which a rewrite in its location leaves as
// it was, as a rewrite leaves a page's; the page's own is unchanged.
func TestIncludeRequestURIIsItsOwn(t *testing.T) {
	port := freePort(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/ssi/page.html"), `[<!--#include virtual="/frag/a?x=1" -->|<!--#include virtual="/old/b" -->|<!--#echo var="request_uri" -->]`)
	writeFile(t, filepath.Join(dir, "www/esi/page.html"), `[<esi:include src="/frag/c?x=1"/>|<esi:include src="/old/d"/>]`)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port}; root %s/www;
		location /ssi/ { ssi on; default_type text/html; }
		location /esi/ { esi on; default_type text/html; }
		location /frag/ { return 200 "$uri:$request_uri"; }
		location /old/ { rewrite ^/old/(.*)$ /frag/new-$1 last; }
	} }`, dir), port)
	for _, c := range []struct{ page, want string }{
		{"/ssi/page.html?p=1", "[/frag/a:/frag/a?x=1|/frag/new-b:/old/b|/ssi/page.html?p=1]"},
		{"/esi/page.html?p=1", "[/frag/c:/frag/c?x=1|/frag/new-d:/old/d]"},
	} {
		if resp, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, c.page), nil); resp.StatusCode != 200 || body != c.want {
			t.Errorf("%s: %d %q, want %q", c.page, resp.StatusCode, body, c.want)
		}
	}
}

// TestIncludedFragmentsCachedApart: fragments proxied through a cache
// keyed by $request_uri keep an entry each, for SSI and ESI includes, also
// when the fragment's location rewrites its URI.
func TestIncludedFragmentsCachedApart(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		html(w, "<"+r.URL.RequestURI()+">")
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		access_log off;
		proxy_cache_path memory keys_zone=frags:10m;
		proxy_cache_key $scheme$proxy_host$request_uri;
		server { listen 127.0.0.1:{port}; root {dir}/www;
			location /ssi/ { ssi on; default_type text/html; }
			location /esi/ { esi on; default_type text/html; }
			location /frag/ { internal; proxy_pass http://{origin}; proxy_cache frags; }
			location /old/ { internal; rewrite ^/old/(.*)$ /frag/new-$1 break; proxy_pass http://{origin}; proxy_cache frags; }
		}
	}`,
		"www/ssi/page.html", `<!--#include virtual="/frag/a" -->|<!--#include virtual="/frag/b?x=1" -->|<!--#include virtual="/old/c" -->|<!--#include virtual="/old/d" -->`,
		"www/esi/page.html", `<esi:include src="/frag/e"/>|<esi:include src="/frag/f?x=1"/>|<esi:include src="/old/g"/>|<esi:include src="/old/h"/>`)
	for _, c := range []struct{ page, want string }{
		{"/ssi/page.html", "</frag/a>|</frag/b?x=1>|</frag/new-c>|</frag/new-d>"},
		{"/esi/page.html", "</frag/e>|</frag/f?x=1>|</frag/new-g>|</frag/new-h>"},
	} {
		for i := 0; i < 2; i++ { // the second delivery comes from the cache
			if _, body := esiDo(t, "GET", base+c.page, nil); body != c.want {
				t.Errorf("%s, delivery %d: %q, want %q (origin %v)", c.page, i+1, body, c.want, o.counts())
			}
		}
	}
	for _, p := range []string{"/frag/a", "/frag/b", "/frag/new-c", "/frag/new-d", "/frag/e", "/frag/f", "/frag/new-g", "/frag/new-h"} {
		if n := o.count(p); n != 1 {
			t.Errorf("origin got %s %d times, want once (all: %v)", p, n, o.counts())
		}
	}
}

func trimBody(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
