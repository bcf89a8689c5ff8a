package cache_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
)

// childEnv names the disk directory when the test binary runs as the
// writer process that TestDiskKillDuringWrite kills.
const childEnv = "MOSAIC_CACHE_DISK_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		runDiskChild(dir)
		return
	}
	code := m.Run()
	if sharedRedis != nil {
		sharedRedis.stop()
	}
	os.Exit(code)
}

// pathKey keys entries by path alone, so that caches on different ports
// share keys.
func pathKey(r *http.Request) string { return r.URL.RequestURI() }

// runDiskChild serves a disk-backed cache in front of an origin whose
// /big response takes seconds to arrive, prints the cache's URL and waits
// to be killed.
func runDiskChild(dir string) {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		if r.URL.Path != "/big" {
			fmt.Fprint(w, "complete entry")
			return
		}
		chunk := strings.Repeat("b", 32<<10)
		for range 200 {
			fmt.Fprint(w, chunk)
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
	}))
	store, err := cache.NewDiskStore(dir, cache.DiskOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	proxy, err := reverseProxy(origin.URL)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	c, err := cache.New(proxy, cache.Options{Store: store, Key: pathKey})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	front := httptest.NewServer(c)
	fmt.Println(front.URL)
	select {}
}
