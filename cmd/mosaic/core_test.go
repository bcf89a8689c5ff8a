package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func do(t *testing.T, method, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	return doRequest(t, req)
}

// doRequest sends req without following redirects and reads the body.
func doRequest(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestStaticThroughBinary(t *testing.T) {
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	writeFile(t, filepath.Join(site, "index.html"), "<h1>home</h1>")
	writeFile(t, filepath.Join(site, "app.js"), "console.log(1);")
	writeFile(t, filepath.Join(site, "docs/index.html"), "docs")
	writeFile(t, filepath.Join(site, "data.txt"), "0123456789")
	writeFile(t, filepath.Join(dir, "outside.txt"), "secret")
	writeFile(t, filepath.Join(dir, "images/logo.svg"), "<svg/>")
	os.Symlink(filepath.Join(dir, "outside.txt"), filepath.Join(site, "link-out"))
	port := freePort(t)
	startMosaic(t, dir, `http {
		server { listen 127.0.0.1:{port}; root site;
			location /img/ { alias images/; }
			location = /gone { return 410; }
		}
	}`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	resp, body := do(t, "GET", base+"/", nil)
	if resp.StatusCode != 200 || body != "<h1>home</h1>" || resp.Header.Get("Content-Type") != "text/html" {
		t.Fatalf("index: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	resp, _ = do(t, "GET", base+"/app.js", nil)
	etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.Header.Get("Content-Type") != "application/javascript" || !strings.HasPrefix(etag, `"`) || lm == "" {
		t.Fatalf("js headers: %v", resp.Header)
	}
	if r, _ := do(t, "GET", base+"/app.js", map[string]string{"If-None-Match": etag}); r.StatusCode != 304 {
		t.Fatalf("INM: %d", r.StatusCode)
	}
	if r, _ := do(t, "GET", base+"/app.js", map[string]string{"If-Modified-Since": lm}); r.StatusCode != 304 {
		t.Fatalf("IMS: %d", r.StatusCode)
	}
	if r, _ := do(t, "GET", base+"/app.js", map[string]string{"If-Match": `"nope"`}); r.StatusCode != 412 {
		t.Fatalf("If-Match: %d", r.StatusCode)
	}
	if r, b := do(t, "GET", base+"/data.txt", map[string]string{"Range": "bytes=2-4"}); r.StatusCode != 206 || b != "234" {
		t.Fatalf("range: %d %q", r.StatusCode, b)
	}
	if r, _ := do(t, "GET", base+"/data.txt", map[string]string{"Range": "bytes=50-60"}); r.StatusCode != 416 || r.Header.Get("Content-Range") != "bytes */10" {
		t.Fatalf("416: %d %v", r.StatusCode, r.Header)
	}
	if r, b := do(t, "HEAD", base+"/data.txt", nil); r.StatusCode != 200 || b != "" || r.ContentLength != 10 {
		t.Fatalf("HEAD: %d %q %d", r.StatusCode, b, r.ContentLength)
	}
	if r, _ := do(t, "GET", base+"/docs?x=1", nil); r.StatusCode != 301 || !strings.HasSuffix(r.Header.Get("Location"), "/docs/?x=1") {
		t.Fatalf("dir redirect: %d %q", r.StatusCode, r.Header.Get("Location"))
	}
	if r, b := do(t, "GET", base+"/img/logo.svg", nil); r.StatusCode != 200 || b != "<svg/>" || r.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("alias: %d %q", r.StatusCode, b)
	}
	if r, _ := do(t, "GET", base+"/missing", nil); r.StatusCode != 404 {
		t.Fatalf("missing: %d", r.StatusCode)
	}
	if r, b := do(t, "GET", base+"/link-out", nil); r.StatusCode != 403 || strings.Contains(b, "secret") {
		t.Fatalf("symlink out of root: %d %q", r.StatusCode, b)
	}
	if r, _ := do(t, "GET", base+"/gone", nil); r.StatusCode != 410 {
		t.Fatalf("return 410: %d", r.StatusCode)
	}
	// Raw request lines that net/http clients would clean up first.
	for _, target := range []string{"/../outside.txt", "/%2e%2e/outside.txt", "/img/..%2f..%2foutside.txt", "/img/../../outside.txt"} {
		status, body := rawGet(t, port, target)
		if status == 200 || strings.Contains(body, "secret") {
			t.Errorf("%s: %d %q", target, status, body)
		}
	}
}

// rawGet sends a request line exactly as given.
func rawGet(t *testing.T, port int, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestProxyThroughBinary(t *testing.T) {
	var conns atomic.Int32
	// The second event waits until the test has read the first: the first
	// must arrive while the origin is still sending.
	firstRead := make(chan struct{})
	origin := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/slow":
			// Past the 500ms proxy_read_timeout; mosaic's 504 closes the
			// upstream connection, which ends the wait (origin.Close
			// waits for this handler).
			select {
			case <-time.After(3 * time.Second):
			case <-r.Context().Done():
			}
		case r.URL.Path == "/events":
			f := w.(http.Flusher)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: one\n\n")
			f.Flush()
			select {
			case <-firstRead:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, "data: two\n\n")
			return
		}
		w.Header().Set("X-Seen-Host", r.Host)
		w.Header().Set("X-Seen-Conn", r.Header.Get("Connection"))
		w.Header().Set("X-Seen-Custom", r.Header.Get("X-Custom"))
		fmt.Fprintf(w, "%s %s", r.Method, r.URL.RequestURI())
	}))
	origin.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	origin.Start()
	defer origin.Close()
	var release sync.Once
	defer release.Do(func() { close(firstRead) }) // before origin.Close waits for /events
	oaddr := origin.Listener.Addr().String()
	dead := refusedPort(t)

	dir := t.TempDir()
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		upstream pool { server %[1]s; keepalive 4; }
		server { listen 127.0.0.1:{port};
			location /plain/ { proxy_pass http://%[1]s; }
			location /name/ { proxy_pass http://%[1]s/remote/; proxy_set_header X-Custom "via $host"; }
			location /pool/ { proxy_pass http://pool/; proxy_http_version 1.1; proxy_set_header Connection ""; }
			location /dead/ { proxy_pass http://127.0.0.1:%[2]d; }
			location /slow { proxy_pass http://%[1]s; proxy_read_timeout 500ms; }
			location /events { proxy_pass http://%[1]s; proxy_buffering off; }
		}
	}`, oaddr, dead), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	r, b := do(t, "GET", base+"/plain/x?a=1", nil)
	if r.StatusCode != 200 || b != "GET /plain/x?a=1" || r.Header.Get("X-Seen-Host") != oaddr || r.Header.Get("X-Seen-Conn") != "close" {
		t.Fatalf("plain: %d %q %v", r.StatusCode, b, r.Header)
	}
	r, b = do(t, "GET", base+"/name/y?q=2", map[string]string{"Host": "front.test"})
	if b != "GET /remote/y?q=2" || r.Header.Get("X-Seen-Custom") != "via front.test" {
		t.Fatalf("replace: %q %v", b, r.Header)
	}
	before := conns.Load()
	for i := 0; i < 5; i++ {
		if _, b := do(t, "GET", base+"/pool/k", nil); b != "GET /k" {
			t.Fatalf("pool: %q", b)
		}
	}
	if n := conns.Load() - before; n != 1 {
		t.Fatalf("keepalive: %d origin connections for 5 requests, want 1", n)
	}
	if r, _ := do(t, "GET", base+"/dead/", nil); r.StatusCode != 502 {
		t.Fatalf("refused: %d", r.StatusCode)
	}
	start := time.Now()
	if r, _ := do(t, "GET", base+"/slow", nil); r.StatusCode != 504 || time.Since(start) > 2*time.Second {
		t.Fatalf("timeout: %d after %v", r.StatusCode, time.Since(start))
	}
	// proxy_buffering off: the first event arrives before the origin ends.
	// The request goes inside the bound too: a buffered proxy sends
	// nothing, not even the header, until proxy_read_timeout (60 s) ends
	// the held response, and the line would then be there at once.
	lines := make(chan string, 1)
	go func() {
		resp, err := http.Get(base + "/events")
		if err != nil {
			lines <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		line, _ := bufio.NewReader(resp.Body).ReadString('\n')
		lines <- line
	}()
	// A time bound on the read could fail on a loaded machine; with
	// the origin holding the rest the order is certain, and a buffered
	// stream does not deliver the line within it.
	select {
	case line := <-lines:
		if line != "data: one\n" {
			t.Fatalf("first event %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first event is held back until the origin ends")
	}
	release.Do(func() { close(firstRead) })
}

func TestGracefulStopFinishesInFlight(t *testing.T) {
	port := stopDuringSlowRequest(t, "")
	// New connections are refused once stopped.
	if _, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		t.Fatal("still accepting after stop")
	}
}

// stopDuringSlowRequest starts mosaic with the main-level directives
// main, sends a SIGTERM while a proxied request of 700 ms runs, and
// checks that the request finishes and the process exits. It returns
// the port mosaic listened on.
func stopDuringSlowRequest(t *testing.T, main string) int {
	t.Helper()
	entered := make(chan struct{}, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		time.Sleep(700 * time.Millisecond)
		fmt.Fprint(w, "finished")
	}))
	t.Cleanup(origin.Close)
	port := freePort(t)
	p := startMosaic(t, t.TempDir(), fmt.Sprintf(`%s
		http { server { listen 127.0.0.1:{port}; location / { proxy_pass %s; } } }`, main, origin.URL), port)
	done := make(chan string, 1)
	go func() {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- string(b)
	}()
	// The stop must find the request in flight: a fixed pause lost to a
	// client goroutine that ran late on a loaded machine, and the request
	// was refused after the stop.
	select {
	case <-entered:
	case got := <-done:
		t.Fatalf("the request ended before the stop: %q", got)
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if got := <-done; got != "finished" {
		t.Fatalf("in-flight request: %q", got)
	}
	waitExit(t, p)
	return port
}

// worker_shutdown_timeout bounds a graceful stop: a request still running
// when it passes is cut and the process exits, as NGINX's workers do.
func TestWorkerShutdownTimeout(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer origin.Close()
	defer close(release)
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, fmt.Sprintf(`worker_shutdown_timeout 500ms;
		http { server { listen 127.0.0.1:{port}; location / { proxy_pass %s; } } }`, origin.URL), port)
	go http.Get(fmt.Sprintf("http://127.0.0.1:%d/", port))
	select { // the stop finds the request in flight
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the request did not reach the origin")
	}
	start := time.Now()
	p.cmd.Process.Signal(syscall.SIGTERM)
	waitExit(t, p)
	if d := time.Since(start); d < 400*time.Millisecond || d > 5*time.Second {
		t.Errorf("stopped after %v, want about 500ms", d)
	}
}

// worker_shutdown_timeout 0 is no limit, as in NGINX, which arms its
// shutdown timer only for a time other than 0: a graceful stop still lets
// the request in flight finish rather than cut it at once.
func TestWorkerShutdownTimeoutZero(t *testing.T) {
	stopDuringSlowRequest(t, "worker_shutdown_timeout 0;")
}

// waitExit waits for p to exit after a SIGTERM and fails the test unless it
// exits cleanly; the exit stays in p.done for the cleanup.
func waitExit(t *testing.T, p *proc) {
	t.Helper()
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
		p.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

// selfSigned writes a self-signed certificate for "mosaic.test" and its
// key into dir.
func selfSigned(t *testing.T, dir string) (certPath, keyPath string) {
	t.Helper()
	return testpki.WriteKeyPair(t, dir, "mosaic", testpki.SelfSigned(t, "mosaic.test"))
}

func TestTLSAndHTTP2(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { server { listen 127.0.0.1:{port} ssl http2; server_name mosaic.test;
		ssl_certificate %s; ssl_certificate_key %s;
		location / { return 200 "proto=$server_protocol scheme=$scheme https=$https"; } } }`, cert, key), port)
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"},
		ForceAttemptHTTP2: true,
	}}
	resp, err := client.Get(fmt.Sprintf("https://127.0.0.1:%d/", port))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.ProtoMajor != 2 || string(b) != "proto=HTTP/2.0 scheme=https https=on" {
		t.Fatalf("%s %q", resp.Proto, b)
	}
}

func TestAccessLogAndHeaders(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	logPath := filepath.Join(dir, "access.log")
	startMosaic(t, dir, fmt.Sprintf(`http {
		log_format test '$request_method $uri $status $body_bytes_sent "$http_x_q" $arg_a';
		log_format js escape=json '{"ua":"$http_user_agent"}';
		access_log %[1]s test;
		server { listen 127.0.0.1:{port};
			add_header X-Http http;
			location /a { add_header X-Loc loc; add_header X-Always yes always; return 200 ok; }
			location /b { return 200 ok; }
			location /err { add_header X-Loc loc; add_header X-Always yes always; return 500; }
			location /exp { expires 1h; return 200 ok; }
			location /json { access_log %[1]s js; return 200 ok; }
			location /quiet { access_log off; return 200 ok; }
		}
	}`, logPath), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	r, _ := do(t, "GET", base+"/a?a=1", map[string]string{"X-Q": `say "hi"`})
	if r.Header.Get("X-Loc") != "loc" || r.Header.Get("X-Always") != "yes" || r.Header.Get("X-Http") != "" {
		t.Fatalf("add_header at location: %v", r.Header)
	}
	if r, _ := do(t, "GET", base+"/b", nil); r.Header.Get("X-Http") != "http" {
		t.Fatalf("inherited add_header: %v", r.Header)
	}
	if r, _ := do(t, "GET", base+"/err", nil); r.Header.Get("X-Loc") != "" || r.Header.Get("X-Always") != "yes" {
		t.Fatalf("error statuses: %v", r.Header)
	}
	if r, _ := do(t, "GET", base+"/exp", nil); r.Header.Get("Cache-Control") != "max-age=3600" || r.Header.Get("Expires") == "" {
		t.Fatalf("expires: %v", r.Header)
	}
	do(t, "GET", base+"/json", map[string]string{"User-Agent": "a\"b"})
	do(t, "GET", base+"/quiet", nil)
	var log string
	deadline := time.Now().Add(waitCeiling)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(logPath)
		log = string(data)
		if strings.Count(log, "\n") >= 5 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := []string{
		`GET /a 200 2 "say \x22hi\x22" 1`,
		`GET /b 200 2 "-" -`,
		`GET /err 500 `,
		`{"ua":"a\"b"}`,
	}
	for _, w := range want {
		if !strings.Contains(log, w) {
			t.Errorf("log lacks %q:\n%s", w, log)
		}
	}
	if strings.Contains(log, "/quiet") {
		t.Errorf("access_log off still logged:\n%s", log)
	}
}

// Configurations from NGINX's documentation of location and server_name,
// and Debian's default site, load with -t.
func TestNginxDocConfigsLoad(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/nginx-docs-*.conf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		out, err := exec.Command(checkPath, "-t", "-c", f).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "test is successful") {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

// NGINX parses the URI before Host chooses the server, with the
// merge_slashes of the server it stands in then: over TLS the one SNI
// chose, else the default server.
func TestMergeSlashesOfSNIServerAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`ssl_certificate %[2]s; ssl_certificate_key %[3]s;
			server { listen 127.0.0.1:%[1]d ssl; server_name a; location / { return 200 "a $uri\n"; } }
			server { listen 127.0.0.1:%[1]d ssl; server_name b; merge_slashes off; location / { return 200 "b $uri\n"; } }`,
			port, cert, key)
	})
	for _, name := range []string{"", "a", "b"} {
		for _, host := range []string{"a", "b"} {
			req := "GET //x//y HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n"
			var got [2]string
			for i, port := range []int{mport, nport} {
				raw := sendUntilClosedOn(t, req, func() (net.Conn, error) {
					return tls.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{InsecureSkipVerify: true, ServerName: name})
				})
				_, got[i], _ = strings.Cut(raw, "\r\n\r\n")
			}
			if got[0] != got[1] {
				t.Errorf("server name %q, Host %s: mosaic %q, nginx %q", name, host, got[0], got[1])
			}
		}
	}
}
