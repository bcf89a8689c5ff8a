package main

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFastCGIBuffersSlowClientAsNGINX: an answer of 4 MB, far more than
// fastcgi_buffers hold, to a client that reads slowly: both servers send
// the same whole body, with the answer buffered in memory only
// (fastcgi_max_temp_file_size 0: NGINX's event pipe then waits for the
// client, ngx_event_pipe_read_upstream, and writes no temporary file) and
// with a temporary file of 1 MB at most, which both then open. The
// listeners' sndbuf=64k keeps the answer out of the kernel: Linux lets a
// loopback socket's send buffer grow to tcp_wmem's 4 MB, which held the
// whole answer on a 6.18 kernel and left both servers nothing to store. mosaic
// takes fastcgi_temp_file_write_size with a notice (fastcgi README).
func TestFastCGIBuffersSlowClientAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		t.Fatal(err)
	}
	// 65536 numbered lines of 64 bytes: a lost or moved piece shows.
	writeFile(t, filepath.Join(www, "big.php"), `<?php for ($i = 0; $i < 65536; $i++) { printf("%063d\n", $i); }`)
	fpm := startFPM(t, filepath.Join(dir, "fpm"), filepath.Join(dir, "php.sock"), 2)
	shipFastCGIFile(t, dir, "fastcgi.conf")
	temp := func(who, loc string) string { return filepath.Join(dir, "temp-"+who+"-"+loc) }
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%[1]d sndbuf=64k; root %[2]s/www;
			location /mem/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/big.php;
				fastcgi_buffers 4 8k; fastcgi_max_temp_file_size 0; fastcgi_temp_path %[4]s; fastcgi_pass %[3]s; }
			location /file/ { include %[2]s/fastcgi.conf; fastcgi_param SCRIPT_FILENAME $document_root/big.php;
				fastcgi_buffers 4 8k; fastcgi_max_temp_file_size 1m; fastcgi_temp_file_write_size 16k;
				fastcgi_temp_path %[5]s; fastcgi_pass %[3]s; } }`,
			port, dir, fpm.addr, temp(who, "mem"), temp(who, "file"))
	})
	// get reads the answer at 256 KB each 50 ms (4 MB: 0.8 s), and
	// says how many files in the location's temporary directory were
	// open a moment after the answer began (a file may be unlinked at
	// once, so the servers' open files are counted).
	get := func(port int, path, tempDir string) (status int, sum string, n int64, files int) {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", path)
		resp, err := http.ReadResponse(bufio.NewReader(&pacedReader{r: c, per: 256 << 10, every: 50 * time.Millisecond}), nil)
		if err != nil {
			t.Fatalf("%s on %d: %v", path, port, err)
		}
		time.Sleep(300 * time.Millisecond)
		files = openUnder(tempDir)
		h := sha256.New()
		n, _ = io.Copy(h, resp.Body)
		return resp.StatusCode, fmt.Sprintf("%x", h.Sum(nil)), n, files
	}
	for _, loc := range []string{"mem", "file"} {
		ms, mh, mn, mf := get(mport, "/"+loc+"/x", temp("m", loc))
		ns, nh, nn, nf := get(nport, "/"+loc+"/x", temp("n", loc))
		if ns != 200 || nn != 64<<16 {
			t.Fatalf("the check itself: %s: nginx %d, %d bytes", loc, ns, nn)
		}
		if ms != ns || mh != nh || mn != nn {
			t.Errorf("%s: mosaic %d, %d bytes %s; nginx %d, %d bytes %s", loc, ms, mn, mh, ns, nn, nh)
		}
		t.Logf("%s: temporary files open mid-answer: mosaic %d, nginx %d", loc, mf, nf)
		switch {
		case loc == "mem" && (mf != 0 || nf != 0):
			t.Errorf("fastcgi_max_temp_file_size 0: temporary files mosaic %d, nginx %d; want none", mf, nf)
		case loc == "file" && nf == 0:
			t.Errorf("the check itself: nginx wrote no temporary file for a slow client")
		case loc == "file" && mf == 0:
			t.Errorf("fastcgi_max_temp_file_size 1m: mosaic held no temporary file for a slow client; nginx %d", nf)
		}
	}
}

// openUnder counts the files under dir that a process this test can see
// holds open, deleted ones included.
func openUnder(dir string) int {
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	n := 0
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && strings.HasPrefix(target, dir+"/") {
			n++
		}
	}
	return n
}
