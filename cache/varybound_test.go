package cache_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestVaryBounds, in the memory and Redis stores: as in NGINX, every
// variant of a key is an entry of its own, found again (each language a
// HIT on its second request), and a response with a Vary line over 128
// bytes (NGX_HTTP_CACHE_VARY_LEN) is not stored, so one response cannot
// make its variants depend on an unbounded list of request fields. The
// NGINX comparison is cmd/mosaic's TestCacheVaryLengthBoundAsNGINX.
func TestVaryBounds(t *testing.T) {
	stores := map[string]func(t *testing.T) cache.Store{
		"memory": func(t *testing.T) cache.Store { return nil }, // newFront's default
		"redis": func(t *testing.T) cache.Store {
			return newRedisStore(t, testRedis(t).url(), uniquePrefix(t), cache.RedisOptions{})
		},
	}
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				vary := "Accept-Language"
				if r.URL.Path == "/long" {
					vary += ", X-" + strings.Repeat("p", 128-len(vary+", X-")+1)
				}
				w.Header().Set("Vary", vary)
				fmt.Fprint(w, r.Header.Get("Accept-Language"))
			})
			f := newFront(t, o, cache.Options{Store: store(t)})
			langs := []string{"en", "fr", "de", "it", "es", "pt", "nl", "sv"}
			for _, want := range []string{cache.StatusMiss, cache.StatusHit} {
				for _, l := range langs {
					if r := f.get(t, "/v", "Accept-Language", l); r.cacheStatus() != want || r.body != l {
						t.Fatalf("/v %s: %s %q, want %s", l, r.cacheStatus(), r.body, want)
					}
				}
			}
			for range 2 {
				if r := f.get(t, "/long", "Accept-Language", "en"); r.cacheStatus() != cache.StatusMiss {
					t.Fatalf("/long with a 129-byte Vary: %s, want %s", r.cacheStatus(), cache.StatusMiss)
				}
			}
		})
	}
}
