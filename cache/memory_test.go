package cache_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestMemoryStoreBoundsFillsInFlight: the bodies of fills not yet
// committed count against MaxSize, as stored entries do: concurrent fills
// of distinct keys (made up by clients) cannot together hold more memory
// than the store's size, and what a fill held is counted again once it
// ends.
func TestMemoryStoreBoundsFillsInFlight(t *testing.T) {
	s, err := cache.NewMemoryStore(cache.MemoryOptions{MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body := []byte(strings.Repeat("x", 400<<10))
	put := func(key string) (cache.Writer, error) {
		w, err := s.Put(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		_, err = w.Write(body)
		return w, err
	}
	a, err := put("a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := put("b")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put("c"); err == nil {
		t.Fatal("a third 400 KiB fill in flight was taken by a 1 MiB store")
	}
	if err := a.Commit(ctx, &cache.Meta{Key: "a", Status: 200}); err != nil {
		t.Fatal(err)
	}
	b.Abort()
	if _, err := put("d"); err != nil {
		t.Fatalf("after the fills ended: %v", err)
	}
}
