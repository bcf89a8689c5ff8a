package cache_test

import (
	"net/http"
	"runtime"
	"testing"
	"weak"

	"github.com/mosaic-edge/mosaic/cache"
)

// producer stands for what a handler's header values may be pieces of:
// FastCGI's body reader keeps an answer's values in slots beside the
// client's request and the upstream connection's reader.
type producer struct {
	slots [1]string
}

// A stored entry keeps its header's values, not what they were pieces
// of: the entry may live for days, and what produced its header (a
// gateway's body reader with the request it served) must not live as
// long.
func TestStoredHeaderDoesNotPinItsProducer(t *testing.T) {
	var held weak.Pointer[producer]
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := new(producer)
		p.slots[0] = "kept"
		w.Header()["X-Held"] = p.slots[:1:1]
		w.Header().Set("Cache-Control", "max-age=60")
		held = weak.Make(p)
		w.Write([]byte("body"))
	})
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := cache.New(next, cache.Options{Store: s, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t, echoCacheStatus(c))
	f := &front{Server: srv, cache: c, store: s}
	if r := f.get(t, "/a"); r.header.Get("X-Held") != "kept" || r.cacheStatus() != cache.StatusMiss {
		t.Fatalf("first answer %v %q", r.header, r.body)
	}
	cache.WaitBackground(c)
	if r := f.get(t, "/a"); r.header.Get("X-Held") != "kept" || r.cacheStatus() != cache.StatusHit {
		t.Fatalf("second answer %v %q, want a hit with the stored field", r.header, r.body)
	}
	for range 3 {
		runtime.GC()
	}
	if held.Value() != nil {
		t.Error("the stored entry holds what its header values were pieces of")
	}
}
