package cache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// hitOrForward shortens a Cache-Status value to what does not depend on
// the clock: a hit's remaining lifetime is left out.
func hitOrForward(cs string) string {
	cs, _, _ = strings.Cut(cs, "; ttl=")
	return cs
}

// A cache with the memory store in front of a handler that counts its
// calls: the second request is served from the store.
func ExampleNew() {
	store, err := cache.NewMemoryStore(cache.MemoryOptions{MaxSize: 64 << 20})
	if err != nil {
		panic(err)
	}
	defer store.Close()

	calls := 0
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "page %s", r.URL.Path)
	})
	c, err := cache.New(origin, cache.Options{Store: store})
	if err != nil {
		panic(err)
	}
	for range 2 {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/a", nil))
		fmt.Printf("%d %q: %s\n", w.Code, w.Body, hitOrForward(w.Header().Get("Cache-Status")))
	}
	fmt.Println("origin calls:", calls)
	// Output:
	// 200 "page /a": mosaic; fwd=miss; fwd-status=200; stored
	// 200 "page /a": mosaic; hit
	// origin calls: 1
}

// A handler behind the cache that cannot reach the origin says so before
// it writes its error: the error is not stored, even where its status
// would be (proxy_cache_valid any), and proxy_cache_use_stale may serve a
// stale entry in its place.
func ExampleReportFailure() {
	store, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		panic(err)
	}
	defer store.Close()

	calls := 0
	origin := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			cache.ReportFailure(w, cache.FailError)
			http.Error(w, "origin unreachable", http.StatusBadGateway)
			return
		}
		fmt.Fprint(w, "fresh")
	})
	c, err := cache.New(origin, cache.Options{
		Store: store,
		Valid: []cache.Valid{{Any: true, TTL: time.Minute}},
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		w := httptest.NewRecorder()
		c.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		fmt.Printf("%d %s\n", w.Code, hitOrForward(w.Header().Get("Cache-Status")))
	}
	fmt.Println("origin calls:", calls)
	// Output:
	// 502 mosaic; fwd=miss; fwd-status=502; detail=upstream-failure
	// 200 mosaic; fwd=miss; fwd-status=200; stored
	// 200 mosaic; hit
	// origin calls: 2
}
