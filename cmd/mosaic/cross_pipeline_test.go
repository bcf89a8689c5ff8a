package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Requests pipelined in one write, each header whole in the read buffer
// with the next request (and a body) after it, through FastCGI and a
// brotli-compressed one-shot body over 256 KiB: the answers are NGINX's.
func TestFastCGIPipelinedBodiesAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "echo.php"), `<?php $b = file_get_contents('php://input');
echo $_SERVER['REQUEST_METHOD'], ' ', $_SERVER['REQUEST_URI'], ' ', strlen($b), ' [', $b, "]\n";`)
	writeFile(t, filepath.Join(dir, "www", "big.php"), `<?php $s = '';
for ($i = 0; $i < 30000; $i++) { $s .= "line " . ($i * 7919 % 10007) . "\n"; }
header('Content-Type: text/plain'); header('Content-Length: ' . strlen($s)); echo $s;`)
	port := freePort(t)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), "127.0.0.1:"+strconv.Itoa(port), 4)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	main := "load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;"
	mport, nport := startBothMain(t, dir, main, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			brotli on; brotli_types text/plain; brotli_comp_level 5; brotli_window 1k; brotli_min_length 1;
			location ~ \.php$ { include %s/fastcgi.conf; fastcgi_pass %s; } }`, port, dir, dir, fpm.addr)
	})
	reqs := []string{
		"POST /echo.php?a=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello",
		"GET /big.php HTTP/1.1\r\nHost: a\r\nAccept-Encoding: br\r\n\r\n",
		"POST /echo.php?b=2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"GET /echo.php?c=3 HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET /big.php HTTP/1.1\r\nHost: a\r\nAccept-Encoding: br\r\n\r\n",
		"GET /echo.php?d=4 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
	}
	get := func(port int) []string {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(20 * time.Second))
		io.WriteString(c, strings.Join(reqs, ""))
		br := bufio.NewReader(c)
		var out []string
		for _, rq := range reqs {
			method, _, _ := strings.Cut(rq, " ")
			req, _ := http.NewRequest(method, "/", nil)
			resp, err := http.ReadResponse(br, req)
			if err != nil {
				t.Errorf("port %d: %v", port, err)
				return out
			}
			body, _ := io.ReadAll(resp.Body)
			ce := resp.Header.Get("Content-Encoding")
			plain := decode(t, ce, body)
			out = append(out, fmt.Sprintf("%s %s %d %x", resp.Status, ce, len(plain), plain[:min(64, len(plain))]))
		}
		return out
	}
	m, n := get(mport), get(nport)
	if fmt.Sprint(m) != fmt.Sprint(n) {
		t.Errorf("mosaic:\n%q\nnginx:\n%q", m, n)
	}
}
