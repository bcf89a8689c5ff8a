package cache_test

import (
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

func TestHitAfterMiss(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Write([]byte("hello"))
	})
	f := newFront(t, o, cache.Options{})
	r1 := f.get(t, "/a")
	r2 := f.get(t, "/a")
	if r1.body != "hello" || r2.body != "hello" {
		t.Fatalf("bodies %q %q", r1.body, r2.body)
	}
	if r1.cacheStatus() != cache.StatusMiss || r2.cacheStatus() != cache.StatusHit {
		t.Fatalf("statuses %q %q", r1.cacheStatus(), r2.cacheStatus())
	}
	if n := o.hits.Load(); n != 1 {
		t.Fatalf("origin saw %d requests, want 1", n)
	}
}
