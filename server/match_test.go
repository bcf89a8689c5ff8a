package server

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// serveText serves a request for host and uri in the configuration's
// address group (its only one) and returns the status and the body, whose
// "return" names the server or location that answered.
func serveText(t *testing.T, cfg *Config, host, uri string) (int, string) {
	t.Helper()
	var g *addrGroup
	for _, x := range cfg.addrs {
		g = x
	}
	r := httptest.NewRequest("GET", uri, nil)
	r.Host = host
	if host == "" {
		// Only HTTP/1.0 may come without a Host (HTTP/1.1 gets 400).
		r.Proto, r.ProtoMinor = "HTTP/1.0", 0
	}
	w := httptest.NewRecorder()
	cfg.ServeGroup(w, r, g)
	return w.Code, w.Body.String()
}

func mustLoad(t *testing.T, src string) *Config {
	t.Helper()
	cfg, err := LoadString("test.conf", src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	t.Cleanup(cfg.close)
	return cfg
}

// The example of NGINX's location documentation, plus nesting rules.
func TestLocationOrder(t *testing.T) {
	cfg := mustLoad(t, `http { server { listen 127.0.0.1:0;
		location = / { return 200 A; }
		location / { return 200 B; }
		location /documents/ { return 200 C; }
		location ^~ /images/ { return 200 D; }
		location ~* \.(gif|jpg|jpeg)$ { return 200 E; }
		location /a/ {
			return 200 F;
			location ~ \.php$ { return 200 G; }
			location /a/b/ { return 200 H; }
			location = /a/exact { return 200 I; }
		}
		location ~ \.php$ { return 200 J; }
		location ~ ^/cap/(\w+)/(\d+)$ { return 200 "K $1 $2";
			location ~ ^/cap/n(\w+)/ { return 200 "N $1"; }
		}
		location /documents/long/ { return 200 L; }
		location =/x { return 200 M; }
		location ~ /in/re/ { return 200 O;
			location = /in/re/e { return 200 P; }
			location /in/re/p { return 200 Q; }
		}
	} }`)
	cases := map[string]string{
		"/":                          "A",
		"/index.html":                "B",
		"/documents/document.html":   "C",
		"/images/1.gif":              "D",
		"/documents/1.jpg":           "E",
		"/DOCUMENTS/1.JPG":           "E",
		"/a/x":                       "F",
		"/a/x.php":                   "G", // nested regex wins over the outer one
		"/b/x.php":                   "J",
		"/a/b/c":                     "H",
		"/a/b/c.php":                 "G",
		"/a/exact":                   "I",
		"/cap/abc/42":                "K abc 42",
		"/cap/nab/42":                "N ab", // nested in a regex location, searched after it
		"/cap/nab/x":                 "B",    // ... only once the outer one matched
		"/in/re/e":                   "O",    // exact and prefix ones inside are not searched
		"/in/re/p":                   "O",
		"/documents/long/x":          "L",
		"/documents/long/x.jpg":      "E",
		"/x":                         "M",
		"/x/":                        "B",
		"/a/../documents/../images/": "D", // normalised before matching
	}
	for uri, want := range cases {
		if _, got := serveText(t, cfg, "", uri); got != want {
			t.Errorf("%s -> %q, want %q", uri, got, want)
		}
	}
}

func TestNoLocationUsesServerLevel(t *testing.T) {
	cfg := mustLoad(t, `http { server { listen 127.0.0.1:0; location /only/ { return 200 only; } } }`)
	if code, _ := serveText(t, cfg, "", "/elsewhere"); code != 404 {
		t.Fatalf("status %d, want 404 from the server level", code)
	}
}

func TestServerNamePriority(t *testing.T) {
	cfg := mustLoad(t, `http {
		server { listen 127.0.0.1:0; server_name first; return 200 first; }
		server { listen 127.0.0.1:0; server_name example.com www.example.com; return 200 exact; }
		server { listen 127.0.0.1:0; server_name *.example.com; return 200 wild-start; }
		server { listen 127.0.0.1:0; server_name *.b.example.com; return 200 wild-start-longer; }
		server { listen 127.0.0.1:0; server_name mail.*; return 200 wild-end; }
		server { listen 127.0.0.1:0; server_name ~^(?P<user>\w+)\.users\.org$; return 200 regex; }
		server { listen 127.0.0.1:0; server_name ~^www\d+\.; return 200 regex2; }
		server { listen 127.0.0.1:0 default_server; server_name _; return 200 default; }
		server { listen 127.0.0.1:0; server_name .dot.org; return 200 dot; }
	}`)
	cases := map[string]string{
		"example.com":         "exact",
		"EXAMPLE.com.":        "exact",
		"example.com:8080":    "exact",
		"www.example.com":     "exact",
		"a.example.com":       "wild-start",
		"x.b.example.com":     "wild-start-longer",
		"mail.example.com":    "wild-start", // *.example.com beats mail.*
		"mail.other.net":      "wild-end",
		"bob.users.org":       "regex",
		"www12.somewhere.net": "regex2",
		"unknown.net":         "default",
		"":                    "default",
		"first":               "first",
		"dot.org":             "dot",
		"a.dot.org":           "dot",
	}
	for host, want := range cases {
		if _, got := serveText(t, cfg, host, "/"); got != want {
			t.Errorf("Host %q -> %q, want %q", host, got, want)
		}
	}
}

// A name two servers of an address claim stays with the first, and the
// load says so in NGINX's words; one server alone is not looked up by
// name, so it has nothing to warn about.
func TestConflictingServerNames(t *testing.T) {
	cfg := mustLoad(t, `http {
		server { listen 127.0.0.1:0; server_name a.test .b.test *.c.test; return 200 first; }
		server { listen 127.0.0.1:0; server_name a.test b.test .c.test www.d.* www.d.*; return 200 second; }
	}`)
	want := []string{
		`conflicting server name "a.test" on 127.0.0.1:0, ignored`,
		`conflicting server name "b.test" on 127.0.0.1:0, ignored`,
		`conflicting server name ".c.test" on 127.0.0.1:0, ignored`,
		`conflicting server name "www.d.*" on 127.0.0.1:0, ignored`,
	}
	if got := cfg.Notices(); !slices.Equal(got, want) {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for host, want := range map[string]string{"a.test": "first", "b.test": "first", "x.c.test": "first", "c.test": "second", "www.d.org": "second"} {
		if _, got := serveText(t, cfg, host, "/"); got != want {
			t.Errorf("Host %q -> %q, want %q", host, got, want)
		}
	}
	if n := mustLoad(t, "http { server { listen 127.0.0.1:0; server_name one.test one.test; } }").Notices(); len(n) != 0 {
		t.Errorf("one server: notices %q", n)
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"http {\n brotly on;\n}", `unknown directive "brotly" in t.conf:2`},
		{"listen 80;", `"listen" directive is not allowed here in t.conf:1`},
		{"http { server { listen; } }", `invalid number of arguments in "listen" directive in t.conf:1`},
		// NGINX takes one or two values (NGX_CONF_TAKE12).
		{"http {\n keepalive_disable none msie6 safari;\n}", `invalid number of arguments in "keepalive_disable" directive in t.conf:2`},
		{"http { server {\nlisten 127.0.0.1:99999;\n} }", `invalid port in "127.0.0.1:99999" of the "listen" directive in t.conf:2`},
		{"http { server { listen 65536; } }", `invalid port in "65536" of the "listen" directive in t.conf:1`},
		{"http { server {\nlocation / {}\nlocation / {}\n} }", `duplicate location "/" in t.conf:3`},
		{"http { server { location = /x {} location = /x {} } }", `duplicate location "/x" in t.conf:1`},
		{"http {\nserver {\n}\n}\n}", `unexpected "}" in t.conf:5`},
		{"http {\nserver {\n", `unexpected end of file, expecting "}" in t.conf:3`},
		{"http { client_max_body_size 1x; }", `invalid value "1x" in "client_max_body_size" directive in t.conf:1`},
		{"http { server { location / { root /a; alias /b; } } }", `"alias" directive is duplicate, "root" directive was specified earlier in t.conf:1`},
		{"http { server { listen 80 bogus; } }", `invalid parameter "bogus" in t.conf:1`},
		{"http { server { location ~ ( {} } }", `pcre2_compile() failed: missing closing parenthesis in "(" in t.conf:1`},
		{"http { server { location ~ 'a{3,2}b' {} } }", `pcre2_compile() failed: numbers out of order in {} quantifier in "a{3,2}b" at "}b" in t.conf:1`},
		{"http { server { server_name ~^(?<host>.+)$; } }", `the duplicate "host" variable in t.conf:1`},
		{"http { server { return 200 $nope; } }", `unknown "nope" variable in t.conf:1`},
		{"http { server { location /a/ { location /b/ {} } } }", `location "/b/" is outside location "/a/" in t.conf:1`},
		{"http { server { location ~ ^/a/ { location /a/b/ {} } } }", `location "/a/b/" is outside location "^/a/" in t.conf:1`},
		{"http { server { location @n { location /x {} } } }", `location "/x" cannot be inside the named location "@n"`},
		{"http { server foo { } }", `invalid number of arguments in "server" directive in t.conf:1`},
		{"http { server; }", `directive "server" has no opening "{" in t.conf:1`},
		{"http { root /x { } }", `directive "root" is not terminated by ";" in t.conf:1`},
		{"worker_processes many;", `invalid value "many" in "worker_processes" directive, it must be 1..65536 in t.conf:1`},
		// 2^32+1: on a 32-bit platform, an int wrapped it to 1.
		{"worker_processes 4294967297;", `invalid value "4294967297" in "worker_processes" directive, it must be 1..65536 in t.conf:1`},
		{"pid a.pid;\npid b.pid;", `"pid" directive is duplicate in t.conf:2`},
		{"http { server { listen 127.0.0.1:1 ssl; } }", `no "ssl_certificate" is defined for the "listen ... ssl" directive in t.conf:1`},
		{"http { error_page 200 /x; }", `value "200" must be between 300 and 599 in t.conf:1`},
		// NGINX's words for what ngx_atoi refuses, and for 499 (rd4).
		{"http { error_page +404 /x; }", `invalid value "+404" in t.conf:1`},
		{"http { error_page 499 /x; }", `invalid value "499" in t.conf:1`},
		{"http { error_page 404 =+302 /x; }", `invalid value "=+302" in t.conf:1`},
		{"error_log /x debugz;", `invalid log level "debugz" in t.conf:1`},
		{"thread_pool one;", `invalid number of arguments in "thread_pool" directive in t.conf:1`},
		{"thread_pool one threads=0;", `invalid threads value "threads=0" in t.conf:1`},
		{"http { server { listen 127.0.0.1:1 default_server; } server { listen 127.0.0.1:1 default_server; } }", "a duplicate default server for 127.0.0.1:1"},
	}
	for _, c := range cases {
		_, err := LoadString("t.conf", c.src)
		if err == nil {
			t.Errorf("%q: loaded, want error %q", c.src, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
}

func TestIgnoredDirectivesLoad(t *testing.T) {
	cfg := mustLoad(t, `user www-data; pid /run/x.pid; load_module m.so; worker_rlimit_nofile 1024;
		events { worker_connections 768; multi_accept on; accept_mutex off; }
		http { tcp_nopush on; tcp_nodelay on; types_hash_max_size 2048; server_tokens off;
			postpone_output 1460; } pcre_jit on;`)
	if n := len(cfg.Notices()); n != 12 {
		t.Fatalf("%d notices: %v", n, cfg.Notices())
	}
	if cfg.PidFile != "/run/x.pid" {
		t.Fatalf("pid file %q", cfg.PidFile)
	}
	if !strings.Contains(cfg.Notices()[0], `ignoring "user" directive in test.conf:1`) {
		t.Fatalf("notice: %s", cfg.Notices()[0])
	}
}

// TestAutoRedirectMatch: a location marked by a gateway (Cmd.AutoRedirect)
// is redirected to for its name without the slash, before regexes and
// nested locations, unless an exact or prefix location has that name; an
// exact location's settings serve the redirect when both kinds share the
// name. TestAutoRedirectAsNGINX (cmd/mosaic) compares the answers with
// NGINX's.
func TestAutoRedirectMatch(t *testing.T) {
	loc := func(kind levelKind, pattern string, auto bool) *Location {
		return &Location{kind: kind, pattern: pattern, autoRedirect: auto}
	}
	app := loc(levelPrefix, "/app/", true)
	exactEq := loc(levelExact, "/eq/", false)
	prefixEq := loc(levelPrefix, "/eq/", true)
	plain := loc(levelPrefix, "/plain/", false)
	pf := loc(levelPrefix, "/pf", false)
	pfSlash := loc(levelPrefix, "/pf/", true)
	ex := loc(levelExact, "/ex", false)
	exSlash := loc(levelPrefix, "/ex/", true)
	re, err := pcre.Compile("^/app", false)
	if err != nil {
		t.Fatal(err)
	}
	rx := &Location{kind: levelRegex, pattern: "^/app", re: &regex{Regexp: re}}
	long := loc(levelPrefix, "/"+strings.Repeat("l", 70)+"/", true) // past slashLens' last bit
	outer := loc(levelPrefix, "/n/", false)
	inner := loc(levelPrefix, "/n/app/", true)
	outer.nested = newLocationTree()
	outer.nested.add(inner)
	tree := newLocationTree()
	for _, l := range []*Location{rx, app, prefixEq, exactEq, plain, pf, pfSlash, ex, exSlash, long, outer} {
		tree.add(l)
	}
	tree.finish()
	for _, c := range []struct {
		uri      string
		want     *Location
		redirect bool
	}{
		{"/app", app, true},
		{"/app/", rx, false}, // the regex wins over the prefix, as ever
		{"/apps", rx, false},
		{"/eq", exactEq, true},
		{"/plain", nil, false},
		{"/pf", pf, false},
		{"/ex", ex, false},
		{"/n/app", inner, true},
		{"/" + strings.Repeat("l", 70), long, true},
		{"/" + strings.Repeat("l", 69), nil, false},
		{"/" + strings.Repeat("l", 71), nil, false},
	} {
		l, redirect, err := tree.match(c.uri, nil)
		if err != nil || l != c.want || redirect != c.redirect {
			t.Errorf("%s: %v redirect %v (%v), want %v redirect %v", c.uri, l, redirect, err, c.want, c.redirect)
		}
	}
}

// TestAutoRedirectRootNoLookup: "location / { fastcgi_pass ...; }" (the
// usual PHP site) is marked too, but its name without the slash is no
// URI, so the search keeps no table to look each request up in.
func TestAutoRedirectRootNoLookup(t *testing.T) {
	tree := newLocationTree()
	root := &Location{kind: levelPrefix, pattern: "/", autoRedirect: true}
	tree.add(&Location{kind: levelExact, pattern: "/", autoRedirect: true})
	tree.add(root)
	tree.finish()
	if tree.slashless != nil {
		t.Errorf("slashless table %v for \"/\" alone", tree.slashless)
	}
	if l, redirect, err := tree.match("/index.php", nil); l != root || redirect || err != nil {
		t.Errorf("/index.php: %v redirect %v (%v), want the root location", l, redirect, err)
	}
}
