package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// pacedReader reads at most per bytes each every, as a slow but steady
// client does.
type pacedReader struct {
	r     io.Reader
	per   int
	every time.Duration
	left  int
}

func (p *pacedReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		time.Sleep(p.every)
		p.left = p.per
	}
	n, err := p.r.Read(b[:min(len(b), p.left)])
	p.left -= n
	return n, err
}

// TestSendTimeoutPerWriteAsNGINX: NGINX arms send_timeout for each write
// that cannot finish (ngx_http_write_filter sets the timer when data stays
// buffered, ngx_http_writer re-arms it on each write event), not for the
// whole response: a client that reads slowly but steadily, for much longer
// than send_timeout in all, gets the whole body, of a file as of a
// proxied answer; one that stops reading for longer is cut. send_timeout
// is 1s, ten times the reader's pause: NGINX keeps a timer that would move
// by less than 300 ms (ngx_add_timer, NGX_TIMER_LAZY_DELAY), so its cut can
// come 200 ms after the last write with 500 ms, which a loaded machine's
// scheduling delays reached (2 runs of 3 cut NGINX's steady reader).
func TestSendTimeoutPerWriteAsNGINX(t *testing.T) {
	nginxPath(t)
	const size = 16 << 20 // far more than the socket buffers hold
	dir := t.TempDir()
	root := filepath.Join(dir, "www")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "big"), strings.Repeat("0123456789abcdef", size/16))
	origin := bigOrigin(t, size)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`send_timeout 1s;
			server { listen 127.0.0.1:%d; root %s;
				location /proxied { proxy_pass http://%s/; } }`, port, root, origin)
	})
	// get returns how many body bytes a client got that waits stall
	// before reading, then reads 512 KB each 100 ms (16 MB: 3.2 s).
	get := func(port int, path string, stall time.Duration) int64 {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Error(err)
			return -1
		}
		defer c.Close()
		_ = c.(*net.TCPConn).SetReadBuffer(64 << 10)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: t\r\n\r\n", path)
		time.Sleep(stall)
		resp, err := http.ReadResponse(bufio.NewReader(&pacedReader{r: c, per: 512 << 10, every: 100 * time.Millisecond}), nil)
		if err != nil {
			return 0
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		return n
	}
	type result struct {
		who, path string
		stall     time.Duration
		n         int64
	}
	var (
		mu  sync.Mutex
		got []result
		wg  sync.WaitGroup
	)
	for _, who := range []string{"mosaic", "nginx"} {
		port := mport
		if who == "nginx" {
			port = nport
		}
		for _, path := range []string{"/big", "/proxied/big"} {
			for _, stall := range []time.Duration{0, 3 * time.Second} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := get(port, path, stall)
					mu.Lock()
					got = append(got, result{who, path, stall, n})
					mu.Unlock()
				}()
			}
		}
	}
	wg.Wait()
	for _, r := range got {
		switch {
		case r.stall == 0 && r.n != size:
			t.Errorf("%s %s: a steady slow reader got %d of %d bytes", r.who, r.path, r.n, size)
		case r.stall > 0 && r.n >= size:
			t.Errorf("%s %s: a reader stalled for %v got all %d bytes; send_timeout 1s should cut it", r.who, r.path, r.stall, r.n)
		}
	}
}

// bigOrigin serves size bytes to any request, in 64 KB writes, and
// returns its address.
func bigOrigin(t *testing.T, size int) string {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(size))
		chunk := []byte(strings.Repeat("x", 64<<10))
		for sent := 0; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}
