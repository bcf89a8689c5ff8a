package main

import (
	"bufio"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// shadowOrigin records what the mirrors send it; /sleep answers after
// shadowHold, longer than the mirror location's proxy_read_timeout, or
// twenty seconds with "?long".
type shadowOrigin struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
	cut  chan time.Time // when a request to /sleep ended before its answer
}

// shadowHold is how long /sleep holds its answer: a server that waited
// for it instead of cutting the mirror at proxy_read_timeout (1 s) ends
// the client's connection no sooner, however fast the machine.
const shadowHold = 5 * time.Second

func newShadow(t *testing.T) *shadowOrigin {
	s := &shadowOrigin{cut: make(chan time.Time, 100)}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		body := fmt.Sprintf("%q", b)
		if len(b) > 64 {
			body = fmt.Sprintf("%d bytes, crc %08x", len(b), crc32.ChecksumIEEE(b))
		}
		s.mu.Lock()
		s.seen = append(s.seen, fmt.Sprintf("%s %s x-test=%q x-mirror=%q body=%s",
			r.Method, r.RequestURI, r.Header.Get("X-Test"), r.Header.Get("X-Mirror"), body))
		s.mu.Unlock()
		if r.URL.Path == "/sleep" {
			d := shadowHold
			if r.URL.RawQuery == "long" {
				d = 20 * time.Second
			}
			select {
			case <-time.After(d):
			case <-r.Context().Done():
				s.cut <- time.Now()
			}
		}
		io.WriteString(w, "shadow answer, never seen by the client")
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *shadowOrigin) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.seen
	s.seen = nil
	slices.Sort(out)
	return out
}

// mirrorAsk sends req on a connection of its own and returns the answer,
// how long the answer took, and how long until the server closed the
// connection ("Connection: close"): NGINX closes it only once the
// mirrors have ended.
func mirrorAsk(t *testing.T, port int, req string) (status int, body string, answered, closed time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	method, _, _ := strings.Cut(req, " ")
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%q: %v", req, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%q: body: %v", req, err)
	}
	answered = time.Since(start)
	_, _ = io.Copy(io.Discard, br)
	return resp.StatusCode, string(b), answered, time.Since(start)
}

