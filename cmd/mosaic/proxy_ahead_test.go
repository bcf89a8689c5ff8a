package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// aheadOrigin serves /big, a body larger than the sockets between it and
// a client can hold, and tells when its handler has written all of it,
// or when a write failed (the proxy gave the response up); it counts the
// connections made to it.
type aheadOrigin struct {
	*httptest.Server
	done, gone chan struct{}
	conns      atomic.Int32
}

const aheadBody = 48 << 20

func newAheadOrigin(t *testing.T) *aheadOrigin {
	o := &aheadOrigin{done: make(chan struct{}, 4), gone: make(chan struct{}, 4)}
	o.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(aheadBody))
		chunk := []byte(strings.Repeat("0123456789abcdef", 4096))
		for sent := 0; sent < aheadBody; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				select {
				case o.gone <- struct{}{}:
				default: // nobody waits for more than a few
				}
				return
			}
		}
		o.done <- struct{}{}
	}))
	o.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			o.conns.Add(1)
		}
	}
	o.Start()
	t.Cleanup(o.Close)
	return o
}

// stalledGet sends a GET for path (a large body), reads the first kilobyte and then
// nothing: a client on a slow link.
func stalledGet(t *testing.T, port int, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.(*net.TCPConn).SetReadBuffer(64 << 10)
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: a\r\n\r\n", path)
	br := bufio.NewReaderSize(c, 1024)
	if _, err := br.Peek(1024); err != nil {
		t.Fatalf("GET %s from port %d: %v", path, port, err)
	}
	return c, br
}

// readWhole reads the rest of the stalled response and checks its body.
func readWhole(t *testing.T, who string, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != aheadBody {
		t.Fatalf("%s: body of %d bytes (%v), want %d", who, n, err, aheadBody)
	}
}

func originDone(o *aheadOrigin, within time.Duration) bool {
	select {
	case <-o.done:
		return true
	default: // within may be spent: the origin is looked at first
	}
	select {
	case <-o.done:
		return true
	case <-time.After(within):
		return false
	}
}

// TestProxyReadsAheadOfSlowClientAsNGINX: with buffering on, NGINX reads
// an upstream's answer to its end into its buffers and a temporary file
// while a slow client takes it, so that the upstream (an application's
// worker) is free at once; with proxy_max_temp_file_size 0 it reads only
// as far as its buffers. mosaic does the same, and a kept-alive upstream
// connection serves the next request while the slow client still reads.
func TestProxyReadsAheadOfSlowClientAsNGINX(t *testing.T) {
	cases := []struct {
		name, conf string
		free       bool
	}{
		{"temporary file", "", true},
		{"buffers only", "proxy_max_temp_file_size 0; proxy_buffers 4 8k;", false},
		// Reads of output_buffers' size, larger than all of proxy_buffers.
		{"buffers only, large reads", "proxy_max_temp_file_size 0; proxy_buffers 8 4k; output_buffers 1 128k;", false},
		{"buffering off", "proxy_buffering off;", false},
	}
	// Every case's servers start and both their clients stall first,
	// then all the origins are watched until one deadline: each has at
	// least its time since its own request, and the wait that an origin
	// is not done (2 s) is waited once for the four cases and two
	// servers, not once a case.
	type stalled struct {
		port   int
		origin *aheadOrigin
		conn   net.Conn
		br     *bufio.Reader
	}
	sides := make([]map[string]*stalled, len(cases))
	for i, c := range cases {
		dir := t.TempDir()
		origins := map[string]*aheadOrigin{"m": newAheadOrigin(t), "n": newAheadOrigin(t)}
		mport, nport := startBoth(t, dir, func(who string, port int) string {
			return fmt.Sprintf(`upstream o { server %s; keepalive 4; }
				server { listen 127.0.0.1:%d;
					location / { proxy_pass http://o; proxy_http_version 1.1; proxy_set_header Connection "";
						proxy_temp_path %s 1 2; %s } }`,
				origins[who].Listener.Addr(), port, filepath.Join(dir, who+"-temp"), c.conf)
		})
		sides[i] = map[string]*stalled{"m": {port: mport, origin: origins["m"]}, "n": {port: nport, origin: origins["n"]}}
		for _, s := range sides[i] {
			s.conn, s.br = stalledGet(t, s.port, "/big")
		}
	}
	// An origin the proxy reads to its end is done within milliseconds
	// on loopback; 5 s leaves room for a loaded machine. That it is not
	// done is a wait of its own: 2 s.
	start := time.Now()
	// signalled: the origin's one "done" was taken here, so a failing
	// case does not wait for it again below (and hang until the
	// package's timeout).
	signalled := make([]map[string]bool, len(cases))
	for i, c := range cases {
		within := 2 * time.Second
		if c.free {
			within = 5 * time.Second
		}
		signalled[i] = map[string]bool{}
		for who, s := range sides[i] {
			got := originDone(s.origin, time.Until(start.Add(within)))
			signalled[i][who] = got
			if got != c.free {
				t.Errorf("%s, %s: the origin had written the whole body while the client stalled: %v, want %v", c.name, who, got, c.free)
			}
		}
	}
	for i, c := range cases {
		if c.free {
			// The upstream connection is back in the pool once the proxy
			// has read what the sockets still hold: the next request
			// takes it. One wait for both servers.
			time.Sleep(time.Second)
		}
		for who, s := range sides[i] {
			if c.free {
				resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/big", s.port))
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				<-s.origin.done
				if n := s.origin.conns.Load(); n != 1 {
					t.Errorf("%s, %s: %d connections to the origin, want 1 (kept alive, reused)", c.name, who, n)
				}
			}
			readWhole(t, c.name+", "+who, s.conn, s.br)
			if !c.free && !signalled[i][who] {
				<-s.origin.done
			}
		}
	}
}

