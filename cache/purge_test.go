package cache_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// storeKinds builds one store of each kind for tests that must hold for
// all of them.
func storeKinds(t *testing.T) map[string]func(t *testing.T) cache.Store {
	return map[string]func(t *testing.T) cache.Store{
		"memory": func(t *testing.T) cache.Store {
			s, err := cache.NewMemoryStore(cache.MemoryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"disk": func(t *testing.T) cache.Store { return newDiskStore(t, t.TempDir(), cache.DiskOptions{}) },
		"redis": func(t *testing.T) cache.Store {
			return newRedisStore(t, testRedis(t).url(), uniquePrefix(t), cache.RedisOptions{})
		},
	}
}

// purge sends a PURGE to the admin handler h, served on loopback.
func purge(t *testing.T, h http.Handler, query, token string) (int, map[string]any) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, err := http.NewRequest("PURGE", srv.URL+"/purge?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if resp.StatusCode == http.StatusOK {
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatalf("purge answer: %v", err)
		}
	}
	return resp.StatusCode, out
}

func TestPurgeByKeyPrefixTagAndAll(t *testing.T) {
	for name, mk := range storeKinds(t) {
		t.Run(name, func(t *testing.T) {
			o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=60")
				w.Header().Set("Surrogate-Key", "all "+strings.ReplaceAll(strings.Trim(r.URL.Path, "/"), "/", "-"))
				if r.URL.Path == "/v" {
					w.Header().Set("Vary", "Accept-Language")
				}
				fmt.Fprint(w, r.URL.Path)
			})
			store := mk(t)
			f := newFront(t, o, cache.Options{Store: store, Key: pathKey})
			paths := []string{"/a", "/b", "/pre/x", "/pre/y", "/v"}
			fill := func() {
				for _, p := range paths {
					r := f.get(t, p, "Accept-Language", "en")
					if r.header.Get("Surrogate-Key") != "" {
						t.Fatal("the tag header reached the client")
					}
				}
			}
			status := func(p string) string { return f.get(t, p, "Accept-Language", "en").cacheStatus() }
			expect := func(step string, want map[string]string) {
				t.Helper()
				for _, p := range paths {
					w := want[p]
					if w == "" {
						w = cache.StatusHit
					}
					if got := status(p); got != w {
						t.Fatalf("%s: %s is %s, want %s", step, p, got, w)
					}
				}
			}
			h, err := cache.PurgeHandler(cache.PurgeOptions{Store: store, Token: "s3cret", Key: pathKey, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			fill()
			expect("filled", nil)

			if code, _ := purge(t, h, "key=/a", ""); code != http.StatusUnauthorized {
				t.Fatalf("without token: %d", code)
			}
			if code, _ := purge(t, h, "key=/a", "wrong"); code != http.StatusUnauthorized {
				t.Fatalf("wrong token: %d", code)
			}
			if code, _ := purge(t, h, "", "s3cret"); code != http.StatusBadRequest {
				t.Fatalf("empty purge: %d", code)
			}

			if code, out := purge(t, h, "key=/a", "s3cret"); code != 200 || out["purged"] != 1.0 {
				t.Fatalf("key purge: %d %v", code, out)
			}
			expect("key /a", map[string]string{"/a": cache.StatusMiss})

			if code, out := purge(t, h, "tag=b", "s3cret"); code != 200 || out["purged"] != 1.0 {
				t.Fatalf("tag purge: %d %v", code, out)
			}
			expect("tag b", map[string]string{"/b": cache.StatusMiss})

			if code, out := purge(t, h, "prefix=/pre/", "s3cret"); code != 200 || out["purged"] != 2.0 {
				t.Fatalf("prefix purge: %d %v", code, out)
			}
			expect("prefix /pre/", map[string]string{"/pre/x": cache.StatusMiss, "/pre/y": cache.StatusMiss})

			// The key of a Vary resource leads to all its variants.
			if code, _ := purge(t, h, "url=http://example.com/v", "s3cret"); code != 200 {
				t.Fatalf("url purge: %d", code)
			}
			expect("url /v", map[string]string{"/v": cache.StatusMiss})

			if code, out := purge(t, h, "all=1", "s3cret"); code != 200 || out["generation"] == nil {
				t.Fatalf("purge all: %d %v", code, out)
			}
			all := map[string]string{}
			for _, p := range paths {
				all[p] = cache.StatusMiss
			}
			expect("all", all)
		})
	}
}

func TestPurgeHandlerProtection(t *testing.T) {
	s, _ := cache.NewMemoryStore(cache.MemoryOptions{})
	defer s.Close()
	if _, err := cache.PurgeHandler(cache.PurgeOptions{Store: s}); err == nil {
		t.Fatal("an unprotected purge endpoint was accepted")
	}
	h, err := cache.PurgeHandler(cache.PurgeOptions{Store: s, Logger: quiet, Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := purge(t, h, "all=1", ""); code != http.StatusForbidden {
		t.Fatalf("from 127.0.0.1 with only 10/8 allowed: %d", code)
	}
	h, _ = cache.PurgeHandler(cache.PurgeOptions{Store: s, Logger: quiet, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}})
	if code, _ := purge(t, h, "all=1", ""); code != http.StatusOK {
		t.Fatalf("from an allowed network: %d", code)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/purge?all=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}
