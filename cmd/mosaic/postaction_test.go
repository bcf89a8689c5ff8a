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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tracker records what post actions send it, as a download counter
// would; /sleep answers after two seconds, or when the test releases it
// (a gated tracker), /hang never (until the request is cut, or a
// minute), the rest at once, with a status and body nobody should see.
type tracker struct {
	mu   sync.Mutex
	seen []string
	srv  *httptest.Server
	// arrived has a value for each /sleep request recorded, and release
	// lets one go: only in a gated tracker (newGatedTracker).
	arrived, release chan struct{}
}

// trackerCeiling bounds every wait of a tracker's request and of the
// tests on one: reached only when what they wait for never comes.
const trackerCeiling = time.Minute

func newTracker(t *testing.T) *tracker { return startTracker(t, &tracker{}) }

// newGatedTracker holds each /sleep request until the test releases it,
// so that the tests follow the post action as it runs, not a clock: what
// must happen while it is held is checked before the release.
func newGatedTracker(t *testing.T) *tracker {
	return startTracker(t, &tracker{arrived: make(chan struct{}, 4), release: make(chan struct{}, 4)})
}

func startTracker(t *testing.T, k *tracker) *tracker {
	k.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		k.mu.Lock()
		k.seen = append(k.seen, fmt.Sprintf("%s %s x-test=%q cl=%q te=%q ct=%q ua=%q body=%q",
			r.Method, r.RequestURI, r.Header.Get("X-Test"), r.Header.Values("Content-Length"),
			r.TransferEncoding, r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), b))
		k.mu.Unlock()
		var wait <-chan time.Time
		switch r.URL.Path {
		case "/sleep":
			if k.arrived != nil {
				select {
				case k.arrived <- struct{}{}:
				default: // more than a test awaits: its count says so
				}
				select {
				case <-k.release:
				case <-time.After(trackerCeiling):
				case <-r.Context().Done():
				}
				break
			}
			wait = time.After(2 * time.Second)
		case "/hang":
			wait = time.After(trackerCeiling)
		}
		if wait != nil {
			select {
			case <-wait:
			case <-r.Context().Done():
			}
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "tracked, never seen by the client")
	}))
	t.Cleanup(k.srv.Close)
	return k
}

// held waits for a gated tracker's next /sleep request.
func (k *tracker) held(t *testing.T, who string) {
	t.Helper()
	select {
	case <-k.arrived:
	case <-time.After(trackerCeiling):
		t.Fatalf("%s: the post action never reached the tracker", who)
	}
}

// await waits until the tracker has recorded n requests (or a minute).
func (k *tracker) await(n int) {
	for end := time.Now().Add(trackerCeiling); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		k.mu.Lock()
		got := len(k.seen)
		k.mu.Unlock()
		if got >= n {
			return
		}
	}
}

// quietWatch watches a connection from the moment the client has an
// answer until the test releases its post action: whatever comes (an
// answer, or the connection's end) is noted with whether the release had
// been sent, so that anything a server sends too early is seen however
// late the test looks. The negative needs a window: quietGrace, after the
// tracker has the post action, for a server that would act at once to do
// so; a slower one is still caught if it acts before the release.
type quietWatch struct {
	done     chan struct{}
	released atomic.Bool
	early    atomic.Bool
}

// quietGrace is how long a held post action is held further before the
// test looks, for a server that would not wait for it to act: longer
// than the scheduling delay of a loaded machine, for that server to be
// seen.
const quietGrace = 500 * time.Millisecond

// watchQuiet starts watching c, read through br, which the test must not
// read again before wait returns.
func watchQuiet(c net.Conn, br *bufio.Reader) *quietWatch {
	w := &quietWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		_ = c.SetReadDeadline(time.Now().Add(trackerCeiling))
		_, _ = br.Peek(1) // returns when something comes, or the end
		if !w.released.Load() {
			w.early.Store(true)
		}
	}()
	return w
}

// stillOpen reports whether nothing has come on the connection after
// the grace; release then lets the post action go.
func (w *quietWatch) stillOpen(release chan<- struct{}) bool {
	time.Sleep(quietGrace)
	w.released.Store(true)
	release <- struct{}{}
	// The server can answer only after the release, which comes after
	// released is set: the watcher, which looks at released once
	// something has come, tells an early send from one that followed.
	<-w.done
	return !w.early.Load()
}

