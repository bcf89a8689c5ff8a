package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/resolver/resolvertest"
)

// mapSite is one configuration served by mosaic and by NGINX: h5bp's map
// of the response's Content-Type to "expires $expires", on static files
// and on proxied responses; the WebSocket idiom's $connection_upgrade in
// proxy_set_header; map variables in add_header, return, root, try_files
// and error_page; and map values that expires may or may not accept.
const mapSite = `
	access_log off;
	types { text/css css; text/html html; application/json json; image/png png; text/plain txt; }
	map $sent_http_content_type $expires {
		default             1M;
		""                  off;
		~*text/css          1y;
		~*application/json  0;
		~*text/html         epoch;
		~*image/png         max;
	}
	map $http_upgrade $connection_upgrade {
		default upgrade;
		''      close;
	}
	map $arg_e $exp_value {
		default  off;
		plus     +1h;
		neg      -1;
		daily    @15h;
		modified "modified +1h";
		junk     soon;
	}
	map $arg_site $docroot {
		default {dir}/a;
		b       {dir}/b;
	}
	map $uri $errpage {
		default  /404.html;
		~^/fr/   /fr/404.html;
	}
	map $arg_to $backend {
		default  app.test:{originport};
		ip       {origin};
		nxdomain nowhere.test:{originport};
		group    group;
		bad      ftp://x;
	}
	map $arg_d $goto {
		default https://example.com/x;
		here    https://$http_x_site/y;
	}
	map $http_x_h $hostmap {
		hostnames;
		default            none;
		example.com        exact;
		*.example.com      wild;
		.example.org       dotted;
		www.example.*      tail;
		~^(?<sub>[a-z]+)\.re\.test$  re-$sub;
	}
	map $args $cached { default "c:$args"; }
	map $args $fresh { volatile; default "f:$args"; }
	map $arg_i $incl {
		default dflt;
		include map.inc;
	}
	upstream group { server {origin}; }
	resolver {dns} valid=1s ipv6=off;
	server {
		listen 127.0.0.1:{port};
		root {dir}/a;
		location / {
			expires $expires;
			add_header X-Expires-Value "$expires";
		}
		location /api/ {
			proxy_pass http://{origin};
			expires $expires;
		}
		location /ws/ {
			proxy_pass http://{origin};
			proxy_http_version 1.1;
			proxy_set_header Upgrade $http_upgrade;
			proxy_set_header Connection $connection_upgrade;
		}
		location /exp/ {
			expires $exp_value;
			return 200 "e";
		}
		location /ret/ {
			return 200 "[$connection_upgrade]";
		}
		location /root/ {
			root $docroot;
		}
		location /try/ {
			try_files /$arg_f.txt =404;
		}
		location /fr/ {
			error_page 404 $errpage;
		}
		location = /fr/404.html {
			internal;
			return 404 "french page";
		}
		location /go/ {
			return 302 $goto;
		}
		location /dyn/ {
			proxy_pass http://$backend;
		}
		location /dynuri/ {
			proxy_pass http://$backend/fixed$uri;
		}
		location /host/ {
			return 200 "[$hostmap]";
		}
		location /vol/ {
			set $before "$cached/$fresh";
			set $args "changed";
			return 200 "$before|$cached|$fresh";
		}
		location /inc/ {
			return 200 "[$incl]";
		}
	}
`

type mapCase struct {
	path   string
	header []string
	status int
	body   string            // "" skips the check
	want   map[string]string // response headers; "*" means present, "" absent
}

