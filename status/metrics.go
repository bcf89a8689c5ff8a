package status

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LatencyBuckets are the upper bounds, in seconds, of the upstream
// latency histograms.
var LatencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Metrics collects what a server reports to Prometheus. Its methods are
// safe for concurrent use; the zero value is not ready: use NewMetrics.
// Label values are whatever the caller passes (server names, upstream
// names, codings), so a caller must not pass values a client chooses.
type Metrics struct {
	mu          sync.Mutex
	responses   map[[2]string]uint64 // server, status code
	bytes       map[string]uint64    // server
	upstream    map[string]*histogram
	cache       map[string]uint64    // $upstream_cache_status
	compressIn  map[string]uint64    // coding
	compressOut map[string]uint64    // coding
	fragments   map[string]uint64    // ok, error
	limited     map[[2]string]uint64 // limit, zone
}

// NewMetrics returns an empty collection.
func NewMetrics() *Metrics {
	return &Metrics{
		responses: map[[2]string]uint64{}, bytes: map[string]uint64{}, upstream: map[string]*histogram{},
		cache: map[string]uint64{}, compressIn: map[string]uint64{}, compressOut: map[string]uint64{},
		fragments: map[string]uint64{}, limited: map[[2]string]uint64{},
	}
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

// Request is what a finished request tells Metrics.
type Request struct {
	Server string // the virtual server's name
	Status int
	Bytes  int64 // bytes sent to the client, header included
	// Upstream and UpstreamTime: the group (or host) that answered and
	// how long it took, for a proxied request; Upstream "" otherwise.
	Upstream     string
	UpstreamTime time.Duration
	// CacheStatus is $upstream_cache_status (HIT, MISS, ...), "" when no
	// cache took part.
	CacheStatus string
	// Coding, when the response was compressed, is the coding, with the
	// sizes before and after.
	Coding                   string
	Uncompressed, Compressed int64
}

// maxUpstreamLabels bounds the upstream labels: $proxy_host comes from a
// request value where proxy_pass has variables ("http://$host:8080"), and
// a client sending Host after Host must not add a histogram, kept for
// the life of the process, each time. Beyond the bound the new upstreams
// share the label otherUpstream, a name that no host can have.
const (
	maxUpstreamLabels = 256
	otherUpstream     = "(other)"
)

// Observe counts a finished request.
func (m *Metrics) Observe(q Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.responses[[2]string{q.Server, strconv.Itoa(q.Status)}]++
	m.bytes[q.Server] += uint64(max(q.Bytes, 0))
	if q.Upstream != "" {
		h := m.upstream[q.Upstream]
		if h == nil && len(m.upstream) >= maxUpstreamLabels {
			h = m.upstream[otherUpstream]
			q.Upstream = otherUpstream
		}
		if h == nil {
			h = &histogram{counts: make([]uint64, len(LatencyBuckets)+1)}
			m.upstream[q.Upstream] = h
		}
		s := q.UpstreamTime.Seconds()
		i, _ := slices.BinarySearch(LatencyBuckets, s)
		h.counts[i]++
		h.sum += s
		h.n++
	}
	if q.CacheStatus != "" {
		m.cache[q.CacheStatus]++
	}
	if q.Coding != "" && q.Compressed > 0 {
		m.compressIn[q.Coding] += uint64(q.Uncompressed)
		m.compressOut[q.Coding] += uint64(q.Compressed)
	}
}

// Fragment counts an ESI fragment fetched, or that failed.
func (m *Metrics) Fragment(ok bool) {
	result := "ok"
	if !ok {
		result = "error"
	}
	m.mu.Lock()
	m.fragments[result]++
	m.mu.Unlock()
}

// Limited counts a request that a limit rejected: limit names the kind
// ("req", "conn"), zone the zone. The limit module calls it as it
// refuses a request.
func (m *Metrics) Limited(limit, zone string) {
	m.mu.Lock()
	m.limited[[2]string{limit, zone}]++
	m.mu.Unlock()
}

// AppendPrometheus appends every metric in the text exposition format
// (version 0.0.4), with the connection counts of stub_status first.
func (m *Metrics) AppendPrometheus(b []byte, c StubCounts) []byte {
	b = family(b, "mosaic_connections", "gauge", "Client connections by state; active is every open one.")
	for _, s := range []struct {
		state string
		v     int64
	}{{"active", c.Active}, {"reading", c.Reading}, {"writing", c.Writing}, {"waiting", c.Waiting}} {
		b = sample(b, "mosaic_connections", []string{"state", s.state}, float64(s.v))
	}
	b = family(b, "mosaic_connections_accepted_total", "counter", "Client connections accepted.")
	b = sample(b, "mosaic_connections_accepted_total", nil, float64(c.Accepts))
	b = family(b, "mosaic_connections_handled_total", "counter", "Client connections handled.")
	b = sample(b, "mosaic_connections_handled_total", nil, float64(c.Handled))
	b = family(b, "mosaic_http_requests_total", "counter", "Client requests begun.")
	b = sample(b, "mosaic_http_requests_total", nil, float64(c.Requests))

	m.mu.Lock()
	defer m.mu.Unlock()
	b = family(b, "mosaic_http_responses_total", "counter", "Responses sent, by virtual server and status code.")
	for _, k := range sortedKeys2(m.responses) {
		b = sample(b, "mosaic_http_responses_total", []string{"server", k[0], "code", k[1]}, float64(m.responses[k]))
	}
	b = counters(b, "mosaic_http_sent_bytes_total", "Bytes sent to clients, headers included, by virtual server.", "server", m.bytes)
	b = family(b, "mosaic_upstream_response_seconds", "histogram", "Time to receive an upstream's whole response, by upstream.")
	for _, k := range sortedKeys(m.upstream) {
		h := m.upstream[k]
		var cum uint64
		for i, le := range LatencyBuckets {
			cum += h.counts[i]
			b = sample(b, "mosaic_upstream_response_seconds_bucket", []string{"upstream", k, "le", formatFloat(le)}, float64(cum))
		}
		cum += h.counts[len(LatencyBuckets)]
		b = sample(b, "mosaic_upstream_response_seconds_bucket", []string{"upstream", k, "le", "+Inf"}, float64(cum))
		b = sample(b, "mosaic_upstream_response_seconds_sum", []string{"upstream", k}, h.sum)
		b = sample(b, "mosaic_upstream_response_seconds_count", []string{"upstream", k}, float64(h.n))
	}
	b = counters(b, "mosaic_cache_responses_total", "Responses of cached locations, by cache status (HIT, MISS, ...).", "status", m.cache)
	b = counters(b, "mosaic_compression_input_bytes_total", "Bytes given to the encoders, by coding.", "coding", m.compressIn)
	b = counters(b, "mosaic_compression_output_bytes_total", "Bytes the encoders produced, by coding; input over output is the ratio.", "coding", m.compressOut)
	b = counters(b, "mosaic_esi_fragments_total", "ESI fragments fetched, by result.", "result", m.fragments)
	b = family(b, "mosaic_limit_rejected_total", "counter", "Requests rejected by limit_req or limit_conn, by limit and zone.")
	for _, k := range sortedKeys2(m.limited) {
		b = sample(b, "mosaic_limit_rejected_total", []string{"limit", k[0], "zone", k[1]}, float64(m.limited[k]))
	}
	return b
}

func family(b []byte, name, kind, help string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, help...)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, kind...)
	return append(b, '\n')
}

// sample appends one line; labels alternate names and values.
func sample(b []byte, name string, labels []string, v float64) []byte {
	b = append(b, name...)
	if len(labels) > 0 {
		b = append(b, '{')
		for i := 0; i < len(labels); i += 2 {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, labels[i]...)
			b = append(b, `="`...)
			b = appendLabelValue(b, labels[i+1])
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = append(b, formatFloat(v)...)
	return append(b, '\n')
}

// appendLabelValue escapes a label value as the format asks: backslash,
// double quote and line feed.
func appendLabelValue(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

func formatFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// counters appends a counter family, name, of one sample for each key of
// counts, labelled label="key", in the keys' order.
func counters(b []byte, name, help, label string, counts map[string]uint64) []byte {
	b = family(b, name, "counter", help)
	for _, k := range sortedKeys(counts) {
		b = sample(b, name, []string{label, k}, float64(counts[k]))
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func sortedKeys2(m map[[2]string]uint64) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if c := strings.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return strings.Compare(a[1], b[1])
	})
	return keys
}