// newEchoApp starts an application that answers with the method, URI
// and body it was sent: the client's answer the tests compare.
func newEchoApp(t *testing.T) *httptest.Server {
	t.Helper()
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "app %s %s %q", r.Method, r.RequestURI, b)
	}))
	t.Cleanup(app.Close)
	return app
}

func (k *tracker) take() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := k.seen
	k.seen = nil
	slices.Sort(out)
	return out
}

// postActionBlock is the configuration both servers run: post actions to
// a URI and to a named location, a slow one, one whose upstream is down,
// "post_action off" (a location named "off" to NGINX), and a server
// whose post_action its own tracking location inherits.
// opts goes after the address of the first server's listen ("http2").
func postActionBlock(dir, app, opts string, trackers map[string]*tracker, dead int) func(who string, port int) string {
	return func(who string, port int) string {
		return fmt.Sprintf(`
		log_format pa '$request|$status|$uri|$args|$request_uri|$request_method|$request_completion';
		access_log %[1]s/%[2]s/access.log pa;
		server {
			listen 127.0.0.1:%[3]d%[7]s;
			root %[1]s/www;
			location /static/ { post_action /track; }
			location /app/ { post_action /track; proxy_pass http://%[4]s; }
			location /named/ { post_action @after; }
			location @after { proxy_pass http://%[5]s; }
			location /ret { post_action /track; return 200 "ok"; }
			location /err { post_action /track; return 404; }
			location /tf/ { try_files $uri /static/f.txt; }
			location /slow/ { post_action /slowt; }
			location /mirrored/ { post_action /trackmir; }
			location = /trackmir { internal; mirror /slowt; proxy_pass http://%[5]s; }
			location /dead/ { post_action /deadt; }
			location /off/ { post_action off; }
			location /inner/ {
				post_action /track;
				location /inner/quiet/ { post_action @none; }
			}
			location /hidden/ { post_action /untracked; }
			location /q/ { post_action "/trackq?from=q"; }
			location /trackq { internal; proxy_pass http://%[5]s; }
			location /timeout/ { post_action /timeoutt; }
			location /if/ { if ($arg_t) { post_action /track; } }
			location = /timeoutt { internal; proxy_read_timeout 1s; proxy_pass http://%[5]s/hang; }
			location /caught/ { post_action /deadep; }
			location = /track { internal; proxy_pass http://%[5]s; }
			location = /untracked { internal; access_log off; proxy_pass http://%[5]s; }
			location = /deadep { internal; error_page 502 = /track; proxy_pass http://127.0.0.1:%[6]d; }
			location = /slowt { internal; proxy_read_timeout 90s; proxy_pass http://%[5]s/sleep; }
			location = /deadt { internal; proxy_pass http://127.0.0.1:%[6]d; }
		}
		server {
			listen 127.0.0.1:%[3]d;
			server_name loop.test;
			root %[1]s/www;
			post_action /track;
			location = /track { proxy_pass http://%[5]s; }
		}`, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port, app, trackers[who].srv.Listener.Addr().String(), dead, opts)
	}
}

