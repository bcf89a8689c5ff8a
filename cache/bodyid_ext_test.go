package cache_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/vars"
)

// idWriter records the body identity the cache publishes while it writes.
type idWriter struct {
	*httptest.ResponseRecorder
	st     *vars.State
	during string
}

func (w *idWriter) Write(b []byte) (int, error) {
	w.during, _ = w.st.Get(cache.BodyIDVar)
	return w.ResponseRecorder.Write(b)
}

// TestBodyIDPublished: a hit names its stored body while it is written,
// the same name on every hit, a new one when the body is stored again,
// and none once the response is written (a handler serving the request
// again after it must not take its body for the stored one).
func TestBodyIDPublished(t *testing.T) {
	version := 0
	clk := newClock()
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Date", clk.Now().UTC().Format(http.TimeFormat))
		w.Write([]byte("body " + strconv.Itoa(version)))
	})
	s, err := cache.NewMemoryStore(cache.MemoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := cache.New(newProxy(t, o.URL), cache.Options{Store: s, Logger: quiet, PublishBodyID: true})
	if err != nil {
		t.Fatal(err)
	}
	cache.SetClock(c, clk.Now)
	get := func() (during, after string) {
		st := &vars.State{}
		r := httptest.NewRequest(http.MethodGet, "/p", nil)
		w := &idWriter{ResponseRecorder: httptest.NewRecorder(), st: st}
		c.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
		after, _ = st.Get(cache.BodyIDVar)
		return w.during, after
	}
	if during, _ := get(); during != "" {
		t.Fatalf("a miss published %q", during)
	}
	first, after := get()
	if first == "" || after != "" {
		t.Fatalf("hit: %q while written, %q after", first, after)
	}
	if again, _ := get(); again != first {
		t.Fatalf("second hit: %q, first %q", again, first)
	}
	version = 1
	clk.Advance(2 * time.Minute)
	get() // expired: stored again
	if refilled, _ := get(); refilled == "" || refilled == first {
		t.Fatalf("after the refill: %q, before %q", refilled, first)
	}
}
