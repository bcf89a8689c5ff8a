package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// generationCounter counts the store round trips a POST costs.
type generationCounter struct {
	cache.Store
	n atomic.Int64
}

func (g *generationCounter) Generation(ctx context.Context) (uint64, error) {
	g.n.Add(1)
	return g.Store.Generation(ctx)
}

// TestPostReuseOffCostsNothing: without PostReuse a POST goes upstream
// as before the cache knew RFC 9110 section 9.3.3: no store lookup, no
// Cache-Status, its Accept-Encoding untouched, and nothing stored even
// with a lifetime and Content-Location of its URI. PostReuse on looks the
// store up once.
func TestPostReuseOffCostsNothing(t *testing.T) {
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("PostReuse ", on), func(t *testing.T) {
			o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Content-Location", "/p")
				w.Header().Set("X-Sent", r.Header.Get("Accept-Encoding"))
				fmt.Fprint(w, r.Method)
			})
			mem, err := cache.NewMemoryStore(cache.MemoryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mem.Close() })
			store := &generationCounter{Store: mem}
			f := newFront(t, o, cache.Options{Store: store, PostReuse: on})
			got := f.do(t, http.MethodPost, "/p", "Accept-Encoding", "br;q=0.5, x-foo")
			lookups, cs, sent := store.n.Load(), got.header.Get("Cache-Status"), got.header.Get("X-Sent")
			if !on && (lookups != 0 || cs != "" || sent != "br;q=0.5, x-foo") {
				t.Errorf("POST: %d store lookups, Cache-Status %q, Accept-Encoding sent %q; want none, none, the client's", lookups, cs, sent)
			}
			if on && (lookups != 1 || cs == "" || sent != "br") {
				t.Errorf("POST: %d store lookups, Cache-Status %q, Accept-Encoding sent %q; want 1, one, br", lookups, cs, sent)
			}
			want := cache.StatusMiss
			if on {
				want = cache.StatusHit
			}
			if got := f.do(t, http.MethodGet, "/p", "Accept-Encoding", "br"); got.cacheStatus() != want {
				t.Errorf("GET after the POST: %q, want %q", got.cacheStatus(), want)
			}
		})
	}
}
