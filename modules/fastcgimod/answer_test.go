package fastcgimod_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/fastcgi"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// scriptedApp is a FastCGI application on a Unix-domain socket that keeps
// its connections and answers each request with what answer returns for
// the request's parameters: the content of its STDOUT stream. conns
// counts the connections it accepted.
type scriptedApp struct {
	sock  string
	conns atomic.Int32
}

func newScriptedApp(t *testing.T, answer func(params map[string]string) string) *scriptedApp {
	t.Helper()
	a := &scriptedApp{sock: filepath.Join(t.TempDir(), "app.sock")}
	ln, err := net.Listen("unix", a.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.conns.Add(1)
			go a.serve(c, answer)
		}
	}()
	return a
}

func (a *scriptedApp) serve(c net.Conn, answer func(map[string]string) string) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		pairs, err := readRequest(br)
		if err != nil {
			return
		}
		decoded, _ := fastcgi.ParsePairs(pairs)
		params := map[string]string{}
		for _, p := range decoded {
			params[p[0]] = p[1]
		}
		var out []byte
		for rest := answer(params); rest != ""; {
			n := min(len(rest), 32<<10)
			out = fastcgi.AppendRecord(out, fastcgi.TypeStdout, []byte(rest[:n]))
			rest = rest[n:]
		}
		out = fastcgi.AppendRecord(out, fastcgi.TypeStdout, nil)
		out = fastcgi.AppendRecord(out, fastcgi.TypeEndRequest, make([]byte, 8))
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// readRequest reads a request's records up to the end of its STDIN and
// returns its parameters' content.
func readRequest(br *bufio.Reader) (pairs []byte, err error) {
	for {
		h, content, err := fastcgi.ReadRecord(br)
		if err != nil {
			return nil, err
		}
		if h.Type == fastcgi.TypeParams {
			pairs = append(pairs, content...)
		}
		if h.Type == fastcgi.TypeStdin && len(content) == 0 {
			return pairs, nil
		}
	}
}

// fastcgiLocation is the location every test here serves through both
// servers: the application's connections kept.
const fastcgiLocation = `location / { include fastcgi_params; fastcgi_keep_conn on; fastcgi_pass app; }`

// startMosaic serves fastcgiLocation in front of app, with its error log
// (warnings and up) in the returned file.
func startMosaic(t *testing.T, app *scriptedApp) (addr, errorLog string) {
	t.Helper()
	errorLog = filepath.Join(t.TempDir(), "error.log")
	base := servertest.Start(t, `http { access_log off; error_log `+errorLog+` warn;
		upstream app { server unix:`+app.sock+`; keepalive 4; }
		server { listen 127.0.0.1:0; `+fastcgiLocation+` } }`)
	return strings.TrimPrefix(base, "http://"), errorLog
}

// startNGINX serves the same location with Debian's NGINX, or skips the
// test without it.
func startNGINX(t *testing.T, app *scriptedApp) (addr, errorLog string) {
	t.Helper()
	bin := "/usr/sbin/nginx"
	if _, err := os.Stat(bin); err != nil {
		t.Skip("no NGINX to compare with")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	errorLog = filepath.Join(dir, "error.log")
	conf := fmt.Sprintf(`daemon off; master_process off; worker_processes 1;
		error_log %[1]s/error.log warn; pid %[1]s/nginx.pid;
		events { worker_connections 64; }
		http { access_log off; client_body_temp_path %[1]s/body; fastcgi_temp_path %[1]s/fastcgi;
			upstream app { server unix:%[2]s; keepalive 4; }
			server { listen %[3]s; %[4]s } }`,
		dir, app.sock, addr, strings.ReplaceAll(fastcgiLocation, "include fastcgi_params", "include /etc/nginx/fastcgi_params"))
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", errorLog)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr, errorLog
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("NGINX did not start")
	return "", ""
}

// servers runs check against mosaic and, when installed, NGINX, each in
// front of its own app.
func servers(t *testing.T, answer func(map[string]string) string, check func(t *testing.T, app *scriptedApp, addr, errorLog string)) {
	for _, s := range []struct {
		name  string
		start func(*testing.T, *scriptedApp) (string, string)
	}{{"mosaic", startMosaic}, {"nginx", startNGINX}} {
		t.Run(s.name, func(t *testing.T) {
			app := newScriptedApp(t, answer)
			addr, errorLog := s.start(t, app)
			check(t, app, addr, errorLog)
		})
	}
}

// exchange sends each request on one client connection and returns the
// responses' statuses and bodies; a response that does not come ends the
// list.
func exchange(t *testing.T, addr string, requests ...string) (statuses []int, bodies []string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	for _, req := range requests {
		io.WriteString(c, req)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return
		}
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return
		}
		statuses, bodies = append(statuses, resp.StatusCode), append(bodies, string(b))
	}
	return
}

