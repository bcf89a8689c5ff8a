package main

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// exchange writes req on c and reads one response.
func exchange(t *testing.T, c net.Conn, br *bufio.Reader, req string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// keepalive_requests closes a connection after that many requests, the
// last response saying so; the second value of keepalive_timeout is sent
// as "Keep-Alive: timeout=N" on responses that keep the connection.
func TestKeepaliveRequestsAndHeader(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/a.txt"), "a")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { root %s/www; keepalive_requests 3; keepalive_timeout 30s 25s;
		server { listen 127.0.0.1:{port}; } }`, dir), port)
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 1; i <= 3; i++ {
		resp := exchange(t, c, br, "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n")
		last := i == 3
		if resp.Close != last {
			t.Errorf("request %d: Close = %v", i, resp.Close)
		}
		ka := resp.Header.Get("Keep-Alive")
		if last && ka != "" || !last && ka != "timeout=25" {
			t.Errorf("request %d: Keep-Alive %q", i, ka)
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := br.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("after the last request: read %d, %v; want the connection closed", n, err)
	}
}

// headerBufferCase is a request for /a.txt and the status it gets under
// large_client_header_buffers 2 1k.
type headerBufferCase struct {
	name, req string
	want      int
}

// headerBufferCases are a request that fits large_client_header_buffers
// 2 1k, and one over each of its limits: the request line (414), a header
// field and the whole header (400, NGINX's 494 "Request Header Or Cookie
// Too Large").
func headerBufferCases() []headerBufferCase {
	field := func(n int) string { return "X-Long: " + strings.Repeat("v", n) + "\r\n" }
	return []headerBufferCase{
		{"fits", "GET /a.txt HTTP/1.1\r\nHost: t\r\n" + field(900) + "\r\n", 200},
		{"long line", "GET /a.txt?" + strings.Repeat("q", 1100) + " HTTP/1.1\r\nHost: t\r\n\r\n", 414},
		{"long field", "GET /a.txt HTTP/1.1\r\nHost: t\r\n" + field(1100) + "\r\n", 400},
		{"large header", "GET /a.txt HTTP/1.1\r\nHost: t\r\n" + strings.Repeat(field(900), 4) + "\r\n", 400},
	}
}

// large_client_header_buffers limits the request line (414) and each
// header field and the whole header (400).
func TestLargeClientHeaderBuffers(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/a.txt"), "a")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { root %s/www; large_client_header_buffers 2 1k;
		server { listen 127.0.0.1:{port}; } }`, dir), port)
	for _, tc := range headerBufferCases() {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		resp := exchange(t, c, bufio.NewReader(c), tc.req)
		c.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
		if tc.want != 200 && !resp.Close {
			t.Errorf("%s: the connection stays open after a refused request", tc.name)
		}
	}
}

// TestLargeClientHeaderBuffersAsNGINX: NGINX answers a field or a header
// over large_client_header_buffers with its code 494, which goes out as
// 400 with a page of its own ("Request Header Or Cookie Too Large").
func TestLargeClientHeaderBuffersAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`large_client_header_buffers 2 1k;
			server { listen 127.0.0.1:%d; location / { return 200 "ok"; } }`, port)
	})
	title := regexp.MustCompile(`<title>[^<]*</title>`)
	for _, tc := range headerBufferCases() {
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), tc.req)
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), tc.req)
		mt, nt := title.FindString(mb), title.FindString(nb)
		if m.StatusCode != n.StatusCode || n.StatusCode == http.StatusBadRequest && mt != nt {
			t.Errorf("%s: mosaic %d %s, nginx %d %s", tc.name, m.StatusCode, mt, n.StatusCode, nt)
		}
	}
}

func TestConnectionDirectiveErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cases := []struct{ conf, want string }{
		{`keepalive_requests -1;`, `invalid value "-1" in "keepalive_requests" directive`},
		{`keepalive_timeout 10s soon;`, `invalid value "soon" in "keepalive_timeout" directive`},
		{`large_client_header_buffers 0 8k;`, `invalid value "0" in "large_client_header_buffers" directive`},
		{`large_client_header_buffers 4 big;`, `invalid value "big" in "large_client_header_buffers" directive`},
		{`large_client_header_buffers 4 32;`, `invalid value "32" in "large_client_header_buffers" directive`},
		{`output_buffers 0 32k;`, `invalid value "0" in "output_buffers" directive`},
		{`lingering_close sometimes;`, `invalid value "sometimes" in "lingering_close" directive, it must be "on", "off" or "always"`},
		{`lingering_time forever;`, `invalid value "forever" in "lingering_time" directive`},
		{`lingering_timeout -1s;`, `invalid value "-1s" in "lingering_timeout" directive`},
		{`output_buffers 2 0;`, `invalid value "0" in "output_buffers" directive`},
	}
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("bad%d.conf", i))
		writeFile(t, path, "http { "+c.conf+" server { listen 127.0.0.1:1; } }\n")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: got %s\nwant %s", c.conf, out, c.want)
		}
	}
}