// TestPostActionMatchesNGINX runs the same post actions in both servers
// and compares the client's answers, what the tracker receives (method,
// URI without the client's arguments, header fields, the body sent
// again or declared empty) and the access log line, which NGINX writes
// once, after the post action, with its $uri and its status (unless the
// client's answer was an error page of the server's own).
func TestPostActionMatchesNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	app := newEchoApp(t)
	trackers := map[string]*tracker{"m": newTracker(t), "n": newTracker(t)}
	dir := t.TempDir()
	for _, f := range []string{"static/f.txt", "caught/f.txt", "hidden/f.txt", "timeout/f.txt", "if/f.txt", "q/f.txt", "named/f.txt", "slow/f.txt", "dead/f.txt", "off/f.txt",
		"inner/f.txt", "inner/quiet/f.txt", "f.txt"} {
		writeFile(t, filepath.Join(dir, "www", f), "file "+f+"\n")
	}
	mport, nport := startBoth(t, dir, postActionBlock(dir, app.Listener.Addr().String(), "", trackers, freePort(t)))
	cases := []struct{ name, req string }{
		{"static", "GET /static/f.txt?a=1 HTTP/1.1\r\nHost: a.test\r\nX-Test: one\r\nUser-Agent: ua\r\n"},
		{"proxied POST", "POST /app/x?b=2 HTTP/1.1\r\nHost: a.test\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello"},
		{"chunked POST", "POST /app/c HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"chunked POST to a file", "POST /static/f.txt HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"},
		{"POST to a file", "POST /static/f.txt HTTP/1.1\r\nHost: a.test\r\nContent-Length: 3\r\n\r\nabc"},
		{"missing", "GET /static/missing?c=3 HTTP/1.1\r\nHost: a.test\r\n"},
		{"HEAD", "HEAD /static/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"named", "GET /named/f.txt?d=4 HTTP/1.1\r\nHost: a.test\r\nX-Test: two\r\n"},
		{"return", "GET /ret?e=5 HTTP/1.1\r\nHost: a.test\r\n"},
		{"return 404", "GET /err HTTP/1.1\r\nHost: a.test\r\n"},
		{"try_files fallback", "GET /tf/none HTTP/1.1\r\nHost: a.test\r\n"},
		{"upstream down", "GET /dead/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"off", "GET /off/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"nested", "GET /inner/quiet/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"outer", "GET /inner/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"inherited loop", "GET /f.txt HTTP/1.1\r\nHost: loop.test\r\n"},
		// A "?" is part of the post action's path, not its arguments.
		{"question mark", "GET /q/f.txt?a=1 HTTP/1.1\r\nHost: a.test\r\n"},
		{"upstream timed out", "GET /timeout/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		{"in if", "GET /if/f.txt?t=1 HTTP/1.1\r\nHost: a.test\r\n"},
		{"if not taken", "GET /if/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		// A page of the server's own keeps its status in the log, until
		// the server answers the post action with one (the cycle's 500).
		{"missing, inherited loop", "GET /none HTTP/1.1\r\nHost: loop.test\r\n"},
		{"refused, inherited loop", "GET /f.txt HTTP/1.1\r\nHost: loop.test\r\nBad Header\r\n"},
		{"error_page in the post action", "GET /caught/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
		// Logged with the post action's location's access_log: not at all.
		{"not logged", "GET /hidden/f.txt HTTP/1.1\r\nHost: a.test\r\n"},
	}
	for _, c := range cases {
		req := c.req
		head, body, _ := strings.Cut(req, "\r\n\r\n")
		if !strings.Contains(req, "\r\n\r\n") {
			head = strings.TrimSuffix(req, "\r\n")
		}
		req = head + "\r\nConnection: close\r\n\r\n" + body
		ms, mb, _, _ := mirrorAsk(t, mport, req)
		ns, nb, _, _ := mirrorAsk(t, nport, req)
		if ms != ns || ms == http.StatusOK && mb != nb {
			t.Errorf("%s: client got mosaic %d %q, nginx %d %q", c.name, ms, mb, ns, nb)
		}
		if m, n := trackers["m"].take(), trackers["n"].take(); !slices.Equal(m, n) {
			t.Errorf("%s: the tracker got from mosaic\n%q\nfrom nginx\n%q", c.name, m, n)
		}
	}
	sameAccessLogs(t, dir, len(cases)-1)
}

// TestPostActionTimingAsNGINX: the client has its answer while a slow
// post action runs, and the next request on its connection is read only
// once the post action has ended, in both servers; a client that leaves
// once it has its answer does not cut the post action short. The
// tracker holds each post action until the test has seen what must come
// (or not) meanwhile, however slow the machine.
func TestPostActionTimingAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	trackers := map[string]*tracker{"m": newGatedTracker(t), "n": newGatedTracker(t)}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/slow/f.txt"), "slow\n")
	mport, nport := startBoth(t, dir, postActionBlock(dir, "127.0.0.1:1", "", trackers, freePort(t)))
	t.Run("connection", func(t *testing.T) {
		for who, port := range map[string]int{"m": mport, "n": nport} {
			t.Run(who, func(t *testing.T) {
				t.Parallel()
				k := trackers[who]
				c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(trackerCeiling))
				br := bufio.NewReader(c)
				// Two requests on one connection, the second closing it.
				io.WriteString(c, "GET /slow/f.txt HTTP/1.1\r\nHost: a.test\r\n\r\n"+
					"GET /slow/f.txt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
				for i := range 2 {
					// The answer comes while its post action is held.
					resp, err := http.ReadResponse(br, nil)
					if err != nil {
						t.Fatalf("%s: answer %d: %v (held by its post action?)", who, i+1, err)
					}
					b, _ := io.ReadAll(resp.Body)
					if resp.StatusCode != http.StatusOK || string(b) != "slow\n" {
						t.Errorf("%s: answer %d: %d %q", who, i+1, resp.StatusCode, b)
					}
					w := watchQuiet(c, br)
					k.held(t, who)
					// Nothing more, neither the second answer nor the
					// connection's end, until the post action has ended.
					if !w.stillOpen(k.release) {
						t.Errorf("%s: after answer %d, more came before its post action ended", who, i+1)
					}
				}
				if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
					t.Errorf("%s: the connection did not end after the last post action: %q, %v", who, rest, err)
				}
			})
		}
	})
	// The client leaves as soon as it has the answer: the post action
	// goes on to the tracker's answer, logged with its status.
	for who, port := range map[string]int{"m": mport, "n": nport} {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(trackerCeiling))
		io.WriteString(c, "GET /slow/f.txt HTTP/1.1\r\nHost: a.test\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		c.Close()
		trackers[who].held(t, who)
		trackers[who].release <- struct{}{}
	}
	if m, n := trackers["m"].take(), trackers["n"].take(); !slices.Equal(m, n) || len(m) != 3 {
		t.Errorf("the tracker got from mosaic\n%q\nfrom nginx\n%q", m, n)
	}
	sameAccessLogs(t, dir, 3)
}

// TestPostActionMirrorHeldAsNGINX: a mirror in the post action's
// location holds the request until it ends, as the client's own
// location's would: the connection closes after the slow mirror, and the
// access log has the request once.
func TestPostActionMirrorHeldAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	trackers := map[string]*tracker{"m": newGatedTracker(t), "n": newGatedTracker(t)}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/mirrored/f.txt"), "m\n")
	mport, nport := startBoth(t, dir, postActionBlock(dir, "127.0.0.1:1", "", trackers, freePort(t)))
	for who, port := range map[string]int{"m": mport, "n": nport} {
		k := trackers[who]
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(trackerCeiling))
		br := bufio.NewReader(c)
		io.WriteString(c, "GET /mirrored/f.txt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
		// The answer comes while the post action's mirror is held.
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: %v (held by the post action?)", who, err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || string(b) != "m\n" {
			t.Errorf("%s: %d %q", who, resp.StatusCode, b)
		}
		w := watchQuiet(c, br)
		k.held(t, who)
		if !w.stillOpen(k.release) {
			t.Errorf("%s: the connection ended before the post action's mirror", who)
		}
		if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
			t.Errorf("%s: the connection did not end after the mirror: %q, %v", who, rest, err)
		}
		c.Close()
	}
	if m, n := trackers["m"].take(), trackers["n"].take(); !slices.Equal(m, n) || len(m) != 2 {
		t.Errorf("the tracker got from mosaic\n%q\nfrom nginx\n%q", m, n)
	}
	sameAccessLogs(t, dir, 1)
}

