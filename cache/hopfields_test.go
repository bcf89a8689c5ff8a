package cache_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestHitKeepsHopFieldsForHTTP1: an upstream's Proxy-Connection, TE and
// Upgrade are stored, and a hit passes them to an HTTP/1.x client as
// NGINX's does (TestCacheHopFieldsAsNGINX compares that in cmd/mosaic);
// an HTTP/2 client's hit leaves them out, as connection-specific fields
// make its response malformed (RFC 9113, 8.2.2).
func TestHitKeepsHopFieldsForHTTP1(t *testing.T) {
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "max-age=60")
		h.Set("Proxy-Connection", "keep-alive")
		h.Set("Te", "trailers")
		h.Set("Upgrade", "h2c")
		w.Write([]byte("hop"))
	})
	c, err := cache.New(up, cache.Options{Store: s, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	h := echoCacheStatus(c)
	ask := func(proto int) http.Header {
		r := httptest.NewRequest(http.MethodGet, "http://a/x", nil)
		r.ProtoMajor = proto
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Result().Header
	}
	if got := ask(1).Get("X-Test-Cache"); got != cache.StatusMiss {
		t.Fatalf("first request: %q, want a miss", got)
	}
	for _, c := range []struct {
		proto int
		want  string
	}{{1, "keep-alive trailers h2c"}, {2, "  "}} {
		got := ask(c.proto)
		if s := got.Get("X-Test-Cache"); s != cache.StatusHit {
			t.Fatalf("HTTP/%d: %q, want a hit", c.proto, s)
		}
		if v := got.Get("Proxy-Connection") + " " + got.Get("Te") + " " + got.Get("Upgrade"); v != c.want {
			t.Errorf("HTTP/%d hit: Proxy-Connection, TE, Upgrade %q, want %q", c.proto, v, c.want)
		}
	}
}
