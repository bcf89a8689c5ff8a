package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/fcgi"
	"testing"
)

// TestFastCGISplitAfterRewriteBreakAsNGINX: fastcgi_split_path_info's
// parts after "rewrite ... break", when the rewrite phase read them
// first ("set"). NGINX keeps the split in the request's module context
// (ngx_http_fastcgi_split), but its fastcgi handler makes that context
// anew, so the parameters and what is read after them split the
// rewritten URI, as mosaic's do; "set" kept the first split. (Where no
// fastcgi handler runs, NGINX goes on reading the first split: see
// fastcgi/README.md, fidelity12.)
func TestFastCGISplitAfterRewriteBreakAsNGINX(t *testing.T) {
	nginxPath(t)
	addr := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		env := fcgi.ProcessEnv(r)
		fmt.Fprintf(w, "split=%s before=%s", env["SPLIT"], env["BEFORE"])
	})
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return fmt.Sprintf(`access_log off;
		server { listen 127.0.0.1:%d;
			fastcgi_split_path_info ^(.+?\.php)(/.*)$;
			location /f/ {
				set $before "$fastcgi_script_name|$fastcgi_path_info";
				rewrite ^ /b.php/new break;
				fastcgi_param SPLIT "$fastcgi_script_name|$fastcgi_path_info";
				fastcgi_param BEFORE $before;
				fastcgi_param REQUEST_METHOD $request_method;
				fastcgi_param SERVER_PROTOCOL $server_protocol;
				fastcgi_param REQUEST_URI $request_uri;
				add_header X-Split "$fastcgi_script_name|$fastcgi_path_info";
				fastcgi_pass %s;
			}
		}`, port, addr)
	})
	for _, path := range []string{"/f/x.php/old"} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got[i] = fmt.Sprintf("%d %q X-Split %q", resp.StatusCode, b, resp.Header.Get("X-Split"))
		}
		// Both split the rewritten URI; "set" read the first split.
		want := `200 "split=/b.php|/new before=/f/x.php|/old" X-Split "/b.php|/new"`
		if got[0] != want || got[1] != want {
			t.Errorf("%s: mosaic %s, nginx %s, want %s", path, got[0], got[1], want)
		}
	}
}