// TestFastCGISlowClientFreesWorkerAsNGINX: behind NGINX, a php-fpm pool
// of one worker serves the next request while a slow client still takes
// a large page, its answer read into NGINX's buffers and temporary file.
// The same through mosaic.
func TestFastCGISlowClientFreesWorkerAsNGINX(t *testing.T) {
	nginxPath(t)
	fpmPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "big.php"), fmt.Sprintf(`<?php
header('Content-Length: %d');
$s = str_repeat('0123456789abcdef', 4096);
for ($i = 0; $i < %d; $i++) { echo $s; }
`, aheadBody, aheadBody/(16*4096)))
	writeFile(t, filepath.Join(dir, "www", "fast.php"), `<?php echo "ok";`)
	fpms := map[string]*phpFPM{}
	for _, who := range []string{"m", "n"} {
		fpms[who] = startFPM(t, filepath.Join(dir, "fpm-"+who), filepath.Join(dir, who+".sock"), 1)
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location ~ \.php$ { fastcgi_pass %s; fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name; fastcgi_param REQUEST_METHOD $request_method;
				fastcgi_temp_path %s; } }`, port, dir, fpms[who].addr, filepath.Join(dir, who+"-temp"))
	})
	for who, port := range map[string]int{"m": mport, "n": nport} {
		conn, br := stalledGet(t, port, "/big.php")
		client := &http.Client{Timeout: 5 * time.Second}
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/fast.php", port))
		if err != nil {
			t.Errorf("%s: the next request while a client stalls: %v", who, err)
		} else {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "ok" {
				t.Errorf("%s: next request answered %q, want \"ok\"", who, b)
			}
		}
		readWhole(t, who, conn, br)
	}
}

// TestProxyTempFileFailsAsNGINX: when the temporary file a response is
// read ahead into cannot be made (proxy_temp_path is not a directory any
// more), NGINX gives the response up ([crit] open() failed): the client
// gets it cut short, never whole. mosaic does the same rather than go on
// at the client's pace.
func TestProxyTempFileFailsAsNGINX(t *testing.T) {
	dir := t.TempDir()
	origins := map[string]*aheadOrigin{"m": newAheadOrigin(t), "n": newAheadOrigin(t)}
	temp := func(who string) string { return filepath.Join(dir, who+"-temp") }
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
				location / { proxy_pass http://%s; proxy_temp_path %s; } }`,
			port, origins[who].Listener.Addr(), temp(who))
	})
	for who, port := range map[string]int{"m": mport, "n": nport} {
		// A file where the directory was: no temporary file can be made.
		if err := os.RemoveAll(temp(who)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(temp(who), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		conn, br := stalledGet(t, port, "/big")
		// The client reads on once the server has given the response
		// up (the origin's write fails), or after a second, when it has
		// had the time to fill its buffers and fail to make the file.
		select {
		case <-origins[who].gone:
		case <-time.After(time.Second):
		}
		conn.SetDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && n == aheadBody {
			t.Errorf("%s: the whole body of %d bytes came, want it cut short", who, n)
		}
	}
}

// TestTempPathLevelsAsNGINX: a *_temp_path takes up to three levels of
// any width whose widths add up to at most 10 (the digits of a temporary
// file's number), as NGINX's; a level of 0 or wider ones are refused.
func TestTempPathLevelsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, line := range []string{
		"proxy_temp_path t 3;", "proxy_temp_path t 5 5;", "client_body_temp_path b 3 1;",
		"fastcgi_temp_path f 2 2 2;", "proxy_temp_path t 6 5;", "proxy_temp_path t 0;",
		"client_body_temp_path b 4 4 3;",
	} {
		mout, err, nginx := testBoth(t, dir, i, line)
		if (err == nil) != (nginx == "") {
			t.Errorf("%q:\nmosaic %s (%v)\nnginx  %s", line, mout, err, nginx)
		}
	}
}
