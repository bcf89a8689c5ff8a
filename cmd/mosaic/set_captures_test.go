package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestSetEscapesCapturesAsNGINX: "set" (and the value an "if" compares
// with, or the name it tests) copies a numbered capture of a client's
// percent-encoded (or "+"-holding) path escaped again with the table for
// arguments, as NGINX's rewrite engine does until a rewrite in the same
// run has matched; named captures and other variables are copied as
// they are. Unescaped, a "set" variable spliced into
// proxy_pass let "%252f" reach the upstream as "%2f", decoded a second
// time there ("..%252f" climbing out of the prefix), and "%3F" or "%23"
// cut the upstream's path into a query or a fragment. A "rewrite ...
// last" starts a new run, which escapes again (/l/); a rewrite inside an
// "if" ends the escaping for the rest of the run (/inif/); a map's regex
// sets the numbered captures, its own value copies them as they are
// (/m/). The rule holds over HTTP/2 too (TestSetEscapesCapturesH2AsNGINX).
func TestSetEscapesCapturesAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.RequestURI)
	}))
	t.Cleanup(origin.Close)
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "a b"), "a file")
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`map $uri $m { ~^/m/(.*)$ "$1"; default "-"; }
		server { listen 127.0.0.1:%[1]d; root %[3]s;
			location ~ ^/f/(.*)$ { set $f $1; proxy_pass http://%[2]s/files/$f; }
			location ~ ^/v/(.*)$ { set $v "<$1>"; return 200 "$v"; }
			location ~ ^/n/(?<nm>.*)$ { set $v $nm; return 200 "$v"; }
			location ~ ^/after/ { rewrite ^/after/(.*)$ /x/$1; set $v $1; return 200 "$v"; }
			location ~ ^/args/(.*)$ { set $args $1; proxy_pass http://%[2]s/q$is_args$args; }
			location /if/ { if ($uri ~ ^/if/(.*)$) { set $v $1; } return 200 "$v"; }
			location ~ ^/eq/(.*)$ { if ($uri = "/eq/$1") { return 200 "same"; } return 200 "differ"; }
			location ~ ^/file/(.*)$ { if (-f $document_root/$1) { return 200 "found"; } return 200 "none"; }
			location /l/ { rewrite ^/l/(.*)$ /t/$1 last; }
			location ~ ^/t/(.*)$ { set $v "<$1>"; return 200 "$v"; }
			location ~ ^/inif/(.*)$ { if ($uri ~ /inif/) { rewrite ^/inif/(.*)$ /x/$1; } set $v "<$1>"; return 200 "$v"; }
			location /m/ { set $v "<$m|$1>"; return 200 "$v"; }
		}`, port, origin.Listener.Addr(), root)
	})
	for _, p := range []string{"/f/", "/v/", "/n/", "/after/", "/args/", "/if/", "/eq/", "/file/", "/l/", "/inif/", "/m/"} {
		for _, s := range []string{"..%252f..%252fadmin", "a%3Fx=1", "a%23b", "a+b", "a%20b%26c%3Bd%22", "%C3%A9", "a%20b", "plain"} {
			raw := "GET " + p + s + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s%s: mosaic %d %q, nginx %d %q", p, s, m.StatusCode, mb, n.StatusCode, nb)
			}
		}
	}
}

// TestSetEscapesCapturesH2AsNGINX is TestSetEscapesCapturesAsNGINX's
// "set" over HTTP/2, where the client's path comes as :path.
func TestSetEscapesCapturesH2AsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d http2;
			location ~ ^/v/(.*)$ { set $v "<$1>"; add_header X-V $v; return 204; }
		}`, port)
	})
	for _, s := range []string{"..%252f..%252fadmin", "a%3Fx=1", "a%23b", "a+b", "plain"} {
		got := map[string][]string{}
		for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
			h := dialH2C(t, port)
			h.headers(t, 1, true, h2cGet("/v/"+s)...)
			got[who] = h.responseFields(1)
		}
		if !slices.Equal(got["mosaic"], got["nginx"]) {
			t.Errorf("/v/%s: mosaic %q, nginx %q", s, got["mosaic"], got["nginx"])
		}
	}
}

// TestSetModuleVariablesEscapeCapturesAsNGINX: "set" of a variable a
// module lets it set ($uid_reset) and of $limit_rate copies a numbered
// capture escaped as every "set" does (TestSetEscapesCapturesAsNGINX).
// $uid_reset reads back what was set; $limit_rate refuses a value that
// is no size, logging it, and the value logged is the escaped one in
// both servers' error logs.
func TestSetModuleVariablesEscapeCapturesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	logs := map[string]string{"m": filepath.Join(dir, "m-rate.log"), "n": filepath.Join(dir, "n-rate.log")}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location ~ ^/uid/(.*)$ { set $uid_reset $1; return 200 "<$uid_reset>"; }
			location ~ ^/rate/(.*)$ { error_log %s; set $limit_rate $1; return 200 "<$limit_rate>"; }
		}`, port, logs[who])
	})
	inputs := []string{"a%3Fx=1", "a+b", "1%20k", "%C3%A9", "plain"}
	for _, p := range []string{"/uid/", "/rate/"} {
		for _, s := range inputs {
			raw := "GET " + p + s + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), raw)
			n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), raw)
			if m.StatusCode != n.StatusCode || mb != nb {
				t.Errorf("%s%s: mosaic %d %q, nginx %d %q", p, s, m.StatusCode, mb, n.StatusCode, nb)
			}
		}
	}
	// The values each server refused as $limit_rate, in order: NGINX logs
	// `invalid $limit_rate "V"`, mosaic `invalid size "V" in "set $limit_rate"`
	// as slog's quoted msg (the inputs hold no quote or backslash).
	refused := func(path string, re *regexp.Regexp) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1])
		}
		return out
	}
	mv := refused(logs["m"], regexp.MustCompile(`invalid size \\"([^"\\]*)\\" in \\"set \$limit_rate\\"`))
	nv := refused(logs["n"], regexp.MustCompile(`invalid \$limit_rate "([^"]*)"`))
	if len(nv) != len(inputs) || !slices.Equal(mv, nv) {
		t.Errorf("$limit_rate refused: mosaic %q, nginx %q", mv, nv)
	}
}