// A client still uploading a body that is refused gets the whole
// refusal, here a 2 MB error page: the server lingers (lingering_close on,
// the default) instead of closing under the unread upload, which would
// reset the connection and drop what the client has not received yet.
func TestLingeringCloseDeliversRefusal(t *testing.T) {
	dir := t.TempDir()
	page := strings.Repeat("too large ", 200<<10) // 2 MB
	writeFile(t, filepath.Join(dir, "www/413.html"), page)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http { client_max_body_size 1k; root %s/www; error_page 413 /413.html;
		server { listen 127.0.0.1:{port}; } }`, dir), port)
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) {
			_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 64<<10)
		})
	}}
	c, err := d.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 50000000\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = c.Write(make([]byte, 4<<20)) }() // the upload goes on
	time.Sleep(200 * time.Millisecond)                  // while the refusal is sent
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || err != nil || len(body) != len(page) {
		t.Errorf("status %d, %d of %d bytes, %v", resp.StatusCode, len(body), len(page), err)
	}
}

// A reload applies new connection limits to a socket it keeps.
func TestReloadChangesConnectionLimits(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/a.txt"), "a")
	conf := func(n int) string {
		return fmt.Sprintf(`http { root %s/www; keepalive_requests %d; server { listen 127.0.0.1:{port}; } }`, dir, n)
	}
	port := freePort(t)
	p := startMosaic(t, dir, conf(1), port)
	closes := func() bool {
		c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return exchange(t, c, bufio.NewReader(c), "GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n").Close
	}
	if !closes() {
		t.Fatal("keepalive_requests 1: the first response keeps the connection")
	}
	writeFile(t, filepath.Join(dir, "mosaic.conf"), strings.ReplaceAll(conf(5), "{port}", fmt.Sprint(port)))
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(waitCeiling)
	for closes() {
		if time.Now().After(deadline) {
			t.Fatal("after the reload to keepalive_requests 5, the first response still closes")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// chunked_transfer_encoding off: a body of unknown length goes out to an
// HTTP/1.1 client without chunks, ended by the connection's close, as
// NGINX sends it; on (the default), chunked on a kept connection.
func TestChunkedTransferEncodingOffAsNGINX(t *testing.T) {
	nginxPath(t)
	// More than the proxy holds before it sends: the length is unknown
	// when the header goes out.
	body := strings.Repeat("streamed body ", 40000)
	origin := streamingOrigin(t, body, 8000)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /off { chunked_transfer_encoding off; proxy_pass %[2]s; }
			location /on { proxy_pass %[2]s; } }`, port, origin.URL)
	})
	for _, path := range []string{"/off", "/on"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n"
		sig := func(port int) string {
			r, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
			return fmt.Sprintf("%d TE=%q close=%v length=%d whole=%v", r.StatusCode, r.TransferEncoding, r.Close, r.ContentLength, b == body)
		}
		if m, n := sig(mport), sig(nport); m != n {
			t.Errorf("%s: mosaic %s, nginx %s", path, m, n)
		}
	}
}