// TestPostActionHTTP2AsNGINX: over HTTP/2 (h2c) the tracker gets the
// same requests and the access log the same lines. The answer's timing
// differs (server/README.md): Go's server ends the stream after the post
// action, NGINX before.
func TestPostActionHTTP2AsNGINX(t *testing.T) {
	nginxPath(t)
	app := newEchoApp(t)
	trackers := map[string]*tracker{"m": newTracker(t), "n": newTracker(t)}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/static/f.txt"), "file\n")
	mport, nport := startBoth(t, dir, postActionBlock(dir, app.Listener.Addr().String(), " http2", trackers, freePort(t)))
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &protos, Proxy: nil}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	reqs := []struct{ method, path, body string }{
		{"GET", "/static/f.txt?a=1", ""},
		{"POST", "/app/x?b=2", "hello"},
		{"GET", "/static/missing", ""},
	}
	for _, c := range reqs {
		var answers [2]string
		for i, port := range []int{mport, nport} {
			req, _ := http.NewRequest(c.method, fmt.Sprintf("http://127.0.0.1:%d%s", port, c.path), strings.NewReader(c.body))
			req.Header.Set("X-Test", "h2")
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			answers[i] = fmt.Sprintf("%s %d", resp.Proto, resp.StatusCode)
			if resp.StatusCode == http.StatusOK {
				answers[i] += fmt.Sprintf(" %q", b)
			}
		}
		if answers[0] != answers[1] {
			t.Errorf("%s %s: mosaic %s, nginx %s", c.method, c.path, answers[0], answers[1])
		}
		// NGINX's stream may end before its post action does.
		trackers["m"].await(1)
		trackers["n"].await(1)
		if m, n := trackers["m"].take(), trackers["n"].take(); !slices.Equal(m, n) || len(m) != 1 {
			t.Errorf("%s %s: the tracker got from mosaic\n%q\nfrom nginx\n%q", c.method, c.path, m, n)
		}
	}
	sameAccessLogs(t, dir, len(reqs))
}

