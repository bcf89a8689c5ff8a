package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// unlengthedRangeAnswer is one answer to raw on a new connection: status, framing,
// the range fields and the body.
func unlengthedRangeAnswer(t *testing.T, port int, raw string) string {
	t.Helper()
	resp, body, err := rawResponse(t, port, raw)
	return fmt.Sprintf("%s TE %v CL %q Accept-Ranges %q Content-Range %q body %q err %v", resp.Status,
		resp.TransferEncoding, resp.Header.Get("Content-Length"), resp.Header.Get("Accept-Ranges"),
		resp.Header.Get("Content-Range"), body, err)
}

// TestCacheUnknownLengthRangeAsNGINX: a cached answer that came without
// a length (a FastCGI answer without Content-Length, a chunked HTTP one),
// though its upstream offered ranges, is served whole to a Range request
// on a hit, chunked and without Accept-Ranges: NGINX's range filter
// leaves a response of unknown length alone (content_length_n -1).
func TestCacheUnknownLengthRangeAsNGINX(t *testing.T) {
	nginxPath(t)
	fcgiAddr := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Accept-Ranges", "bytes")
		io.WriteString(w, "hello fastcgi\n")
	})
	httpAddr := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nAccept-Ranges: bytes\r\n"+
			"Cache-Control: max-age=60\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"+
			"b\r\nhello http\n\r\n0\r\n\r\n")
	}).Addr()
	dir := t.TempDir()
	for _, who := range []string{"nginx", "mosaic"} {
		for _, sub := range []string{"fc", "pc"} {
			if err := os.MkdirAll(filepath.Join(dir, who, sub), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		sub := map[string]string{"n": "nginx", "m": "mosaic"}[who]
		return fmt.Sprintf(`fastcgi_cache_path %[3]s/%[4]s/fc keys_zone=fc:1m;
		proxy_cache_path %[3]s/%[4]s/pc keys_zone=pc:1m;
		server { listen 127.0.0.1:%[1]d;
			fastcgi_param REQUEST_METHOD $request_method; fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_param REQUEST_URI $request_uri;
			location /fcgi/ { fastcgi_pass %[2]s; fastcgi_cache fc; fastcgi_cache_key $uri; fastcgi_cache_valid 200 1m; }
			location /http/ { proxy_pass http://%[5]s; proxy_http_version 1.1; proxy_cache pc; }
		}`, port, fcgiAddr, dir, sub, httpAddr)
	})
	for _, p := range []string{"/fcgi/x", "/http/x"} {
		for _, raw := range []string{
			"GET " + p + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n", // the miss
			"GET " + p + " HTTP/1.1\r\nHost: a.test\r\nRange: bytes=0-2\r\nConnection: close\r\n\r\n",
			"GET " + p + " HTTP/1.1\r\nHost: a.test\r\nRange: bytes=0-1,4-5\r\nConnection: close\r\n\r\n",
			"GET " + p + " HTTP/1.1\r\nHost: a.test\r\nRange: bytes=100-\r\nConnection: close\r\n\r\n",
			"GET " + p + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
		} {
			m, n := unlengthedRangeAnswer(t, mport, raw), unlengthedRangeAnswer(t, nport, raw)
			if m != n {
				t.Errorf("%q:\nmosaic %s\n nginx %s", raw, m, n)
			}
		}
	}
}
