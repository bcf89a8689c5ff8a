// Package testuwsgi runs the real uWSGI application server (Debian's
// uwsgi-core with its python3 plugin) for tests of the uwsgi and SCGI
// gateways, on a unix socket or a loopback port in the test's temporary
// directory, with a small WSGI application that answers what the tests
// ask.
package testuwsgi

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binary returns the uWSGI command: "uwsgi", or the "uwsgi-core" that
// Debian's uwsgi-core package installs when no alternative names it so.
func binary() string {
	for _, name := range []string{"uwsgi", "uwsgi-core"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// App is the WSGI application served:
//
//	/echo        200, a JSON object of the request as the application
//	             saw it: "env" (the CGI variables, HTTP_* included),
//	             "body" (the request body); cookies set with Set-Cookie
//	             from the query's "set" arguments, X-App: yes
//	/notfound    404 with a body
//	/error       500 with a body
//	/fail        an exception before any answer: uWSGI closes the
//	             connection without one (NGINX answers 502)
//	/redirect    302 to the query's "to"
//	/status      a CGI-style answer without a status line is not
//	             possible from WSGI; this answers 201 with no body
//	/accel?to=U  200 with X-Accel-Redirect: U, a Content-Disposition and
//	             a body the server must not pass on
//	/slow?ms=N   sleeps N milliseconds, then 200 "slow"
//	/size?n=N    200 with N bytes of "x"
//	other        200 "hello from wsgi <path>"
const App = `
import json, time
from urllib.parse import parse_qs

def application(env, start_response):
    path = env.get('PATH_INFO', '')
    q = parse_qs(env.get('QUERY_STRING', ''))
    if path.endswith('/echo'):
        n = int(env.get('CONTENT_LENGTH') or 0)
        body = env['wsgi.input'].read(n) if n else b''
        out = json.dumps({'env': {k: v for k, v in env.items() if isinstance(v, str) and k == k.upper()},
                          'body': body.decode('latin-1')}).encode()
        headers = [('Content-Type', 'application/json'), ('X-App', 'yes')]
        for c in q.get('set', []):
            headers.append(('Set-Cookie', c))
        start_response('200 OK', headers)
        return [out]
    if path.endswith('/notfound'):
        start_response('404 Not Found', [('Content-Type', 'text/plain')])
        return [b'no such page\n']
    if path.endswith('/error'):
        start_response('500 Internal Server Error', [('Content-Type', 'text/plain')])
        return [b'server error\n']
    if path.endswith('/fail'):
        raise RuntimeError('the application failed')
    if path.endswith('/redirect'):
        start_response('302 Found', [('Location', q.get('to', ['/'])[0])])
        return [b'']
    if path.endswith('/status'):
        start_response('201 Created', [])
        return []
    if path.endswith('/accel'):
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('X-Accel-Redirect', q.get('to', ['/'])[0]),
                                  ('Content-Disposition', 'attachment; filename="f.txt"')])
        return [b'app body: must not be seen']
    if path.endswith('/slow'):
        time.sleep(int(q.get('ms', ['1000'])[0]) / 1000)
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'slow\n']
    if path.endswith('/size'):
        n = int(q.get('n', ['0'])[0])
        start_response('200 OK', [('Content-Type', 'text/plain'), ('Content-Length', str(n))])
        return [b'x' * n]
    start_response('200 OK', [('Content-Type', 'text/plain; charset=utf-8')])
    return [('hello from wsgi ' + path + '\n').encode()]
`

// Server is a running uWSGI.
type Server struct {
	// Network and Address are where it listens: "unix" and a socket
	// path, or "tcp" and "127.0.0.1:port".
	Network, Address string
	// Log is uWSGI's log file.
	Log string

	cmd  *exec.Cmd
	once sync.Once
	done chan struct{}
}

// Skip skips the test when uWSGI or its python3 plugin is not installed.
func Skip(t testing.TB) {
	t.Helper()
	if binary() == "" {
		t.Skip("uwsgi is not installed (Debian: uwsgi-core uwsgi-plugin-python3)")
	}
	if m, _ := filepath.Glob("/usr/lib/uwsgi/plugins/python3*_plugin.so"); len(m) == 0 {
		t.Skip("uwsgi's python3 plugin is not installed (Debian: uwsgi-plugin-python3)")
	}
}

// Start runs uWSGI with App in a temporary directory, on a unix socket
// when unix is set, else on a free loopback port, with four threads, and
// waits until it accepts connections. The test's cleanup stops it.
func Start(t testing.TB, unix bool) *Server {
	t.Helper()
	return start(t, unix, "--socket")
}

// StartSCGI is Start with uWSGI speaking SCGI (--scgi-socket). Its answers
// are CGI-style ("Status: 200 OK", no status line), and it takes the
// application's path from PATH_INFO, which Debian's scgi_params does not
// send: a configuration adds "scgi_param PATH_INFO $document_uri".
func StartSCGI(t testing.TB, unix bool) *Server {
	t.Helper()
	return start(t, unix, "--scgi-socket")
}

func start(t testing.TB, unix bool, socketFlag string) *Server {
	t.Helper()
	Skip(t)
	dir := t.TempDir()
	app := filepath.Join(dir, "app.py")
	if err := os.WriteFile(app, []byte(App), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Server{Log: filepath.Join(dir, "uwsgi.log"), done: make(chan struct{})}
	if unix {
		s.Network, s.Address = "unix", filepath.Join(dir, "app.sock")
	} else {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.Network, s.Address = "tcp", ln.Addr().String()
		ln.Close()
	}
	s.cmd = exec.Command(binary(), "--plugin", "python3", socketFlag, s.Address,
		"--wsgi-file", app, "--threads", "4", "--logto", s.Log, "--die-on-term")
	s.cmd.Dir = dir
	dieWithParent(s.cmd)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.Stop)
	// uWSGI binds its socket before it loads the application: it is
	// ready when its log says so, and the socket accepts.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if strings.Contains(s.ReadLog(), "WSGI app 0 (mountpoint='') ready") {
			c, err := net.Dial(s.Network, s.Address)
			if err == nil {
				c.Close()
				break
			}
		}
		select {
		case <-s.done:
			t.Fatalf("uwsgi exited: %s", s.ReadLog())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("uwsgi does not accept on %s: %s", s.Address, s.ReadLog())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

// Stop stops uWSGI and waits for it to exit.
func (s *Server) Stop() {
	s.once.Do(func() {
		s.cmd.Process.Kill()
		<-s.done
		if s.Network == "unix" {
			os.Remove(s.Address)
		}
	})
}

// ReadLog returns uWSGI's log.
func (s *Server) ReadLog() string {
	b, _ := os.ReadFile(s.Log)
	return string(b)
}
