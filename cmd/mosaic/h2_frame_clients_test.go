package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/http2"
)

// TestH2ClientBodyAt16KFrames (review of audit6): with frames of at most
// 16 KB, a Go HTTP/2 client still sends a body of a megabyte (it splits
// it at the server's SETTINGS_MAX_FRAME_SIZE), and a response of a
// megabyte still arrives.
func TestH2ClientBodyAt16KFrames(t *testing.T) {
	t.Parallel()
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		w.Header().Set("X-Got", strconv.FormatInt(n, 10))
		w.Write(make([]byte, 1<<20))
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { ssl_certificate %s; ssl_certificate_key %s; client_max_body_size 4m;
		server { listen 127.0.0.1:{port} ssl http2; location / { proxy_pass %s; } } }`, cert, key, origin.URL), port)
	client := &http.Client{Transport: &http2.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Post(fmt.Sprintf("https://127.0.0.1:%d/up", port), "application/octet-stream",
		strings.NewReader(strings.Repeat("x", 1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("X-Got") != strconv.Itoa(1<<20) || n != 1<<20 {
		t.Errorf("POST of 1 MiB over h2: %d, origin got %s, answer %d bytes, %v", resp.StatusCode, resp.Header.Get("X-Got"), n, err)
	}
}