// TestPostActionClientGoneAsNGINX: a client that leaves before its
// answer's header (the proxy's 499) or during its body still gets its
// post action, as in NGINX. Before the header, no status went out: the
// post action sees $status as NGINX's HTTP/0.9 request has it, 009, and
// the log has the post action's status, since a 499 is no page of the
// server's own (NGINX's err_status); during the body, the status sent.
func TestPostActionClientGoneAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	// reached tells the test that /slow's request is at the app, which
	// answers it only once the client has left (its request cut).
	reached := make(chan struct{}, 2)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			w.Header().Set("Content-Length", "100000000")
			for range 1000 {
				if _, err := w.Write(make([]byte, 100000)); err != nil {
					return
				}
			}
			return
		}
		select {
		case reached <- struct{}{}:
		default: // more than the test awaits: its count says so
		}
		select {
		case <-time.After(trackerCeiling):
		case <-r.Context().Done():
		}
	}))
	defer app.Close()
	trackers := map[string]*tracker{"m": newTracker(t), "n": newTracker(t)}
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
		log_format pa '$request|$status|$uri';
		access_log %[1]s/%[2]s/access.log pa;
		server {
			listen 127.0.0.1:%[3]d;
			location / { post_action /track; proxy_pass http://%[4]s; }
			location = /track {
				internal;
				proxy_set_header X-Test "$status $request_completion";
				proxy_pass http://%[5]s;
			}
		}`, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port, app.Listener.Addr().String(),
			trackers[who].srv.Listener.Addr().String())
	})
	for _, path := range []string{"/slow", "/stream"} {
		for _, port := range []int{mport, nport} {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\n\r\n")
			if path == "/stream" {
				// Some of the body, then away.
				if _, err := io.ReadFull(c, make([]byte, 1000)); err != nil {
					t.Fatal(err)
				}
			} else {
				select {
				case <-reached:
				case <-time.After(trackerCeiling):
					t.Fatalf("port %d: the request never reached the app", port)
				}
			}
			c.Close()
		}
		trackers["m"].await(1)
		trackers["n"].await(1)
		m, n := trackers["m"].take(), trackers["n"].take()
		if !slices.Equal(m, n) || len(m) != 1 {
			t.Errorf("%s: the tracker got from mosaic\n%q\nfrom nginx\n%q", path, m, n)
		}
	}
	sameAccessLogs(t, dir, 2)
}

// TestPostActionSpooledBodyAgainstNGINX pins a documented difference
// (server/README.md): a body that the client's proxy saved past
// client_body_buffer_size is sent again to the post action's upstream by
// mosaic, from the same temporary file, which is removed once the
// request ends. NGINX 1.22 closes that file once the client's upstream
// is done with it: its post action fails to read it ("pread() failed"),
// logs 502 and sends the tracker nothing.
func TestPostActionSpooledBodyAgainstNGINX(t *testing.T) {
	nginxPath(t)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer app.Close()
	trackers := map[string]*tracker{"m": newTracker(t), "n": newTracker(t)}
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
		log_format pa '$request|$status|$uri';
		access_log %[1]s/%[2]s/access.log pa;
		server {
			listen 127.0.0.1:%[3]d;
			client_body_buffer_size 1k;
			client_body_temp_path %[1]s/%[2]s/body;
			location / { post_action /track; proxy_pass http://%[4]s; }
			location = /track { internal; proxy_pass http://%[5]s; }
		}`, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port, app.Listener.Addr().String(),
			trackers[who].srv.Listener.Addr().String())
	})
	body := strings.Repeat("b", 4000)
	for _, port := range []int{mport, nport} {
		status, _, _, _ := mirrorAsk(t, port, fmt.Sprintf("POST /up HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body))
		if status != http.StatusOK {
			t.Errorf("port %d: %d", port, status)
		}
	}
	want := fmt.Sprintf("POST /track x-test=\"\" cl=[\"4000\"] te=[] ct=\"\" ua=\"\" body=%q", body)
	if m := trackers["m"].take(); len(m) != 1 || m[0] != want {
		t.Errorf("the tracker got from mosaic %.200q", m)
	}
	if n := trackers["n"].take(); len(n) != 0 {
		t.Errorf("the tracker got from nginx %.200q: NGINX sends the saved body again now", n)
	}
	if m := refusedLines(t, filepath.Join(dir, "mosaic/access.log"), 1); m[0] != "POST /up HTTP/1.1|201|/track" {
		t.Errorf("mosaic logged %q", m)
	}
	if n := refusedLines(t, filepath.Join(dir, "nginx/access.log"), 1); n[0] != "POST /up HTTP/1.1|502|/track" {
		t.Errorf("nginx logged %q", n)
	}
	for _, who := range []string{"mosaic", "nginx"} {
		if left, _ := os.ReadDir(filepath.Join(dir, who, "body")); len(left) != 0 {
			t.Errorf("%s left %d temporary files", who, len(left))
		}
	}
}

// TestPostActionEndsAtHeaderAsNGINX: a post action's request is NGINX's
// header_only, which ends once its upstream's header is in: an upstream
// that streams its body for ever (here until the request is cut, or a
// minute) does not hold the client's connection, with or without
// proxy_buffering.
func TestPostActionEndsAtHeaderAsNGINX(t *testing.T) {
	nginxPath(t)
	stream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for range trackerCeiling / (100 * time.Millisecond) {
			if _, err := io.WriteString(w, "chunk\n"); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-time.After(100 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer stream.Close()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/b/f.txt"), "f\n")
	writeFile(t, filepath.Join(dir, "www/nb/f.txt"), "f\n")
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
		log_format pa '$request|$status|$uri';
		access_log %[1]s/%[2]s/access.log pa;
		server {
			listen 127.0.0.1:%[3]d;
			root %[1]s/www;
			location /b/ { post_action /track; }
			location /nb/ { post_action /tracknb; }
			location = /track { internal; proxy_pass http://%[4]s; }
			location = /tracknb { internal; proxy_buffering off; proxy_pass http://%[4]s; }
		}`, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port, stream.Listener.Addr().String())
	})
	for _, path := range []string{"/b/f.txt", "/nb/f.txt"} {
		for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
			// mirrorAsk stops reading at 10s: a connection held by
			// the post action is still open then.
			status, body, _, closed := mirrorAsk(t, port, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n")
			if status != http.StatusOK || body != "f\n" || closed > 9*time.Second {
				t.Errorf("%s %s: %d %q, the connection ended after %v (the upstream streams for a minute)", who, path, status, body, closed)
			}
		}
	}
	sameAccessLogs(t, dir, 2)
}

// A proxied body cut short ends the request with an error after its
// header, and NGINX runs the post action all the same: the tracker is
// called, and the access log shows the post action's $uri and status,
// the request complete, and the body as it went out, a chunked one
// without its last chunk, with or without a charset recoding it.
func TestPostActionAfterTruncatedBodyMatchesNGINX(t *testing.T) {
	nginxPath(t)
	trackers := map[string]*tracker{"m": newTracker(t), "n": newTracker(t)}
	o := truncationOrigin(t, "http")
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`
		log_format pa '$request|$status|$uri|$body_bytes_sent|$request_completion';
		access_log %[1]s/%[2]s/access.log pa;
		charset_map koi8-r utf-8 { C1 D090; }
		server {
			listen 127.0.0.1:%[3]d;
			location /tr/ { post_action /track; proxy_pass http://%[5]s; }
			location /trc/ { post_action /track; charset utf-8; source_charset koi8-r; proxy_pass http://%[5]s; }
			location = /track { internal; proxy_pass http://%[4]s; }
		}`, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port, trackers[who].srv.Listener.Addr().String(), o.Addr())
	})
	reqs := []string{"/tr/length/3000", "/tr/chunked/3000", "/trc/length/3000", "/trc/chunked/3000"}
	for _, p := range reqs {
		req := "GET " + p + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"
		m, n := sendUntilClosed(t, mport, req), sendUntilClosed(t, nport, req)
		if strings.HasSuffix(m, "0\r\n\r\n") != strings.HasSuffix(n, "0\r\n\r\n") {
			t.Errorf("%s: last chunk: mosaic %q, nginx %q", p, m[max(0, len(m)-20):], n[max(0, len(n)-20):])
		}
	}
	sameAccessLogs(t, dir, len(reqs))
	if m, n := trackers["m"].take(), trackers["n"].take(); !slices.Equal(m, n) || len(n) != len(reqs) {
		t.Errorf("post actions: mosaic %q, nginx %q", m, n)
	}
}