// waitForLog waits a little for text in an error log that is written
// after the response.
func waitForLog(path, text string) bool {
	for i := 0; i < 50; i++ {
		if b, _ := os.ReadFile(path); strings.Contains(string(b), text) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// A script that states a Content-Length and then writes more (PHP's
// notices after a header() call): the client gets the stated length and
// its connection goes on, and the warning NGINX logs is logged. NGINX
// then closes the application's connection. mosaic keeps it when the
// rest of the answer came with the body (a short notice): read to its
// END_REQUEST it is at the end of an answer like any other, and the next
// request goes on it; a longer rest is not waited for, the connection is
// closed.
func TestBodyLongerThanContentLengthIsCut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra string
		conns int32 // mosaic's connections to the application; 0: any
	}{
		{"short rest", "<br>Notice: undefined index", 1},
		{"long rest", "<br>Notice: undefined index" + strings.Repeat(".", 70000), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(p map[string]string) string {
				if p["DOCUMENT_URI"] == "/long" {
					return "Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n01234" + tc.extra
				}
				return "Content-Type: text/plain\r\n\r\nnext"
			}
			servers(t, answer, func(t *testing.T, app *scriptedApp, addr, errorLog string) {
				statuses, bodies := exchange(t, addr,
					"GET /long HTTP/1.1\r\nHost: x\r\n\r\n", "GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
				if fmt.Sprint(statuses, bodies) != "[200 200] [01234 next]" {
					t.Errorf("got %v %q, want 200 %q then 200 %q on the same connection", statuses, bodies, "01234", "next")
				}
				if n := app.conns.Load(); tc.conns != 0 && n != tc.conns && strings.HasSuffix(t.Name(), "/mosaic") {
					t.Errorf("the application was connected to %d times, want %d", n, tc.conns)
				}
				if !waitForLog(errorLog, "upstream sent more data than specified in") {
					b, _ := os.ReadFile(errorLog)
					t.Errorf("no warning in the error log: %s", b)
				}
			})
		})
	}
}

// An application that states a Content-Length and then goes on writing,
// a piece every 50 ms: the client gets the stated length at once, as from
// NGINX, and the next request it sent is served, where waiting for the
// end of the application's output would hold both for as long as it
// writes.
func TestBodyEndsAtLengthWhileApplicationWrites(t *testing.T) {
	app := &scriptedApp{sock: filepath.Join(t.TempDir(), "app.sock")}
	ln, err := net.Listen("unix", app.sock)
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				if _, err := readRequest(bufio.NewReader(c)); err != nil {
					return
				}
				out := fastcgi.AppendRecord(nil, fastcgi.TypeStdout, []byte("Content-Type: text/plain\r\nContent-Length: 5\r\n\r\n01234more"))
				piece := fastcgi.AppendRecord(nil, fastcgi.TypeStdout, []byte(strings.Repeat(".", 1000)))
				for {
					if _, err := c.Write(out); err != nil {
						return
					}
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					out = piece
				}
			}(c)
		}
	}()
	for _, s := range []struct {
		name  string
		start func(*testing.T, *scriptedApp) (string, string)
	}{{"mosaic", startMosaic}, {"nginx", startNGINX}} {
		t.Run(s.name, func(t *testing.T) {
			addr, _ := s.start(t, app)
			// The application writes until the test ends: a server that
			// waited for its end would answer neither request before
			// exchange's deadline (5 s). A bound of 2 s on the time
			// failed under load.
			statuses, bodies := exchange(t, addr, "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", "GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
			if fmt.Sprint(statuses, bodies) != "[200 200] [01234 01234]" {
				t.Errorf("got %v %q, want 200 %q twice", statuses, bodies, "01234")
			}
		})
	}
}

// An absolute-form request target ("GET http://other.example/x.php?a=1",
// as proxies send it) gives the application the path and query as
// REQUEST_URI, NGINX's $request_uri: routers match it, and applications
// build links from it.
func TestAbsoluteFormTargetGivesPathAsRequestURI(t *testing.T) {
	answer := func(p map[string]string) string {
		return "Content-Type: text/plain\r\n\r\n" + p["REQUEST_URI"] + " " + p["DOCUMENT_URI"]
	}
	servers(t, answer, func(t *testing.T, _ *scriptedApp, addr, _ string) {
		_, bodies := exchange(t, addr, "GET http://other.example/x.php?a=1 HTTP/1.1\r\nHost: x\r\n\r\n")
		if want := "/x.php?a=1 /x.php"; len(bodies) != 1 || bodies[0] != want {
			t.Errorf("REQUEST_URI and DOCUMENT_URI: %q, want %q", bodies, want)
		}
	})
}

