package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// php-fpm's workers, recycled every few requests (pm.max_requests),
// close the kept connections mosaic writes its requests on within the
// answer's first read; with HTTP/2 streams over TLS many at once, and
// HTTP/1.1 requests pipelined over TLS, no request fails, as none does
// through NGINX. (More kept connections than workers would hang both
// servers: a worker holds its kept connection while it waits.)
func TestFastCGIRecycledWorkersOverTLSAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	writeFile(t, filepath.Join(dir, "www", "p.php"), `<?php echo "hello ", $_GET['i'] ?? '', "\n";`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 4, "pm.max_requests = 3")
	shipFastCGIFile(t, dir, "fastcgi.conf")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`upstream php_%[1]s { server %[2]s; keepalive 2; }
			server { listen 127.0.0.1:%[3]d ssl http2; ssl_certificate %[5]s; ssl_certificate_key %[6]s; root %[4]s/www;
			location / { include %[4]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/p.php;
				fastcgi_keep_conn on; fastcgi_pass php_%[1]s; } }`,
			who, fpm.addr, port, dir, cert, key)
	})
	for j, port := range []int{mport, nport} {
		who := [2]string{"mosaic", "nginx"}[j]
		addr := "127.0.0.1:" + strconv.Itoa(port)
		tr := &http.Transport{ForceAttemptHTTP2: true, DialTLSContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}}}
			return d.DialContext(ctx, "tcp", addr)
		}}
		client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		for i := range 40 {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				resp, err := client.Get(fmt.Sprintf("https://a/r?i=%d", i))
				if err != nil {
					t.Errorf("%s, stream %d: %v", who, i, err)
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 200 || resp.ProtoMajor != 2 || string(b) != fmt.Sprintf("hello %d\n", i) {
					t.Errorf("%s, stream %d: %s %s %q", who, i, resp.Proto, resp.Status, b)
				}
			}()
		}
		wg.Wait()
		tr.CloseIdleConnections()
		var reqs []string
		for i := range 20 {
			reqs = append(reqs, fmt.Sprintf("GET /r?i=%d HTTP/1.1\r\nHost: a\r\n\r\n", i))
		}
		for i, a := range tlsPipelined(t, addr, reqs) {
			if want := fmt.Sprintf("200 OK\nhello %d\n", i); a != want {
				t.Errorf("%s, pipelined %d: %q, want %q", who, i, a, want)
			}
		}
	}
}

// pipelined sends reqs at once on one plain HTTP/1.1 connection to the
// loopback port and returns each answer's status and body.
func pipelined(t *testing.T, port int, reqs []string) []string {
	t.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return pipelineOn(t, c, reqs)
}

// tlsPipelined sends reqs at once on one HTTP/1.1 connection over TLS to
// addr and returns each answer's status and body.
func tlsPipelined(t *testing.T, addr string, reqs []string) []string {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return pipelineOn(t, c, reqs)
}
