package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestAliasAfterRewriteBreakBesideNGINX pins a kept difference: where
// "rewrite ... break" (or a rewrite and "break") changed the URI of a
// request whose location has an alias, prefix or regex, or a server's
// "rewrite ... break" led to one, NGINX refuses every use of the alias
// with 500 ("alias" cannot be used in location ... where URI was
// rewritten: ngx_http_map_uri_to_path, whose alias length would cut a
// URI that no longer starts with the location's prefix). mosaic maps
// the rewritten URI below the alias: what follows the prefix where it
// still has it, the whole URI otherwise. A ".." that a variable brings
// into the rewritten URI is refused as any request path's.
func TestAliasAfterRewriteBreakBesideNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	for _, f := range []string{"www/x.txt", "www/d/index.html", "secret.txt"} {
		writeFile(t, filepath.Join(dir, f), f)
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %[2]s/www;
			rewrite ^/srv/(.*)$ /pb/$1 break;
			location /pb/ { alias %[2]s/www/; rewrite ^/pb/(.*)$ /pb/$1 break; }
			location /pc/ { alias %[2]s/www/; rewrite ^/pc/(.*)$ /$1 break; }
			location /pe/ { alias %[2]s/www/; rewrite ^/pe/(.*)$ /pe/$1; break; }
			location /pa/ { alias %[2]s/www/; rewrite ^ /$arg_p break; }
			location ~ ^/rb/(.*)$ { alias %[2]s/www/$1; rewrite ^/rb/(.*)$ /rb/$1 break; }
		}`, port, dir)
	})
	for path, want := range map[string]int{
		"/pb/x.txt": 200, "/pb/d/": 200, "/pc/x.txt": 200, "/pe/x.txt": 200, "/rb/x.txt": 200,
		"/srv/x.txt": 200, "/pa/?p=x.txt": 200, "/pa/?p=../secret.txt": 404, "/pa/?p=%2e%2e/secret.txt": 404,
	} {
		for _, method := range []string{"GET", "HEAD"} {
			req := method + " " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
			m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
			n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
			if m.StatusCode != want || strings.Contains(mb, "secret") || want == 200 && method == "GET" && !strings.HasPrefix(mb, "www/") || n.StatusCode != http.StatusInternalServerError {
				t.Errorf("%s %s: mosaic %d %q (want %d), nginx %d (want 500)", method, path, m.StatusCode, mb, want, n.StatusCode)
			}
		}
	}
}
