package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/fcgi"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFastCGISplitLimitAsNGINX: a fastcgi_split_path_info whose match
// runs away on a long URI (NGINX: PCRE2's match limit; mosaic: its time
// limit) logs an alert, "pcre2_match() failed: ... on <URI>", and
// leaves $fastcgi_script_name and $fastcgi_path_info empty: NGINX's
// getters fail and the request goes on, its parameters sent empty.
// mosaic took the failure for no match and sent the whole URI as the
// script's name.
func TestFastCGISplitLimitAsNGINX(t *testing.T) {
	nginxPath(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go fcgi.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env := fcgi.ProcessEnv(r)
		fmt.Fprintf(w, "script=%q info=%q", env["P_SCRIPT"], env["P_INFO"])
	}))
	const pattern = `^(/(?!x)(?:a|aa)+)(/?)$`
	dir := t.TempDir()
	logs := map[string]string{}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs[who] = filepath.Join(dir, who+"-error.log")
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; error_log %s alert;
			location / { fastcgi_split_path_info "%s";
				fastcgi_param REQUEST_METHOD $request_method; fastcgi_param SERVER_PROTOCOL $server_protocol;
				fastcgi_param REQUEST_URI $request_uri;
				fastcgi_param P_SCRIPT $fastcgi_script_name; fastcgi_param P_INFO $fastcgi_path_info;
				fastcgi_pass %s; } }`, port, logs[who], pattern, ln.Addr())
	})
	for _, uri := range []string{"/" + strings.Repeat("a", 4<<10) + "!", "/aaa/", "/b"} {
		req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", uri)
		m, n := rangeAnswer(sendUntilClosed(t, mport, req)), rangeAnswer(sendUntilClosed(t, nport, req))
		if m != n {
			t.Errorf("%.20s...:\nmosaic %s\nNGINX  %s", uri, m, n)
		}
	}
	for who, path := range logs {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			b, _ := os.ReadFile(path)
			// (Both cut the line at 2 KB, inside the URI.)
			if strings.Contains(string(b), "pcre2_match() failed: ") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no alert for the runaway split:\n%.400s", who, b)
			}
		}
	}
}
