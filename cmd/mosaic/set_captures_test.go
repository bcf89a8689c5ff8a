package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
