package cache_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

func TestMetricsHandler(t *testing.T) {
	st := new(cache.Stats)
	cache.Count(st, cache.StatusHit)
	cache.Count(st, cache.StatusHit)
	cache.Count(st, cache.StatusMiss)
	cache.CountStored(st)
	h := cache.MetricsHandler(cache.MetricsOptions{
		Zones: []cache.Zone{{Name: `we"ird`, Store: "memory", Stats: st}},
		Allow: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")},
	})
	get := func(target, remote string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, target, nil)
		r.RemoteAddr = remote
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := get("/", "198.51.100.1:1"); w.Code != http.StatusForbidden {
		t.Fatalf("other network: %d", w.Code)
	}
	w := get("/", "192.0.2.7:1")
	var out struct{ Zones map[string]map[string]any }
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if z := out.Zones[`we"ird`]; z["hit"] != 2.0 || z["miss"] != 1.0 || z["stored"] != 1.0 || z["store"] != "memory" {
		t.Fatalf("json: %s", w.Body)
	}
	w = get("/", "192.0.2.7:1", "Accept", "text/plain")
	if !strings.Contains(w.Body.String(), `mosaic_cache_responses_total{zone="we\"ird",status="hit"} 2`+"\n") {
		t.Fatalf("prometheus:\n%s", w.Body)
	}
	if w := get("/?format=json", "192.0.2.7:1", "Accept", "text/plain"); w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("format=json: %s", w.Header().Get("Content-Type"))
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.RemoteAddr = "192.0.2.7:1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
}
