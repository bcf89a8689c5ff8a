package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// The redirects mosaic makes become absolute as NGINX's header filter
// makes them: the client's host name, the port of the socket (not the
// Host header's), the server's name with server_name_in_redirect on, the
// local address when the request names no host.
func TestRedirectDirectives(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0; server_name main.test;
		location /abs    { return 301 /to; }
		location /noport { port_in_redirect off; return 302 /to; }
		location /name   { server_name_in_redirect on; return 307 /to; }
		location /rel    { absolute_redirect off; return 301 /to?x=1; }
		location /full   { return 301 http://other.test/to; }
		location /page   { error_page 404 =301 /abs; return 404; }
	} }`)
	addr := strings.TrimPrefix(base, "http://")
	port := addr[strings.LastIndexByte(addr, ':'):]
	for path, want := range map[string]string{
		"/abs":    "http://a.test" + port + "/to",
		"/noport": "http://a.test/to",
		"/name":   "http://main.test" + port + "/to",
		"/rel":    "/to?x=1",
		"/full":   "http://other.test/to",
	} {
		resp, _ := get(t, base+path, "Host", "A.test:9999")
		if got := resp.Header.Get("Location"); got != want {
			t.Errorf("%s: Location %q, want %q", path, got, want)
		}
	}
	// Without a Host, the local address names the server.
	resp, _ := testclient.Raw(t, addr, "GET /abs HTTP/1.0\r\n\r\n")
	if got, want := resp.Header.Get("Location"), "http://"+addr+"/to"; got != want {
		t.Errorf("HTTP/1.0 without Host: Location %q, want %q", got, want)
	}
}

// merge_slashes off keeps "//" in the URI that chooses the location and
// in $uri; the address's default server decides, as NGINX parses the
// URI before Host picks a server.
func TestMergeSlashes(t *testing.T) {
	conf := func(merge string) string {
		return `http { server { listen 127.0.0.1:0; ` + merge + `
			location /a//b { return 200 "kept $uri"; }
			location /     { return 200 "merged $uri"; } }
			server { listen 127.0.0.1:0; server_name other.test; merge_slashes on; } }`
	}
	_, on := startRuntime(t, conf(""))
	_, off := startRuntime(t, conf("merge_slashes off;"))
	for _, tc := range []struct{ base, path, want string }{
		{on, "/a//b//c", "merged /a/b/c"},
		{off, "/a//b//c", "kept /a//b//c"},
		{off, "/a//x/../b/", "kept /a//b/"},
		{off, "/x//", "merged /x//"},
	} {
		if _, body := testclient.Raw(t, strings.TrimPrefix(tc.base, "http://"), "GET "+tc.path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); body != tc.want {
			t.Errorf("%s: %q, want %q", tc.path, body, tc.want)
		}
	}
}

// recursive_error_pages on lets the error page's own error be caught by
// the error_page of the page's location; off (the default) sends the
// standard page for it.
func TestRecursiveErrorPages(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location /on  { recursive_error_pages on; error_page 404 /p404; return 404; }
		location /off { error_page 404 /p404; return 404; }
		location = /p404 { error_page 500 /p500; return 500; }
		location = /p500 { return 200 "second page"; }
	} }`)
	if _, body := get(t, base+"/on"); body != "second page" {
		t.Errorf("on: %q", body)
	}
	if _, body := get(t, base+"/off"); !strings.Contains(body, "500 Internal Server Error") {
		t.Errorf("off: %q", body)
	}
}

