package static

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// readFromSpy passes a response through and records what the file server
// hands to ReadFrom, the path net/http turns into sendfile.
type readFromSpy struct {
	http.ResponseWriter
	sources []string
}

// ReadFrom calls a source a file when it is what net's sendfile path takes:
// a syscall.Conn (an *os.File, or the descriptor openat2 opened), alone or
// inside an io.LimitedReader.
func (s *readFromSpy) ReadFrom(src io.Reader) (int64, error) {
	kind := "other"
	if lr, ok := src.(*io.LimitedReader); ok {
		if _, ok := lr.R.(syscall.Conn); ok {
			kind = "limited file"
		}
	} else if _, ok := src.(syscall.Conn); ok {
		kind = "file"
	}
	s.sources = append(s.sources, kind)
	return s.ResponseWriter.(io.ReaderFrom).ReadFrom(src)
}

func (s *readFromSpy) Flush() { s.ResponseWriter.(http.Flusher).Flush() }

func (s *readFromSpy) seen() string {
	return strings.Join(s.sources, ",")
}

// A body longer than inlineMax goes out through io.ReaderFrom with the
// open file itself, on a real connection: the whole file, one range and
// every long part of a multipart answer. Shorter bodies and parts are read
// into memory and written.
func TestBodyGoesThroughReadFrom(t *testing.T) {
	root := testTree(t)
	file := strings.Repeat("0123456789abcdef", 4096) // 64 KB
	if err := os.WriteFile(filepath.Join(root, "64k.bin"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	spies := make(chan *readFromSpy, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := w.(io.ReaderFrom); !ok {
			t.Error("net/http's ResponseWriter has no ReadFrom")
		}
		spy := &readFromSpy{ResponseWriter: w}
		h.ServeHTTP(spy, r)
		spies <- spy
	}))
	defer srv.Close()

	for _, c := range []struct {
		path, rng, want, sources string
	}{
		{"/64k.bin", "", file, "limited file"},
		{"/64k.bin", "bytes=100-20099", file[100:20100], "limited file"},
		{"/64k.bin", "bytes=0-19999,30000-", "", "limited file,limited file"},
		{"/64k.bin", "bytes=0-19999,50000-", "", "limited file"},
		{"/64k.bin", "bytes=0-9,30000-", "", "limited file"},
		{"/64k.bin", "bytes=100-16483", file[100:16484], ""},
		{"/4k.bin", "", file[:4096], ""},
		{"/a.txt", "", alphabet, ""},
	} {
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		if c.rng != "" {
			req.Header.Set("Range", c.rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if c.want != "" && string(body) != c.want {
			t.Errorf("%s Range %q: body differs", c.path, c.rng)
		}
		if got := (<-spies).seen(); got != c.sources {
			t.Errorf("%s Range %q: ReadFrom saw %q, want %q", c.path, c.rng, got, c.sources)
		}
	}
}

// writeCounter counts the writes to the connections it accepts.
type writeCounter struct {
	net.Listener
	writes atomic.Int32
}

func (l *writeCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l *writeCounter
}

func (c *countedConn) Write(p []byte) (int, error) {
	c.l.writes.Add(1)
	return c.Conn.Write(p)
}

// A small body leaves with its header in one write to the connection, as
// NGINX's does with sendfile off, with and without the open file cache.
func TestSmallBodyInOneWrite(t *testing.T) {
	for _, cached := range []bool{false, true} {
		fx := serve(t, func(o *Options) {
			if cached {
				o.OpenFileCache = NewOpenFileCache(10, 0)
				t.Cleanup(func() { o.OpenFileCache.Close() })
			}
		})
		srv := httptest.NewUnstartedServer(fx.fs)
		counter := &writeCounter{Listener: srv.Listener}
		srv.Listener = counter
		srv.Start()
		client := srv.Client()
		for _, c := range []struct{ path, rng, want string }{
			{"/a.txt", "", alphabet},
			{"/4k.bin", "bytes=16-47", "0123456789abcdef0123456789abcdef"},
			{"/dir/page.html", "", "<p>page</p>"},
			{"/a.txt", "", alphabet}, // a cache hit
		} {
			req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
			if c.rng != "" {
				req.Header.Set("Range", c.rng)
			}
			before := counter.writes.Load()
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != c.want {
				t.Errorf("cached=%v %s: body %q", cached, c.path, body)
			}
			if n := counter.writes.Load() - before; n != 1 {
				t.Errorf("cached=%v %s %s: %d writes, want 1", cached, c.path, c.rng, n)
			}
		}
		srv.Close()
	}
}

// A writer without ReadFrom (a recorder, a filter) still gets the body,
// copied through a pooled buffer.
func TestBodyWithoutReadFrom(t *testing.T) {
	fx := serve(t, nil)
	rec := httptest.NewRecorder()
	fx.fs.ServeHTTP(rec, httptest.NewRequest("GET", "/4k.bin", nil))
	if rec.Code != 200 || rec.Body.String() != strings.Repeat("0123456789abcdef", 256) {
		t.Errorf("status %d, %d bytes", rec.Code, rec.Body.Len())
	}
	rec = httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/4k.bin", nil)
	req.Header.Set("Range", "bytes=0-1,-2")
	fx.fs.ServeHTTP(rec, req)
	if rec.Code != 206 || !strings.Contains(rec.Body.String(), "\r\n\r\n01\r\n--") {
		t.Errorf("multipart through a recorder: status %d, body %q", rec.Code, rec.Body)
	}
}