// Two Content-Length lines that disagree: no length can be trusted to
// end the body, so the answer is an invalid header, 502, as NGINX 1.23
// and later have it ("upstream sent duplicate header line"). Debian's
// NGINX 1.22 takes one of them, so it is not compared.
func TestConflictingContentLengthIsBadGateway(t *testing.T) {
	app := newScriptedApp(t, func(map[string]string) string {
		return "Content-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789"
	})
	addr, _ := startMosaic(t, app)
	if statuses, bodies := exchange(t, addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); len(statuses) != 1 || statuses[0] != 502 {
		t.Errorf("got %v %q, want 502", statuses, bodies)
	}
}

// An X-Accel-Redirect however the application spells its name, and after
// more fields than the head's parse keeps in place, is acted on, as by
// NGINX: the request is served again for the target. (The parse notes
// whether a head holds any X-Accel-* field, and a head without one is
// relayed without looking them up.)
func TestAccelRedirectSpellingsAsNGINX(t *testing.T) {
	many := ""
	for i := range 20 {
		many += fmt.Sprintf("X-Field-%d: %d\r\n", i, i)
	}
	for _, tc := range []struct{ name, head string }{
		{"canonical", "X-Accel-Redirect: /target\r\n"},
		{"lower case", "x-accel-redirect: /target\r\n"},
		{"after many fields", many + "X-ACCEL-REDIRECT: /target\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(p map[string]string) string {
				if p["DOCUMENT_URI"] == "/target" {
					return "Content-Type: text/plain\r\n\r\ntarget"
				}
				return tc.head + "Content-Type: text/plain\r\n\r\nscript"
			}
			servers(t, answer, func(t *testing.T, app *scriptedApp, addr, errorLog string) {
				statuses, bodies := exchange(t, addr, "GET /script HTTP/1.1\r\nHost: x\r\n\r\n")
				if fmt.Sprint(statuses, bodies) != "[200] [target]" {
					t.Errorf("got %v %q, want 200 %q", statuses, bodies, "target")
				}
			})
		})
	}
}

// Of two Content-Type lines beside an X-Accel-Redirect, the last is the
// redirected answer's type (the target's own answer has none), as NGINX
// copies each line over the one before.
func TestAccelRedirectLastContentTypeAsNGINX(t *testing.T) {
	answer := func(p map[string]string) string {
		if p["DOCUMENT_URI"] == "/target" {
			return "X-Target: 1\r\n\r\ntarget"
		}
		return "Content-Type: text/first\r\nContent-Type: text/last\r\nX-Accel-Redirect: /target\r\n\r\nscript"
	}
	servers(t, answer, func(t *testing.T, app *scriptedApp, addr, errorLog string) {
		resp, err := http.Get("http://" + addr + "/script")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Values("Content-Type"); fmt.Sprint(got) != "[text/last]" {
			t.Errorf("Content-Type %q, want [text/last]", got)
		}
	})
}

// An answer's fields reach the client as from NGINX: repeated names with
// every value in order, the last Content-Type, Status hidden, whatever
// the spelling, in a head of few names (whose values the parse keeps in
// the Head's slots, a name found again among the names before it) and of
// many (in the map).
func TestAnswerFieldsAsNGINX(t *testing.T) {
	few := "Content-type: text/plain\r\nSet-Cookie: a=1\r\nStatus: 201 Made\r\nX-Powered-By: PHP/8.2\r\n" +
		"set-cookie: b=2\r\nContent-Type: text/html\r\nX-Powered-By: again\r\n"
	many := few
	for i := range 12 {
		many += fmt.Sprintf("X-Field-%d: %d\r\nSet-Cookie: c%d=%d\r\n", i, i, i, i)
	}
	for _, tc := range []struct{ name, head string }{{"few names", few}, {"many names", many}} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			servers(t, func(map[string]string) string { return tc.head + "\r\nbody" },
				func(t *testing.T, app *scriptedApp, addr, errorLog string) {
					c, err := net.Dial("tcp", addr)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					c.SetDeadline(time.Now().Add(5 * time.Second))
					io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
					resp, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						t.Fatal(err)
					}
					b, _ := io.ReadAll(resp.Body)
					for _, k := range []string{"Date", "Server", "Connection", "Keep-Alive", "Content-Length"} {
						resp.Header.Del(k)
					}
					var fields []string
					for k, vv := range resp.Header {
						fields = append(fields, k+": "+strings.Join(vv, " | "))
					}
					slices.Sort(fields)
					got[t.Name()[strings.LastIndex(t.Name(), "/")+1:]] = fmt.Sprintf("%s\n%s\n%s", resp.Status, strings.Join(fields, "\n"), b)
				})
			if want, ok := got["nginx"]; ok && got["mosaic"] != want {
				t.Errorf("mosaic:\n%s\nNGINX:\n%s", got["mosaic"], want)
			}
			if !strings.Contains(got["mosaic"], "Set-Cookie: a=1 | b=2") || strings.Contains(got["mosaic"], "Status") {
				t.Errorf("mosaic:\n%s", got["mosaic"])
			}
		})
	}
}
