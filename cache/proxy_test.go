package cache

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
)

// frontWithProxy puts the cache in front of mosaic's own proxy, wired as
// the server wires them: the proxy passes X-Accel-Expires to the cache and
// reports its error pages.
func frontWithProxy(t *testing.T, o *origin, opts Options, clk *clock) *front {
	t.Helper()
	pass, err := proxy.ParsePass(o.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, err := proxy.New(proxy.Options{
		Pass:          pass,
		PassHeaders:   []string{"X-Accel-Expires"},
		ErrorResponse: FailureReporter(nil),
		Logger:        quiet,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewMemoryStore(MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	opts.Store, opts.Logger = s, quiet
	c, err := New(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.now = clk.Now
	f := &front{cache: c, origin: o, clock: clk}
	f.Server = newServer(t, echoCacheStatus(c))
	return f
}

func TestWithMosaicProxy(t *testing.T) {
	clk := newClock()
	var o *origin
	o = newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		n := o.hits.Load()
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		switch {
		case r.URL.Path == "/broken":
			w.Header().Set("Cache-Control", "max-age=60")
			w.Header().Set("Content-Length", "1000")
			fmt.Fprint(w, strings.Repeat("z", 10))
			w.(http.Flusher).Flush()
			hangUp(w)
		case n > 1:
			hangUp(w)
		default:
			w.Header().Set("Cache-Control", "private")
			w.Header().Set("X-Accel-Expires", "10")
			fmt.Fprint(w, body(n))
		}
	})
	f := frontWithProxy(t, o, Options{UseStale: StaleError}, clk)

	r := f.get(t, "/a")
	if r.cacheStatus() != StatusMiss || r.header.Get("X-Accel-Expires") != "" {
		t.Fatalf("fill: %q, X-Accel-Expires %q", r.cacheStatus(), r.header.Get("X-Accel-Expires"))
	}
	if r := f.get(t, "/a"); r.cacheStatus() != StatusHit {
		t.Fatalf("X-Accel-Expires through the proxy was not used: %q", r.cacheStatus())
	}
	// The origin hangs up; the proxy's 502 is reported as an error and the
	// stale entry is served instead.
	clk.Advance(20 * time.Second)
	if r := f.get(t, "/a"); r.status != 200 || r.cacheStatus() != StatusStale || r.body != "v1" {
		t.Fatalf("origin down: %d %q %q", r.status, r.cacheStatus(), r.body)
	}
	// Nothing stored of an upstream body that broke off.
	resp, err := http.Get(f.URL + "/broken")
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("a broken upstream body reached the client complete")
	}
	if s := f.cache.Stats().Snapshot(); s.Stored != 1 {
		t.Fatalf("stored %d entries, want 1", s.Stored)
	}
}
