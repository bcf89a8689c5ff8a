package static

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// fixedMtime is the modification time every test file gets, so that ETags
// and Last-Modified values are known: 1600000000 is 0x5f5e1000.
var fixedMtime = time.Unix(1600000000, 0)

const (
	fixedLastModified = "Sun, 13 Sep 2020 12:26:40 GMT"
	alphabet          = "abcdefghijklmnopqrstuvwxyz"
)

// testTree builds a root directory, and a file beside it that no request
// may reach, and returns the root's path.
//
//	a.txt           the alphabet
//	4k.bin          4096 bytes
//	unknown.zzz     an extension no table knows
//	.hidden         a dot file
//	dir/index.html  a directory with an index file
//	dir/page.html
//	empty/          a directory without an index file
//	nested/index.html/x   an index "file" that is a directory
//	in-link         -> a.txt (stays inside)
//	out-link        -> ../outside.txt (leaves the root)
//	abs-link        -> absolute path of outside.txt
//	loop1, loop2    symlinks to each other
//	fifo            a named pipe
func testTree(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	files := map[string]string{
		"a.txt":               alphabet,
		"4k.bin":              strings.Repeat("0123456789abcdef", 256),
		"unknown.zzz":         "?",
		".hidden":             "dot file",
		"dir/index.html":      "<p>index</p>",
		"dir/page.html":       "<p>page</p>",
		"nested/index.html/x": "x",
		"css/site.css":        "body{}",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fixedMtime, fixedMtime); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"in-link":  "a.txt",
		"out-link": "../outside.txt",
		"abs-link": outside,
		"loop1":    "loop2",
		"loop2":    "loop1",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	mkfifo(t, filepath.Join(root, "fifo"))
	return root
}

// logBuffer collects the error-log lines of a FileServer.
type logBuffer = syncbuf.Buffer

// fixture is a FileServer behind a real loopback listener.
type fixture struct {
	t    testing.TB
	root string
	fs   *FileServer
	srv  *httptest.Server
	log  *logBuffer
}

// fixtureVariant changes how the fixtures' FileServers open files, so that
// variants_test.go can run the behaviour tests again over each way.
type fixtureVariant struct {
	name    string
	options func(t testing.TB, opts *Options) // before New
	server  func(h *FileServer)               // after New
}

// variant applies to every fixture that serve makes; the zero value
// changes nothing.
var variant fixtureVariant

// serve starts a FileServer on a fresh test tree; change adjusts its
// options.
func serve(t testing.TB, change func(*Options)) *fixture {
	t.Helper()
	fx := &fixture{t: t, root: testTree(t), log: &logBuffer{}}
	opts := Options{
		Root:   fx.root,
		Logger: slog.New(slog.NewTextHandler(fx.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if change != nil {
		change(&opts)
	}
	if variant.options != nil {
		variant.options(t, &opts)
	}
	h, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if variant.server != nil {
		variant.server(h)
	}
	fx.fs = h
	fx.srv = httptest.NewServer(h)
	t.Cleanup(func() {
		fx.srv.Close()
		h.Close()
	})
	return fx
}

// do sends a request through a real http.Client and returns the response
// with its body read.
func (fx *fixture) do(method, path string, header ...string) (*http.Response, string) {
	fx.t.Helper()
	return testclient.Do(fx.t, method, fx.srv.URL+path, header...)
}

// raw writes request-target on a bare TCP connection, so that no client
// cleans it first, and returns the response.
func (fx *fixture) raw(target string) (*http.Response, string) {
	fx.t.Helper()
	conn, err := net.DialTimeout("tcp", fx.srv.Listener.Addr().String(), 5*time.Second)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET "+target+" HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n"); err != nil {
		fx.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// expect checks a response's status and the exact values of headers
// (name, value pairs; a value of "-" means the header must be absent).
func expect(t testing.TB, resp *http.Response, status int, header ...string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s %s: status %d, want %d", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status)
	}
	for i := 0; i+1 < len(header); i += 2 {
		name, want := header[i], header[i+1]
		got, present := resp.Header[http.CanonicalHeaderKey(name)]
		switch {
		case want == "-" && present:
			t.Errorf("%s %s: %s = %q, want none", resp.Request.Method, resp.Request.URL.Path, name, got)
		case want != "-" && (len(got) != 1 || got[0] != want):
			t.Errorf("%s %s: %s = %q, want %q", resp.Request.Method, resp.Request.URL.Path, name, got, want)
		}
	}
}
