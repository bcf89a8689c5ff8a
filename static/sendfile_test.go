package static

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// The body goes out through io.ReaderFrom with the open file itself, on a
// real connection, for the whole file, one range and every part of a
// multipart answer.
func TestBodyGoesThroughReadFrom(t *testing.T) {
	root := testTree(t)
	h, err := Handler(Options{Root: root})
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
	file := strings.Repeat("0123456789abcdef", 256)

	for _, c := range []struct {
		rng, want, sources string
	}{
		{"", file, "limited file"},
		{"bytes=100-2099", file[100:2100], "limited file"},
		{"bytes=0-9,4000-", "", "limited file,limited file"},
	} {
		req, _ := http.NewRequest("GET", srv.URL+"/4k.bin", nil)
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
			t.Errorf("Range %q: body differs", c.rng)
		}
		if got := (<-spies).seen(); got != c.sources {
			t.Errorf("Range %q: ReadFrom saw %q, want %q", c.rng, got, c.sources)
		}
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
