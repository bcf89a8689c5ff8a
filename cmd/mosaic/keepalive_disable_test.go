package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

const kaDisableServer = `
    server {
        listen 127.0.0.1:{port};
        location / { return 200 "ok"; }
        location /none/ { keepalive_disable none; return 200 "ok"; }
        location /safari/ { keepalive_disable safari; return 200 "ok"; }
        location /both/ { keepalive_disable msie6 safari; return 200 "ok"; }
    }
`

// TestKeepaliveDisableMatchesNGINX: keepalive_disable (default msie6)
// closes the connection after a POST from MSIE 4-6 and, with safari,
// after any request from Safari on macOS, as NGINX decides it.
func TestKeepaliveDisableMatchesNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(_ string, port int) string {
		return strings.ReplaceAll(kaDisableServer, "{port}", fmt.Sprint(port))
	})
	const (
		msie6   = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"
		msieSV1 = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)"
		safari  = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"
		chrome  = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
	)
	closes := func(port int, method, path, ua string) bool {
		t.Helper()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		var body io.Reader
		if method == "POST" {
			body = strings.NewReader("a=1")
		}
		req, _ := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), body)
		req.Header.Set("User-Agent", ua)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s %s (%s): %v", method, path, ua, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.Close
	}
	want := map[string]bool{} // what the test expects of NGINX, to catch a change in the cases
	want["POST / msie6"], want["POST /both/ msie6"], want["GET /safari/ safari"], want["POST /safari/ safari"] = true, true, true, true
	want["GET /both/ safari"], want["POST /both/ safari"] = true, true
	for _, path := range []string{"/", "/none/", "/safari/", "/both/"} {
		for _, method := range []string{"GET", "POST"} {
			for name, ua := range map[string]string{"msie6": msie6, "msieSV1": msieSV1, "safari": safari, "chrome": chrome} {
				what := method + " " + path + " " + name
				m, n := closes(mport, method, path, ua), closes(nport, method, path, ua)
				if m != n {
					t.Errorf("%s: mosaic closes %v, NGINX %v", what, m, n)
				}
				if n != want[what] {
					t.Errorf("%s: NGINX closes %v, the test expects %v", what, n, want[what])
				}
			}
		}
	}
}
