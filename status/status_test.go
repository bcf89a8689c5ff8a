package status

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestAppendStub(t *testing.T) {
	got := string(AppendStub(nil, StubCounts{Active: 291, Accepts: 16630948, Handled: 16630948, Requests: 31070465, Reading: 6, Writing: 179, Waiting: 106}))
	want := "Active connections: 291 \nserver accepts handled requests\n 16630948 16630948 31070465 \nReading: 6 Writing: 179 Waiting: 106 \n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPrometheusText(t *testing.T) {
	m := NewMetrics()
	m.Observe(Request{Server: `we"ird\`, Status: 200, Bytes: 10, Upstream: "app", UpstreamTime: 30 * time.Millisecond})
	m.Observe(Request{Server: "a", Status: 404, Bytes: 5, Upstream: "app", UpstreamTime: 20 * time.Second, CacheStatus: "MISS"})
	m.Observe(Request{Server: "a", Status: 200, Coding: "br", Uncompressed: 1000, Compressed: 100})
	m.Fragment(true)
	m.Limited("req", "one")
	out := string(m.AppendPrometheus(nil, StubCounts{Active: 1}))
	for _, want := range []string{
		`mosaic_http_responses_total{server="we\"ird\\",code="200"} 1` + "\n",
		`mosaic_http_responses_total{server="a",code="404"} 1` + "\n",
		`mosaic_http_sent_bytes_total{server="a"} 5` + "\n",
		`mosaic_upstream_response_seconds_bucket{upstream="app",le="0.025"} 0` + "\n",
		`mosaic_upstream_response_seconds_bucket{upstream="app",le="0.05"} 1` + "\n",
		`mosaic_upstream_response_seconds_bucket{upstream="app",le="10"} 1` + "\n",
		`mosaic_upstream_response_seconds_bucket{upstream="app",le="+Inf"} 2` + "\n",
		`mosaic_upstream_response_seconds_sum{upstream="app"} 20.03` + "\n",
		`mosaic_upstream_response_seconds_count{upstream="app"} 2` + "\n",
		`mosaic_cache_responses_total{status="MISS"} 1` + "\n",
		`mosaic_compression_input_bytes_total{coding="br"} 1000` + "\n",
		`mosaic_compression_output_bytes_total{coding="br"} 100` + "\n",
		`mosaic_esi_fragments_total{result="ok"} 1` + "\n",
		`mosaic_limit_rejected_total{limit="req",zone="one"} 1` + "\n",
		`mosaic_connections{state="active"} 1` + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// Every family is announced once, before its samples.
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(l, "# TYPE "); ok {
			name = strings.Fields(name)[0]
			if seen[name] {
				t.Errorf("%s announced twice", name)
			}
			seen[name] = true
		}
	}
}

// The upstream label is $proxy_host, which a client chooses where
// proxy_pass takes its host from a variable ("proxy_pass
// http://$host:8080"): each Host it sends must not add a histogram that
// lives as long as the process.
func TestUpstreamLabelsBounded(t *testing.T) {
	m := NewMetrics()
	for i := range 10 * maxUpstreamLabels {
		m.Observe(Request{Server: "a", Status: 502, Upstream: "127.0." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256) + ":8080"})
	}
	m.Observe(Request{Server: "a", Status: 200, Upstream: "127.0.0.1:8080", UpstreamTime: time.Second})
	out := string(m.AppendPrometheus(nil, StubCounts{}))
	if n := strings.Count(out, "mosaic_upstream_response_seconds_count{"); n > maxUpstreamLabels+1 {
		t.Errorf("%d upstream labels for %d hosts", n, 10*maxUpstreamLabels)
	}
	for _, want := range []string{
		`mosaic_upstream_response_seconds_count{upstream="127.0.0.1:8080"} 2` + "\n",
		`mosaic_upstream_response_seconds_count{upstream="` + otherUpstream + `"} ` + strconv.Itoa(9*maxUpstreamLabels) + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
}
