package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClientClosedOverHTTP2AsNGINX: NGINX sends nothing for a 499, over
// HTTP/2 as over HTTP/1: "return 499" resets the stream (NGINX's
// ngx_http_finalize_request terminates the request), and a client that
// cancels its stream while the upstream is slow is logged "499 0". Over
// HTTP/2 mosaic answered "return 499" with a 499 page, and counted that
// page, written to a stream already gone, in $body_bytes_sent.
func TestClientClosedOverHTTP2AsNGINX(t *testing.T) {
	nginxPath(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}))
	defer slow.Close()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s '$request_uri $status $body_bytes_sent';
			access_log %s/%s.log s;
			server { listen 127.0.0.1:%d ssl http2; ssl_certificate %s; ssl_certificate_key %s;
				location /gone { return 499; }
				location /slow { proxy_pass http://%s; } }`,
			dir, who, port, cert, key, slow.Listener.Addr())
	})
	results := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
		client := &http.Client{Transport: tr}
		var answers []string
		for _, path := range []string{"/gone", "/slow"} {
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("https://127.0.0.1:%d%s", port, path), nil)
			resp, err := client.Do(req)
			if err != nil {
				answers = append(answers, "no answer")
			} else {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answers = append(answers, resp.Status)
			}
			cancel()
		}
		tr.CloseIdleConnections()
		results[who] = strings.Join(answers, ", ") + "; log: " + strings.Join(waitLog(t, filepath.Join(dir, who+".log"), 2), " | ")
	}
	if results["m"] != results["n"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["m"], results["n"])
	}
}
