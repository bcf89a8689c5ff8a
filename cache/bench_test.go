package cache_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// benchWriter is a ResponseWriter that keeps nothing, so that a benchmark
// measures the cache and not a recorder.
type benchWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *benchWriter) Header() http.Header         { return w.h }
func (w *benchWriter) WriteHeader(code int)        { w.status = code }
func (w *benchWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// benchHit measures a cache hit of a 4 KiB response through the handler.
func benchHit(b *testing.B, store cache.Store) {
	body := strings.Repeat("x", 4<<10)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("ETag", `"bench"`)
		w.Write([]byte(body))
	})
	c, err := cache.New(next, cache.Options{Store: store, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/bench", nil)
	w := &benchWriter{h: make(http.Header, 8)}
	c.ServeHTTP(w, req) // fill
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		clear(w.h)
		w.n = 0
		c.ServeHTTP(w, req)
	}
	if s := c.Stats().Snapshot(); s.Miss != 1 || s.Hit == 0 || w.n != len(body) {
		b.Fatalf("not a hit: %+v, %d bytes", s, w.n)
	}
}

func BenchmarkMemoryHit(b *testing.B) {
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchHit(b, s)
}

func BenchmarkDiskHit(b *testing.B) {
	s, err := cache.NewDiskStore(b.TempDir(), cache.DiskOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchHit(b, s)
}

func BenchmarkRedisHit(b *testing.B) {
	s := newRedisStore(b, testRedis(b).url(), uniquePrefix(b), cache.RedisOptions{})
	benchHit(b, s)
}