// headerBufferRequest is a request whose request line takes line bytes
// and whose fields after Host take fields bytes each, line ends included,
// after empty empty lines.
func headerBufferRequest(empty, line int, fields ...int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("\r\n", empty))
	b.WriteString("GET /" + strings.Repeat("a", line-len("GET / HTTP/1.1\r\n")) + " HTTP/1.1\r\nHost: t\r\n")
	for _, n := range fields {
		b.WriteString("X-F: " + strings.Repeat("v", n-len("X-F: \r\n")) + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}

// TestHeaderBufferPackingAsNGINX: NGINX reads a header into a
// client_header_buffer_size buffer, and moves the line that does not fit
// it, whole, into one of the large_client_header_buffers, and so on: a
// line longer than a large buffer is refused (414 for the request line,
// 494 for a field), and so is a header that needs more large buffers than
// there are, however few bytes it wastes at their ends. The requests are
// made of lines whose lengths fall on either side of the buffers' sizes.
func TestHeaderBufferPackingAsNGINX(t *testing.T) {
	nginxPath(t)
	type config struct{ number, size, first int }
	configs := []config{{2, 1 << 10, 1 << 10}, {2, 1 << 10, 2 << 10}, {4, 8 << 10, 1 << 10}, {4, 8 << 10, 2 << 10}}
	ports := map[string][]int{}
	for _, who := range []string{"m", "n"} {
		for range configs[1:] {
			ports[who] = append(ports[who], freePort(t))
		}
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		var b strings.Builder
		for i, c := range configs {
			if i > 0 {
				port = ports[who][i-1]
			}
			fmt.Fprintf(&b, `server { listen 127.0.0.1:%d; large_client_header_buffers %d %d;
				client_header_buffer_size %d; location / { return 200 "ok"; } }
			`, port, c.number, c.size, c.first)
		}
		return b.String()
	})
	title := regexp.MustCompile(`<title>[^<]*</title>`)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i, c := range configs {
		m, n := mport, nport
		if i > 0 {
			m, n = ports["m"][i-1], ports["n"][i-1]
		}
		// Lengths on either side of each buffer's end.
		var lengths []int
		for _, at := range []int{c.first - len("GET / HTTP/1.1\r\nHost: t\r\n"), c.first, c.size, c.first + c.size} {
			for d := -3; d <= 3; d++ {
				if at+d > 20 {
					lengths = append(lengths, at+d)
				}
			}
		}
		lengths = append(lengths, 40, c.size/2, c.size/3*2)
		pick := func() int {
			if rnd.IntN(4) == 0 {
				return 20 + rnd.IntN(c.size+c.first)
			}
			return lengths[rnd.IntN(len(lengths))]
		}
		// Fields packed whole: three of 900 bytes fit "2 1k" (the first
		// with the request line), and four of 600 do not, 2.4 KB of the
		// 3 KB of buffers.
		reqs := []string{headerBufferRequest(0, 40, 900, 900, 900), headerBufferRequest(0, 40, 600, 600, 600, 600)}
		for _, l := range lengths {
			reqs = append(reqs, headerBufferRequest(0, l), headerBufferRequest(0, 40, l), headerBufferRequest(0, 40, 40, l))
		}
		for range 150 {
			fields := make([]int, rnd.IntN(c.number+3))
			for j := range fields {
				fields[j] = pick()
			}
			empty := 0
			if rnd.IntN(8) == 0 {
				empty = rnd.IntN(c.first)
			}
			reqs = append(reqs, headerBufferRequest(empty, pick(), fields...))
		}
		for _, req := range reqs {
			mr, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", m), req)
			nr, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", n), req)
			mt, nt := title.FindString(mb), title.FindString(nb)
			if mr.StatusCode != nr.StatusCode || nr.StatusCode == http.StatusBadRequest && mt != nt {
				t.Errorf("large_client_header_buffers %d %d, client_header_buffer_size %d: %s: mosaic %d %s, nginx %d %s",
					c.number, c.size, c.first, headerShape(req), mr.StatusCode, mt, nr.StatusCode, nt)
			}
		}
	}
}

// headerShape is a request's line lengths, line ends included: empty
// lines before the request line as "N×2", then the request line and the
// fields.
func headerShape(req string) string {
	trimmed := strings.TrimLeft(req, "\r\n")
	var shape []string
	if skipped := len(req) - len(trimmed); skipped > 0 {
		shape = append(shape, fmt.Sprintf("%d×2", skipped/2))
	}
	for line := range strings.SplitAfterSeq(trimmed, "\n") {
		if line != "" {
			shape = append(shape, strconv.Itoa(len(line)))
		}
	}
	return strings.Join(shape, " ")
}

// chunked_transfer_encoding is the final location's, as NGINX's chunked
// filter reads it when the header goes out: a request that leaves an
// "off" location by an internal redirect to one that is on gets chunks on
// a kept connection, and one redirected into an "off" location none.
func TestChunkedTransferEncodingFinalLocationAsNGINX(t *testing.T) {
	nginxPath(t)
	body := strings.Repeat("streamed body ", 40000)
	origin := streamingOrigin(t, body, 8000)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d;
			location /off { chunked_transfer_encoding off; try_files /none @on; }
			location /on { try_files /none @off; }
			location @on { rewrite ^ / break; proxy_pass %[2]s; }
			location @off { chunked_transfer_encoding off; rewrite ^ / break; proxy_pass %[2]s; } }`, port, origin.URL)
	})
	for _, path := range []string{"/off", "/on"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a\r\n\r\n"
		sig := func(port int) string {
			r, b := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
			return fmt.Sprintf("%d TE=%q close=%v length=%d whole=%v", r.StatusCode, r.TransferEncoding, r.Close, r.ContentLength, b == body)
		}
		if m, n := sig(mport), sig(nport); m != n {
			t.Errorf("%s: mosaic %s, nginx %s", path, m, n)
		}
	}
}

// streamingOrigin answers every request with body, written piece bytes at
// a time, each flushed: a response whose length the proxy does not know
// when its header goes out.
func streamingOrigin(t *testing.T, body string, piece int) *httptest.Server {
	t.Helper()
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < len(body); i += piece {
			fmt.Fprint(w, body[i:min(i+piece, len(body))])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(o.Close)
	return o
}