var mapCases = []mapCase{
	{path: "/style.css", status: 200, want: map[string]string{"Cache-Control": "max-age=31536000", "Expires": "*", "X-Expires-Value": "1y"}},
	{path: "/index.html", status: 200, want: map[string]string{"Cache-Control": "no-cache", "Expires": "Thu, 01 Jan 1970 00:00:01 GMT"}},
	{path: "/data.json", status: 200, want: map[string]string{"Cache-Control": "max-age=0", "Expires": "*"}},
	{path: "/logo.png", status: 200, want: map[string]string{"Cache-Control": "max-age=315360000", "Expires": "Thu, 31 Dec 2037 23:55:55 GMT"}},
	{path: "/notes.txt", status: 200, want: map[string]string{"Cache-Control": "max-age=2592000", "Expires": "*"}},
	// The proxied response's Content-Type decides, as the header goes out.
	{path: "/api/x?ct=text/css", status: 200, want: map[string]string{"Cache-Control": "max-age=31536000"}},
	{path: "/api/x?ct=text/html%3Bcharset=utf-8", status: 200, want: map[string]string{"Cache-Control": "no-cache"}},
	{path: "/api/x", status: 200, want: map[string]string{"Cache-Control": "", "Expires": ""}},
	// The WebSocket idiom: "close" without an Upgrade header.
	{path: "/ws/a", status: 200, body: "/ws/a host={origin} connection=close upgrade="},
	{path: "/ws/a", header: []string{"Upgrade", "websocket"}, status: 200, body: "/ws/a host={origin} connection=upgrade upgrade=websocket"},
	{path: "/ret/", status: 200, body: "[close]"},
	{path: "/ret/", header: []string{"Upgrade", "h2c"}, status: 200, body: "[upgrade]"},
	// Values that expires parses per response; what it cannot parse
	// (even "modified +1h", which only the directive itself takes) sets
	// nothing.
	{path: "/exp/", status: 200, want: map[string]string{"Cache-Control": "", "Expires": ""}},
	{path: "/exp/?e=plus", status: 200, want: map[string]string{"Cache-Control": "max-age=3600"}},
	{path: "/exp/?e=neg", status: 200, want: map[string]string{"Cache-Control": "no-cache"}},
	{path: "/exp/?e=daily", status: 200, want: map[string]string{"Expires": "*"}},
	{path: "/exp/?e=modified", status: 200, want: map[string]string{"Cache-Control": "", "Expires": ""}},
	{path: "/exp/?e=junk", status: 200, want: map[string]string{"Cache-Control": "", "Expires": ""}},
	{path: "/root/f.txt", status: 200, body: "a"},
	{path: "/root/f.txt?site=b", status: 200, body: "b"},
	{path: "/try/?f=one", status: 200, body: "one"},
	{path: "/try/?f=none", status: 404},
	{path: "/fr/missing", status: 404, body: "french page"},
	{path: "/go/", status: 302, want: map[string]string{"Location": "https://example.com/x"}},
	{path: "/go/?d=here", header: []string{"X-Site", "s.test"}, status: 302, want: map[string]string{"Location": "https://s.test/y"}},
	// proxy_pass with variables: a name resolved at request time with the
	// resolver, an address, an upstream block; a URI part is the whole
	// target.
	{path: "/dyn/a?x=1", status: 200, body: "/dyn/a?x=1 host=app.test:{originport} connection=close upgrade="},
	{path: "/dyn/b?to=ip", status: 200, body: "/dyn/b?to=ip host={origin} connection=close upgrade="},
	{path: "/dyn/c?to=group", status: 200, body: "/dyn/c?to=group host=group connection=close upgrade="},
	{path: "/dyn/d?to=nxdomain", status: 502},
	{path: "/dyn/e?to=bad", status: 500},
	{path: "/dynuri/f?x=1", status: 200, body: "/fixed/dynuri/f host=app.test:{originport} connection=close upgrade="},
	// hostnames: exact names, "*." and "." wildcards, a trailing "*",
	// regexes; the value is matched lower-cased, without a final dot.
	{path: "/host/", header: []string{"X-H", "example.com"}, status: 200, body: "[exact]"},
	{path: "/host/", header: []string{"X-H", "Example.COM."}, status: 200, body: "[exact]"},
	{path: "/host/", header: []string{"X-H", "a.b.example.com"}, status: 200, body: "[wild]"},
	{path: "/host/", header: []string{"X-H", "example.org"}, status: 200, body: "[dotted]"},
	{path: "/host/", header: []string{"X-H", "x.example.org"}, status: 200, body: "[dotted]"},
	{path: "/host/", header: []string{"X-H", "www.example.net"}, status: 200, body: "[tail]"},
	{path: "/host/", header: []string{"X-H", "foo.re.test"}, status: 200, body: "[re-foo]"},
	{path: "/host/", header: []string{"X-H", "example.net"}, status: 200, body: "[none]"},
	{path: "/host/", status: 200, body: "[none]"},
	// A map's value is kept for the request once computed; a volatile
	// one is computed at each use.
	{path: "/vol/?a=1", status: 200, body: "c:a=1/f:a=1|c:a=1|f:changed"},
	// include inside map: the file's lines are the map's.
	{path: "/inc/?i=one", status: 200, body: "[1]"},
	{path: "/inc/?i=TWO", status: 200, body: "[twO words]"},
	{path: "/inc/?i=x", status: 200, body: "[dflt]"},
}

