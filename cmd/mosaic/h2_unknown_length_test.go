package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestH2UnknownLengthAsNGINX: over HTTP/2, an answer that came without a
// length (FastCGI, a chunked HTTP upstream, a fastcgi_cache hit of one)
// goes out without content-length, as NGINX's HTTP/2 header filter adds
// one only for a known length; net/http's writer counted a body that
// ended in its buffer. A HEAD gets none either.
func TestH2UnknownLengthAsNGINX(t *testing.T) {
	nginxPath(t)
	fcgiAddr, _, _ := unlengthedApps(t)
	httpAddr := unlengthedOrigin(t) // proxied as HTTP/1.1: chunked
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		if err := os.MkdirAll(filepath.Join(dir, who, "cache"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		return fmt.Sprintf(`fastcgi_cache_path %[3]s/%[4]s/cache keys_zone=fc:1m;
		server { listen 127.0.0.1:%[1]d http2;
			fastcgi_param REQUEST_METHOD $request_method; fastcgi_param REQUEST_URI $request_uri;
			fastcgi_param SERVER_PROTOCOL $server_protocol;
			location /fcgi/ { fastcgi_pass %[2]s; }
			location /cached/ { fastcgi_pass %[2]s; fastcgi_cache fc; fastcgi_cache_key $uri; fastcgi_cache_valid 200 1m; }
			location /http/ { proxy_pass http://%[5]s; proxy_http_version 1.1; }
		}`, port, fcgiAddr, dir, sub, httpAddr)
	})
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protos, Proxy: nil}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	answer := func(port int, method, path string) string {
		req, _ := http.NewRequest(method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), nil)
		resp, err := client.Do(req)
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return fmt.Sprintf("%s %s content-length %q body %q err %v", resp.Proto, resp.Status,
			resp.Header.Get("Content-Length"), body, err)
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/fcgi/x"}, {"HEAD", "/fcgi/x"}, {"GET", "/http/x"},
		{"GET", "/cached/x"}, {"GET", "/cached/x"}, {"HEAD", "/cached/x"}, // a miss, then hits
	} {
		if m, n := answer(mport, c.method, c.path), answer(nport, c.method, c.path); m != n {
			t.Errorf("%s %s:\nmosaic %s\n nginx %s", c.method, c.path, m, n)
		}
	}
}
