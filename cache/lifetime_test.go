package cache_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestVeryLongLifetimesAreKept: a lifetime past what a time.Duration
// holds, or ending past 2262 (what the stores' metadata encoding holds),
// is "forever" to the origin, and every store keeps and serves such a
// response. Each of these was lost somewhere: X-Accel-Expires seconds
// wrapped in the multiplication, the stores read a year-9999 FreshUntil
// back as 1816, and Redis got a negative or 1 ms TTL (and a negative
// PEXPIRE that deleted the chunks) when a stale window or inactive was
// added to a lifetime near the largest Duration. Redis keeps such an
// entry for a year plus inactive.
func TestVeryLongLifetimesAreKept(t *testing.T) {
	lifetimes := []struct {
		name, field, value string
	}{
		{"X-Accel-Expires seconds", "X-Accel-Expires", "9300000000"},
		{"X-Accel-Expires time", "X-Accel-Expires", "@99999999999"},
		{"Expires in 9999", "Expires", "Fri, 31 Dec 9999 23:59:59 GMT"},
		{"max-age", "Cache-Control", "max-age=99999999999"},
		{"stale windows", "Cache-Control", "max-age=60, stale-while-revalidate=99999999999, stale-if-error=99999999999"},
	}
	body := strings.Repeat("x", 100<<10) // more than one chunk in every store
	for _, store := range []string{"memory", "disk", "redis"} {
		for _, lt := range lifetimes {
			t.Run(store+"/"+lt.name, func(t *testing.T) {
				o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set(lt.field, lt.value)
					fmt.Fprint(w, body)
				})
				var st cache.Store
				prefix, dir := uniquePrefix(t), t.TempDir()
				switch store {
				case "memory":
					ms, err := cache.NewMemoryStore(cache.MemoryOptions{})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { ms.Close() })
					st = ms
				case "disk":
					st = newDiskStore(t, dir, cache.DiskOptions{})
				case "redis":
					st = newRedisStore(t, testRedis(t).url(), prefix, cache.RedisOptions{})
				}
				f := newFront(t, o, cache.Options{Store: st, Key: pathKey})
				f.get(t, "/l")
				r := f.get(t, "/l")
				if r.cacheStatus() != cache.StatusHit || r.body != body || o.hits.Load() != 1 {
					t.Fatalf("second GET: %s (Cache-Status %q), %d bytes, origin saw %d requests",
						r.cacheStatus(), r.header.Get("Cache-Status"), len(r.body), o.hits.Load())
				}
				if store == "disk" {
					// The index is rebuilt from the stored metadata.
					st.Close()
					f = newFront(t, o, cache.Options{Store: newDiskStore(t, dir, cache.DiskOptions{}), Key: pathKey})
					if r := f.get(t, "/l"); r.cacheStatus() != cache.StatusHit || r.body != body {
						t.Fatalf("after a restart: %s (Cache-Status %q)", r.cacheStatus(), r.header.Get("Cache-Status"))
					}
				}
				if store != "redis" {
					return
				}
				// The metadata and every chunk live for the capped
				// retention (a year plus inactive), not for inactive alone.
				c := redisClient(t, testRedis(t))
				keys := append(redisKeys(t, c, prefix+"b:*"), prefix+"m:/l")
				if len(keys) != 3 {
					t.Fatalf("keys %v, want the metadata and two chunks", keys)
				}
				const year = 365 * 24 * time.Hour
				for _, k := range keys {
					ms, err := c.Do(context.Background(), c.B().Pttl().Key(k).Build()).AsInt64()
					ttl := time.Duration(ms) * time.Millisecond
					if err != nil || ttl < year-24*time.Hour || ttl > year+cache.DefaultInactive+time.Minute {
						t.Errorf("%s: PTTL %v (%v), want about a year", k, ttl, err)
					}
				}
			})
		}
	}
}