// charset names the charset of the types in charset_types (text/html
// always), on mosaic's own pages too, but not on 301 and 302 redirects;
// source_charset equal to it needs no conversion.
func TestCharset(t *testing.T) {
	_, base := startRuntime(t, `http { charset utf-8; server { listen 127.0.0.1:0;
		location /plain   { return 200 x; }
		location /json    { default_type application/json; return 200 x; }
		location /typed   { default_type application/json; charset_types application/json; return 200 x; }
		location /any     { default_type image/png; charset_types *; return 200 x; }
		location /off     { charset off; return 200 x; }
		location /koi     { charset koi8-r; return 200 x; }
		location /source  { source_charset UTF-8; return 200 x; }
		location /missing { return 404; }
		location /moved   { return 302 /x; }
		location /see     { return 303 /x; }
	} }`)
	for path, want := range map[string]string{
		"/plain":   "text/plain; charset=utf-8",
		"/json":    "application/json",
		"/typed":   "application/json; charset=utf-8",
		"/any":     "image/png; charset=utf-8",
		"/off":     "text/plain",
		"/koi":     "text/plain; charset=koi8-r",
		"/source":  "text/plain; charset=utf-8",
		"/missing": "text/html; charset=utf-8",
		"/moved":   "text/html",
		"/see":     "text/html; charset=utf-8",
	} {
		resp, _ := get(t, base+path)
		if got := resp.Header.Get("Content-Type"); got != want {
			t.Errorf("%s: Content-Type %q, want %q", path, got, want)
		}
	}
}

// limit_except is an implicit location: a method it does not list (GET
// brings HEAD) is served with the block's settings, which do not inherit
// the location's rewrite directives ("return" here), as in NGINX.
func TestLimitExcept(t *testing.T) {
	_, base := startRuntime(t, `http { server { listen 127.0.0.1:0;
		location /le { limit_except GET { } return 200 "read"; }
	} }`)
	for method, want := range map[string]int{"GET": 200, "HEAD": 200, "POST": 404, "DELETE": 404, "PROPFIND": 404} {
		req, _ := http.NewRequest(method, base+"/le", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", method, resp.StatusCode, want)
		}
	}
}

func TestCoreDirectiveErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"http {\ncharset koi8-r;\nserver { source_charset utf-8; }\n}", `no "charset_map" between the charsets "utf-8" and "koi8-r" (source_charset in t.conf:3, charset in t.conf:2)`},
		{"http {\ncharset_map koi8-r KOI8-R { }\n}", `"charset_map" between the same charsets "koi8-r" and "KOI8-R" in t.conf:2`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 ZZ;\n}\n}", `invalid value "ZZ" in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 41;\n}\n}", `invalid value "41" in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 D0B;\n}\n}", `invalid value "D0B" in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 D0B0D0B0;\n}\n}", `invalid value "D0B0D0B0" in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\n100 D0B0;\n}\n}", `invalid value "100" in t.conf:3`},
		{"http {\ncharset_map koi8-r windows-1251 {\nC0 100;\n}\n}", `invalid value "100" in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 D0B0 1;\n}\n}", `invalid parameters number in t.conf:3`},
		{"http {\ncharset_map koi8-r utf-8 {\nC0 { }\n}\n}", `unexpected "{" in t.conf:3`},
		{"http {\ncharset_map koi8-r windows-1251 { }\ncharset_map windows-1251 koi8-r { }\n}", `duplicate "charset_map" between "windows-1251" and "koi8-r" in t.conf:3`},
		{"http {\ncharset_map utf-8 koi8-r { }\n}", `"charset_map" with "utf-8" charset should be given in the second column in t.conf:2`},
		{"http { server {\ncharset_map a b { }\n} }", `"charset_map" directive is not allowed here in t.conf:2`},
		{"http {\ncharset_map koi8-r windows-1251 { }\ncharset koi8-r;\nserver { source_charset utf-8; }\n}", `no "charset_map" between the charsets "utf-8" and "koi8-r"`},
		{"http { charset $c; }", `variables in "charset" are not supported in t.conf:1`},
		{"http { charset utf-8; charset utf-8; }", `"charset" directive is duplicate in t.conf:1`},
		{"http { server { location / {\nlimit_except GET FOO { }\n} } }", `invalid method "FOO" in t.conf:2`},
		{"http { server { location / {\nlimit_except GET { }\nlimit_except POST { }\n} } }", `"limit_except" directive is duplicate in t.conf:3`},
		{"http { server { location / { limit_except GET {\nreturn 403;\n} } } }", `"return" directive is not allowed here in t.conf:2`},
		// allow and deny, the usual content of the block, are access
		// rules (their own issue).
		{"http { server { location / { limit_except GET {\ndeny all;\n} } } }", `unknown directive "deny" in t.conf:2`},
		{"http { server { limit_except GET { } } }", `"limit_except" directive is not allowed here in t.conf:1`},
		{"http { merge_slashes maybe; }", `invalid value "maybe"`},
		{"http { client_body_temp_path /tmp/b 1 0; }", `"client_body_temp_path" directive invalid value in t.conf:1`},
		{"http { client_body_temp_path /tmp/b 5 6; }", `"client_body_temp_path" directive invalid value in t.conf:1`},
		{"http { client_header_buffer_size 0; }", `invalid value "0" in "client_header_buffer_size" directive in t.conf:1`},
	} {
		cfg, err := LoadString("t.conf", tc.src)
		if err == nil {
			cfg.Close()
			t.Errorf("%q: loaded, want %s", tc.src, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got  %v\n want %s", tc.src, err, tc.want)
		}
	}
	// The pool and batching sizes of NGINX load with a notice.
	cfg := mustLoad(t, "http { connection_pool_size 512; request_pool_size 4k; postpone_output 1460; }")
	if n := cfg.Notices(); len(n) != 3 || !strings.Contains(n[2], `ignoring "postpone_output" directive in test.conf:1`) {
		t.Errorf("notices %q", n)
	}
}

// A request line longer than the large buffers is accepted when it fits
// in client_header_buffer_size, where NGINX reads it first.
func TestClientHeaderBufferSize(t *testing.T) {
	long := "/" + strings.Repeat("a", 12<<10)
	for conf, want := range map[string]string{
		"":                               "414",
		"client_header_buffer_size 16k;": "200",
		"client_header_buffer_size 10k;": "414",
	} {
		_, base := startRuntime(t, `http { large_client_header_buffers 4 8k; `+conf+` server { listen 127.0.0.1:0; return 200 ok; } }`)
		resp, _ := testclient.Raw(t, strings.TrimPrefix(base, "http://"), "GET "+long+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if got := resp.Status[:3]; got != want {
			t.Errorf("%q: %s, want %s", conf, got, want)
		}
	}
}

// keepalive_disable is a bitmask in NGINX: its lines at one level add up
// where a single-valued directive would be refused as a duplicate.
func TestKeepaliveDisableLinesAddUpAsNGINX(t *testing.T) {
	cfg := mustLoad(t, "http {\nkeepalive_disable msie6;\nkeepalive_disable safari;\n}")
	if v := LocConf[*coreLoc](cfg.HTTP(), coreModule).keepaliveOff.V; v != kaMSIE6|kaSafari {
		t.Errorf("keepalive_disable %b, want msie6 and safari", v)
	}
}

// keepalive_timeout's second value, the Keep-Alive header, is merged on
// its own in NGINX (keepalive_header): a level whose line gives only the
// timeout keeps the header of the level above, and "0" sends none.
func TestKeepaliveHeaderMergedAsNGINX(t *testing.T) {
	_, base := startRuntime(t, `http { keepalive_timeout 5 4;
	server { listen 127.0.0.1:0; keepalive_timeout 10;
		location / { return 200; }
		location /none { keepalive_timeout 10 0; return 200; } } }`)
	if resp, _ := get(t, base+"/"); resp.Header.Get("Keep-Alive") != "timeout=4" {
		t.Errorf("server: Keep-Alive %q, want the http level's timeout=4", resp.Header.Get("Keep-Alive"))
	}
	if resp, _ := get(t, base+"/none"); resp.Header.Get("Keep-Alive") != "" {
		t.Errorf("keepalive_timeout 10 0: Keep-Alive %q, want none", resp.Header.Get("Keep-Alive"))
	}
}