func mapSiteFiles(t *testing.T, dir string) {
	for name, body := range map[string]string{
		"a/style.css": "b{}", "a/index.html": "<p>", "a/data.json": "{}", "a/logo.png": "png", "a/notes.txt": "n",
		"a/root/f.txt": "a", "b/root/f.txt": "b", "a/one.txt": "one",
		"map.inc": "one 1;\n~*^tw(o)$ \"tw$1 words\";\n",
	} {
		writeFile(t, filepath.Join(dir, name), body)
	}
}

// mapOrigin answers with the Content-Type asked for in ?ct= (none when
// absent) and says which Connection and Upgrade headers it got.
func mapOrigin(t *testing.T) string {
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ct := r.URL.Query().Get("ct"); ct != "" {
			w.Header().Set("Content-Type", ct)
		} else {
			w.Header()["Content-Type"] = nil // no sniffing: no Content-Type at all
		}
		fmt.Fprintf(w, "%s host=%s connection=%s upgrade=%s", r.RequestURI, r.Host, r.Header.Get("Connection"), r.Header.Get("Upgrade"))
	}))
	t.Cleanup(o.Close)
	return o.Listener.Addr().String()
}

// mapSiteEnv is what the configuration and the answers name: the files'
// folder, the origin, the DNS server that resolves app.test to it.
type mapSiteEnv struct {
	dir, origin, dns string
	port             int
}

func newMapSiteEnv(t *testing.T) mapSiteEnv {
	e := mapSiteEnv{dir: t.TempDir(), origin: mapOrigin(t), port: freePort(t)}
	mapSiteFiles(t, e.dir)
	e.dns = resolvertest.Start(t, map[string][]resolvertest.Record{
		"app.test": {{Addr: netip.MustParseAddr("127.0.0.1"), TTL: 0}},
	}).Addr
	return e
}

func (e mapSiteEnv) replace(s string) string {
	_, originPort, _ := net.SplitHostPort(e.origin)
	return strings.NewReplacer("{dir}", e.dir, "{originport}", originPort, "{origin}", e.origin,
		"{port}", fmt.Sprint(e.port), "{dns}", e.dns).Replace(s)
}

func checkMapCases(t *testing.T, e mapSiteEnv) {
	t.Helper()
	port := e.port
	// A client of its own: Go's transport would take an Upgrade header
	// as a protocol switch; this one sends it as a plain field.
	for _, c := range mapCases {
		req, err := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(c.header); i += 2 {
			req.Header.Set(c.header[i], c.header[i+1])
		}
		resp, body := sendRequest(t, port, req)
		if want := e.replace(c.body); resp.StatusCode != c.status || (c.body != "" && body != want) {
			t.Errorf("%s %v: %d %q, want %d %q", c.path, c.header, resp.StatusCode, body, c.status, want)
		}
		for name, want := range c.want {
			got, present := resp.Header.Get(name), len(resp.Header.Values(name)) > 0
			switch {
			case want == "*" && !present, want == "" && present, want != "*" && want != "" && got != want:
				t.Errorf("%s %v: %s %q, want %q", c.path, c.header, name, got, want)
			}
		}
		if exp := resp.Header.Get("Expires"); exp != "" {
			if _, err := http.ParseTime(exp); err != nil {
				t.Errorf("%s: Expires %q: %v", c.path, exp, err)
			}
		}
	}
}

// sendRequest sends req on a connection of its own and reads the response.
func sendRequest(t *testing.T, port int, req *http.Request) (*http.Response, string) {
	t.Helper()
	c, err := net.DialTimeout("tcp4", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	req.Close = true
	if err := req.Write(c); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
	return resp, string(b)
}

// TestMapSite serves mapSite with mosaic.
func TestMapSite(t *testing.T) {
	e := newMapSiteEnv(t)
	startMosaic(t, e.dir, "http {"+e.replace(mapSite)+"}", e.port)
	checkMapCases(t, e)
}

// TestMapSiteMatchesNGINX serves the same configuration with Debian's
// NGINX, which must give every answer that mosaic gives.
func TestMapSiteMatchesNGINX(t *testing.T) {
	e := newMapSiteEnv(t)
	startNGINX(t, e.dir, e.replace(mapSite), e.port)
	checkMapCases(t, e)
}
