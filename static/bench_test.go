package static

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// discardWriter is the cheapest possible ResponseWriter, so that the
// allocations measured are the file server's own.
type discardWriter struct {
	header http.Header
	status int
}

func (d *discardWriter) Header() http.Header         { return d.header }
func (d *discardWriter) WriteHeader(status int)      { d.status = status }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }

func benchServer(b *testing.B) *FileServer {
	h, err := New(Options{Root: testTree(b)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// The handler alone on a 4 KB hit: open, fstat, headers, copy.
func BenchmarkServe4KDiscard(b *testing.B) {
	serveDiscard(b, benchServer(b), "/4k.bin")
}

// The same hit three directories deep: os.Root opens every directory on
// the way, so each level costs an openat and a close.
func BenchmarkServe4KNested(b *testing.B) {
	h := benchServer(b)
	deep := filepath.Join(h.rootName, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "4k.bin"), make([]byte, 4096), 0o644); err != nil {
		b.Fatal(err)
	}
	serveDiscard(b, h, "/a/b/c/4k.bin")
}

func BenchmarkServe4KRecorder(b *testing.B) {
	h := benchServer(b)
	req := httptest.NewRequest("GET", "/4k.bin", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || rec.Body.Len() != 4096 {
			b.Fatalf("status %d, %d bytes", rec.Code, rec.Body.Len())
		}
	}
}

// A 304 answer to a revalidation.
func BenchmarkServe4KNotModified(b *testing.B) {
	h := benchServer(b)
	req := httptest.NewRequest("GET", "/4k.bin", nil)
	req.Header.Set("If-None-Match", `"5f5e1000-1000"`)
	w := &discardWriter{header: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		h.ServeHTTP(w, req)
	}
	if w.status != 304 {
		b.Fatalf("status %d", w.status)
	}
}

// A 4 KB hit through a real loopback connection with keep-alive; the
// allocations include net/http's client and server.
func BenchmarkServe4KLoopback(b *testing.B) {
	h := benchServer(b)
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	req, _ := http.NewRequest("GET", srv.URL+"/4k.bin", nil)
	b.SetBytes(4096)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n != 4096 {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
}

// benchCachedServer serves with an open file cache revalidated after valid
// (0: 60 s; < 0: checked on every use).
func benchCachedServer(b *testing.B, valid time.Duration) *FileServer {
	cache := NewOpenFileCache(100, 0)
	h, err := New(Options{Root: testTree(b), OpenFileCache: cache, OpenFileCacheValid: valid})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		h.Close()
		cache.Close()
	})
	return h
}

// A 4 KB hit from the open file cache: no open, fstat or close; the body
// is read at an offset.
func BenchmarkServe4KCached(b *testing.B) {
	serveDiscard(b, benchCachedServer(b, 0), "/4k.bin")
}

// A 4 KB hit from the cache checked on every use (the binary's default):
// one fstatat by name, no open, fstat or close.
func BenchmarkServe4KChecked(b *testing.B) {
	serveDiscard(b, benchCachedServer(b, -1), "/4k.bin")
}

// serveDiscard asks h for path, expecting 200, into the cheapest writer.
func serveDiscard(b *testing.B, h *FileServer, path string) {
	req := httptest.NewRequest("GET", path, nil)
	w := &discardWriter{header: make(http.Header)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		h.ServeHTTP(w, req)
	}
	if w.status != 200 {
		b.Fatalf("status %d", w.status)
	}
}

// loopback fetches path from h through a real connection with keep-alive.
func loopback(b *testing.B, h *FileServer, path string, size int) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := srv.Client()
	req, _ := http.NewRequest("GET", srv.URL+path, nil)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || n != int64(size) {
			b.Fatalf("status %d, %d bytes", resp.StatusCode, n)
		}
	}
}

func BenchmarkServe4KCachedLoopback(b *testing.B) {
	loopback(b, benchCachedServer(b, 0), "/4k.bin", 4096)
}

// writeMB puts a 1 MB file in h's root.
func writeMB(b *testing.B, h *FileServer) {
	if err := os.WriteFile(filepath.Join(h.rootName, "1m.bin"), make([]byte, 1<<20), 0o644); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkServe1MLoopback(b *testing.B) {
	h := benchServer(b)
	writeMB(b, h)
	loopback(b, h, "/1m.bin", 1<<20)
}

func BenchmarkServe1MCachedLoopback(b *testing.B) {
	h := benchCachedServer(b, 0)
	writeMB(b, h)
	loopback(b, h, "/1m.bin", 1<<20)
}
