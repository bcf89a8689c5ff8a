package cache

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Zone names a zone's counters for MetricsHandler.
type Zone struct {
	Name  string
	Store string // "memory", "disk", "redis", or what a Go user's store is
	Stats *Stats
	// Breaker is the store's circuit breaker ((*RedisStore).Breaker), or
	// nil for a store without one.
	Breaker *Breaker
}

// MetricsOptions configure MetricsHandler.
type MetricsOptions struct {
	Zones []Zone
	// Allow, when not empty, limits the endpoint to these client networks
	// (by the connection's address).
	Allow []netip.Prefix
}

// MetricsHandler answers GET and HEAD with the counters of each zone: JSON
// by default, the Prometheus text format when the query has
// format=prometheus or the client accepts text/plain or OpenMetrics and not
// JSON.
//
//	{"zones":{"pages":{"store":"memory","hit":3,"miss":1,...}}}
//
//	mosaic_cache_responses_total{zone="pages",status="hit"} 3
func MetricsHandler(opts MetricsOptions) http.Handler {
	return &metrics{opts}
}

type metrics struct{ MetricsOptions }

func (m *metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if len(m.Allow) > 0 && !addrAllowed(r.RemoteAddr, m.Allow) {
		http.Error(w, "not allowed from this address", http.StatusForbidden)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	if wantsPrometheus(r) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = w.Write(m.prometheus())
		return
	}
	type zoneJSON struct {
		Store       string `json:"store"`
		Hit         uint64 `json:"hit"`
		Miss        uint64 `json:"miss"`
		Expired     uint64 `json:"expired"`
		Stale       uint64 `json:"stale"`
		Updating    uint64 `json:"updating"`
		Revalidated uint64 `json:"revalidated"`
		Bypass      uint64 `json:"bypass"`
		Stored      uint64 `json:"stored"`
		StoreErrors uint64 `json:"store_errors"`
		// The circuit breaker's state and how often it opened, for a store
		// that has one.
		Breaker       string  `json:"breaker,omitempty"`
		BreakerOpened *uint64 `json:"breaker_opened,omitempty"`
		LocalServed   *uint64 `json:"local_served,omitempty"`
	}
	out := struct {
		Zones map[string]zoneJSON `json:"zones"`
	}{Zones: make(map[string]zoneJSON, len(m.Zones))}
	for _, z := range m.Zones {
		c := z.Stats.Snapshot()
		zj := zoneJSON{
			Store: z.Store, Hit: c.Hit, Miss: c.Miss, Expired: c.Expired, Stale: c.Stale,
			Updating: c.Updating, Revalidated: c.Revalidated, Bypass: c.Bypass,
			Stored: c.Stored, StoreErrors: c.StoreErrors,
		}
		if z.Breaker != nil {
			opened, local := z.Breaker.Opened(), z.Breaker.LocalServed()
			zj.Breaker, zj.BreakerOpened, zj.LocalServed = z.Breaker.State().String(), &opened, &local
		}
		out.Zones[z.Name] = zj
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func wantsPrometheus(r *http.Request) bool {
	switch r.URL.Query().Get("format") {
	case "prometheus":
		return true
	case "json":
		return false
	}
	accept := r.Header.Get("Accept")
	return !strings.Contains(accept, "json") &&
		(strings.Contains(accept, "text/plain") || strings.Contains(accept, "application/openmetrics-text"))
}

// prometheus renders the counters in the Prometheus text exposition format.
func (m *metrics) prometheus() []byte {
	b := make([]byte, 0, 1024)
	b = append(b, "# HELP mosaic_cache_responses_total Responses by $upstream_cache_status.\n"...)
	b = append(b, "# TYPE mosaic_cache_responses_total counter\n"...)
	for _, z := range m.Zones {
		c := z.Stats.Snapshot()
		for _, s := range [...]struct {
			name string
			n    uint64
		}{
			{"hit", c.Hit}, {"miss", c.Miss}, {"expired", c.Expired}, {"stale", c.Stale},
			{"updating", c.Updating}, {"revalidated", c.Revalidated}, {"bypass", c.Bypass},
		} {
			b = append(b, `mosaic_cache_responses_total{zone="`...)
			b = appendLabel(b, z.Name)
			b = append(b, `",status="`...)
			b = append(b, s.name...)
			b = append(b, `"} `...)
			b = strconv.AppendUint(b, s.n, 10)
			b = append(b, '\n')
		}
	}
	for _, metric := range [...]struct {
		name, help string
		get        func(Counts) uint64
	}{
		{"mosaic_cache_stored_total", "Responses committed to the store.", func(c Counts) uint64 { return c.Stored }},
		{"mosaic_cache_store_errors_total", "Store operations that failed and were bypassed.", func(c Counts) uint64 { return c.StoreErrors }},
	} {
		b = append(b, "# HELP "+metric.name+" "+metric.help+"\n# TYPE "+metric.name+" counter\n"...)
		for _, z := range m.Zones {
			b = append(b, metric.name+`{zone="`...)
			b = appendLabel(b, z.Name)
			b = append(b, `"} `...)
			b = strconv.AppendUint(b, metric.get(z.Stats.Snapshot()), 10)
			b = append(b, '\n')
		}
	}
	return appendBreakers(b, m.Zones)
}

// appendBreakers renders the state of the zones' circuit breakers: a gauge
// (0 closed, 1 open, 2 half-open) and how often each opened.
func appendBreakers(b []byte, zones []Zone) []byte {
	for _, metric := range [...]struct {
		name, help, kind string
		get              func(*Breaker) uint64
	}{
		{"mosaic_cache_store_breaker_state", "Circuit breaker of the store: 0 closed, 1 open, 2 half-open.", "gauge", func(br *Breaker) uint64 { return uint64(br.State()) }},
		{"mosaic_cache_store_breaker_opened_total", "Times the store's circuit breaker opened.", "counter", (*Breaker).Opened},
		{"mosaic_cache_store_local_served_total", "Lookups the store's local tier answered because the store could not.", "counter", (*Breaker).LocalServed},
	} {
		header := false
		for _, z := range zones {
			if z.Breaker == nil {
				continue
			}
			if !header {
				b = append(b, "# HELP "+metric.name+" "+metric.help+"\n# TYPE "+metric.name+" "+metric.kind+"\n"...)
				header = true
			}
			b = append(b, metric.name+`{zone="`...)
			b = appendLabel(b, z.Name)
			b = append(b, `"} `...)
			b = strconv.AppendUint(b, metric.get(z.Breaker), 10)
			b = append(b, '\n')
		}
	}
	return b
}

// appendLabel escapes a label value as the text format requires.
func appendLabel(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '"':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}
