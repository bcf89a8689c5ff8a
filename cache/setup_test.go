package cache

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/server"
)

// The directives' integration tests run the binary (cmd/mosaic); these
// check the pieces of the server glue that have rules of their own.

func TestKeyTemplate(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/a/b?x=1", nil)
	r.Host = "www.example.com"
	for _, c := range []struct{ tmpl, want string }{
		{DefaultKeyTemplate, "httpbackend:8080/a/b?x=1"},
		{"${proxy_host}$uri", "backend:8080/a/b"},
		{"$host|$proxy_host|$proxy_host", "www.example.com|backend:8080|backend:8080"},
		{"$uri$is_args$args", "/a/b?x=1"},
		{"static", "static"},
	} {
		k, err := compileKey(c.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		if got := k.eval(r, nil, "backend:8080"); got != c.want {
			t.Errorf("%s: %q, want %q", c.tmpl, got, c.want)
		}
	}
	// $proxy_host_x is another (unknown) variable, not $proxy_host.
	if _, err := compileKey("$proxy_host_x"); err == nil || !strings.Contains(err.Error(), "proxy_host_x") {
		t.Errorf("$proxy_host_x: %v", err)
	}
}

func TestParseZone(t *testing.T) {
	parse := func(args ...string) (*zoneConf, error) {
		return parseZone(args, server.ParseSize, server.ParseDuration)
	}
	z, err := parse("keys_zone=a:10m", "max_size=1m", "inactive=30s")
	if err != nil || z.kind != zoneMemory || z.name != "a" || z.size != 10<<20 || z.maxSize != 1<<20 || z.inactive != 30*time.Second {
		t.Fatalf("keys_zone only: %+v %v", z, err)
	}
	if z, err := parse("memory", "keys_zone=m:1m"); err != nil || z.kind != zoneMemory || z.path != "" {
		t.Fatalf("memory: %+v %v", z, err)
	}
	if z, err := parse("valkey://10.0.0.1:6379/2", "keys_zone=r:1m"); err != nil || z.kind != zoneRedis || z.path != "valkey://10.0.0.1:6379/2" {
		t.Fatalf("valkey: %+v %v", z, err)
	}
	z, err = parse("rel/cache", "levels=1:2", "keys_zone=d:1m", "use_temp_path=off")
	if err != nil || z.kind != zoneDisk || !strings.HasSuffix(z.path, "/rel/cache") || !strings.HasPrefix(z.path, "/") || len(z.levels) != 2 {
		t.Fatalf("disk: %+v %v", z, err)
	}
	for _, bad := range [][]string{
		{"memory"},
		{"keys_zone=x:1k"},
		{"keys_zone=:1m"},
		{"memory", "keys_zone=x:1m", "levels=1"},
		{"/c", "keys_zone=x:1m", "levels=1:2:2:2"},
		{"/c", "keys_zone=x:1m", "inactive=0"},
		{"/c", "keys_zone=x:1m", "bogus"},
	} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestMetricsHandler(t *testing.T) {
	st := new(Stats)
	st.count(StatusHit)
	st.count(StatusHit)
	st.count(StatusMiss)
	st.stored.Add(1)
	h := MetricsHandler(MetricsOptions{
		Zones: []Zone{{Name: `we"ird`, Store: "memory", Stats: st}},
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