func TestMirrorMatchesNGINX(t *testing.T) {
	nginxPath(t)
	main := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(r.URL.Path, "chunk") {
			// No length, and the rest late: the client's answer is
			// chunked.
			io.WriteString(w, "main, ")
			w.(http.Flusher).Flush()
			time.Sleep(50 * time.Millisecond)
		}
		fmt.Fprintf(w, "main %s %s body=%d bytes, crc %08x", r.Method, r.RequestURI, len(b), crc32.ChecksumIEEE(b))
	}))
	defer main.Close()
	mainAddr := main.Listener.Addr().String()
	dead := refusedPort(t) // the mirror's upstream is down
	shadows := map[string]*shadowOrigin{"m": newShadow(t), "n": newShadow(t)}
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		shadow := shadows[who].srv.Listener.Addr().String()
		return fmt.Sprintf(`
		log_format mirror '$request $status $request_completion $body_bytes_sent';
		access_log %[4]s/%[5]s.log mirror;
		server {
			listen 127.0.0.1:%[1]d;
			client_body_buffer_size 1k; # a larger body is spooled to a file
			location /a {
				mirror /m;
				proxy_pass http://%[2]s;
				location /a/quiet { mirror off; proxy_pass http://%[2]s; }
			}
			location /tf { mirror /m; try_files $uri @app; }
			location /tf2 { try_files $uri @mirrored; }
			location @app { proxy_pass http://%[2]s; }
			location @mirrored { mirror /m2; proxy_pass http://%[2]s; }
			location /ep { mirror /m; error_page 404 = /a/page; return 404; }
			location /ep2 { mirror /m; root %[4]s; error_page 404 = /a/page; }
			location /dv { mirror /m; root %[4]s; dav_methods DELETE; }
			location /small { client_max_body_size 5; mirror /m; proxy_pass http://%[2]s; }
			location /hang { mirror /mhang; proxy_pass http://%[2]s; }
			location = /mhang { internal; proxy_read_timeout 30s; proxy_pass http://%[3]s/sleep?long; }
			location /two { mirror /m; mirror /m2; proxy_pass http://%[2]s; }
			location /off { mirror /moff; mirror_request_body off; proxy_pass http://%[2]s; }
			location /down { mirror /mdown; proxy_pass http://%[2]s; }
			location /slow { mirror /mslow; proxy_pass http://%[2]s; }
			location /stream { mirror /mslow; proxy_buffering off; proxy_pass http://%[2]s; }
			location = /m { internal; proxy_pass http://%[3]s$request_uri; }
			location = /m2 { internal; proxy_set_header X-Mirror 2; proxy_pass http://%[3]s$request_uri; }
			location = /moff {
				internal;
				proxy_pass_request_body off;
				proxy_set_header Content-Length "";
				proxy_pass http://%[3]s$request_uri;
			}
			location = /mdown { internal; proxy_pass http://127.0.0.1:%[6]d$request_uri; }
			location = /mslow { internal; proxy_read_timeout 1s; proxy_pass http://%[3]s/sleep; }
		}`, port, mainAddr, shadow, dir, who, dead)
	})
	big := strings.Repeat("0123456789", 500)
	cases := []struct{ name, req string }{
		{"get", "GET /a?x=1&y=2 HTTP/1.1\r\nHost: a.test\r\nX-Test: one\r\nConnection: close\r\n\r\n"},
		{"post", "POST /a/b?x=1 HTTP/1.1\r\nHost: a.test\r\nX-Test: two\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"},
		{"chunked", "POST /a HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n"},
		{"put", "PUT /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\nConnection: close\r\n\r\nput"},
		{"head", "HEAD /a HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"},
		{"nested off", "POST /a/quiet HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nqq"},
		{"two", "POST /two?z HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\nConnection: close\r\n\r\nxyz"},
		{"body off", "POST /off HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody"},
		{"down", "POST /down HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\nConnection: close\r\n\r\ndown"},
		{"big", "POST /two HTTP/1.1\r\nHost: a.test\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n" + big},
		{"big chunked", "POST /a HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
			"1388\r\n" + big + "\r\n0\r\n\r\n"},
		{"try_files first", "POST /tf HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\ntf"},
		{"try_files fallback", "POST /tf2 HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\ntf"},
		{"error_page", "GET /ep?q HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"},
		{"error_page of a POST", "POST /ep HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nep"},
		// The content ran (a file not found) after the mirrors read the
		// body: the page's location has it again, as NGINX keeps it.
		{"error_page after content", "POST /ep2/missing HTTP/1.1\r\nHost: a.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\nep"},
		// A chunked body, empty, read by the mirrors first: DELETE is
		// refused all the same (415).
		{"DELETE chunked", "DELETE /dv/x HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"},
		{"too large", "POST /small HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
			"a\r\n0123456789\r\n0\r\n\r\n"},
	}
	for _, c := range cases {
		ms, mb, _, _ := mirrorAsk(t, mport, c.req)
		ns, nb, _, _ := mirrorAsk(t, nport, c.req)
		if ms != ns || ms == http.StatusOK && mb != nb {
			t.Errorf("%s: client got mosaic %d %q, nginx %d %q", c.name, ms, mb, ns, nb)
		}
		if m, n := shadows["m"].take(), shadows["n"].take(); !slices.Equal(m, n) {
			t.Errorf("%s: the shadow got from mosaic\n%q\nfrom nginx\n%q", c.name, m, n)
		}
	}

	// A mirror that hangs: the client has its answer at once from both,
	// a chunked one (proxy_buffering off) with its last chunk, and the
	// connection ends once proxy_read_timeout has cut the mirror. A
	// request that follows on the connection is read only then. "At once"
	// is before the mirror is cut, when the shadow notes it: an answer
	// that waited for the mirror would come after (a bound of 500 ms on
	// it was a bet on the machine's load).
	ports := map[string]int{"m": mport, "n": nport}
	for _, path := range []string{"/slow", "/stream/chunk"} {
		req := "GET " + path + " HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
		got := map[string]string{}
		for _, who := range []string{"m", "n"} {
			for len(shadows[who].cut) > 0 {
				<-shadows[who].cut // the slow mirrors' above
			}
			sent := time.Now()
			status, body, answered, closed := mirrorAsk(t, ports[who], req)
			got[who] = fmt.Sprintf("%d %q", status, body)
			t.Logf("%s %s: answered in %v, closed after %v", who, path, answered, closed)
			select {
			case cut := <-shadows[who].cut:
				// sent+answered is no later than the answer came.
				if !sent.Add(answered).Before(cut) {
					t.Errorf("%s %s: the answer waited for the mirror: answered %v after sending, the mirror cut %v after", who, path, answered, cut.Sub(sent))
				}
			case <-time.After(5 * time.Second):
				t.Errorf("%s %s: the mirror was never cut", who, path)
			}
			if closed < 900*time.Millisecond || who == "m" && closed >= shadowHold {
				t.Errorf("%s %s: connection closed after %v; want it at proxy_read_timeout, before the shadow's %v", who, path, closed, shadowHold)
			}
		}
		if got["m"] != got["n"] {
			t.Errorf("%s: client got mosaic %s, nginx %s", path, got["m"], got["n"])
		}
		if m, n := shadows["m"].take(), shadows["n"].take(); !slices.Equal(m, n) {
			t.Errorf("%s: the shadow got from mosaic\n%q\nfrom nginx\n%q", path, m, n)
		}
	}
	req := "GET /slow HTTP/1.1\r\nHost: a.test\r\n\r\nGET /a HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n"
	_, _, _, mc := mirrorAsk(t, mport, req)
	_, _, _, nc := mirrorAsk(t, nport, req)
	t.Logf("keep-alive after a slow mirror: mosaic closed after %v, nginx %v", mc, nc)
	if mc < 900*time.Millisecond || nc < 900*time.Millisecond {
		t.Errorf("the next request was served before the mirror ended: mosaic %v, nginx %v", mc, nc)
	}
	if m, n := shadows["m"].take(), shadows["n"].take(); !slices.Equal(m, n) {
		t.Errorf("keep-alive: the shadow got from mosaic\n%q\nfrom nginx\n%q", m, n)
	}

	// The main requests' access log lines, the mirrors' none: one for
	// each case, the two slow ones and the keep-alive pair. NGINX writes
	// the last as it frees the request, which may follow the close the
	// client saw, so the test waits for the count.
	read := func(who string) []string {
		return waitLog(t, filepath.Join(dir, who+".log"), len(cases)+4)
	}
	// $body_bytes_sent differs for the server's own error pages, which
	// name the server: their counts are left out.
	noPageSize := func(lines []string) []string {
		for i, l := range lines {
			if !strings.Contains(l, " 200 ") {
				lines[i] = l[:strings.LastIndexByte(l, ' ')]
			}
		}
		return lines
	}
	if m, n := noPageSize(read("m")), noPageSize(read("n")); !slices.Equal(m, n) {
		t.Errorf("access log: mosaic\n%s\nnginx\n%s", strings.Join(m, "\n"), strings.Join(n, "\n"))
	}

	// A client that leaves once it has its answer: mosaic stops the
	// mirror at once, where NGINX lets it run to its proxy_read_timeout
	// (only logged here; see mirror/README.md).
	for _, who := range []string{"m", "n"} {
		port := map[string]int{"m": mport, "n": nport}[who]
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "GET /hang HTTP/1.1\r\nHost: a.test\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
		for len(shadows[who].cut) > 0 {
			<-shadows[who].cut // the slow mirrors' above
		}
		start := time.Now()
		c.Close()
		select {
		case <-shadows[who].cut:
			t.Logf("%s: mirror cut %v after the client left", who, time.Since(start))
		case <-time.After(map[string]time.Duration{"m": 5 * time.Second, "n": time.Second}[who]):
			if who == "m" {
				t.Errorf("mosaic: the mirror outlived its client by 5s")
			} else {
				t.Logf("nginx: the mirror outlived its client by 1s")
			}
		}
		shadows[who].take()
	}

	// The mirror's location is internal: the client cannot ask for it.
	sameAnswer(t, mport, nport, "GET /m HTTP/1.1\r\nHost: a.test", "")
}
