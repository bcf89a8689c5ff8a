// Package statusmod wires the status library to the server: NGINX's
// stub_status directive and its $connections_* variables, and mosaic's
// metrics directive, a Prometheus endpoint. Its filter feeds the metrics
// as each client request ends, from what the request's variables say
// (status, bytes sent, upstream time, cache status, compression ratio);
// it is in the chain only when some location of the configuration serves
// metrics. The limit module reports its rejections itself, with their
// zones (LimitRejected).
package statusmod

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/status"
	"github.com/mosaic-edge/mosaic/vars"
)

// collected is the process's metrics: they outlive reloads.
var collected = status.NewMetrics()

// Collector returns the process's metrics, for a module that reports
// something of its own (see LimitRejected).
func Collector() *status.Metrics { return collected }

// LimitRejected counts a request that a limit rejected (limit "req" or
// "conn", and its zone): the limit module calls it as it refuses one.
func LimitRejected(limit, zone string) {
	collected.Limited(limit, zone)
}

type locConf struct {
	stub    bool
	metrics bool
}

type mainConf struct{ metrics bool }

var module = &server.Module{
	Name:    "status",
	NewLoc:  func() any { return &locConf{} },
	NewMain: func() any { return &mainConf{} },
}

func init() {
	module.Directives = []server.Directive{
		{Name: "stub_status", Context: server.CtxServer | server.CtxLocation, MinArgs: 0, MaxArgs: 1, Set: func(c *server.Cmd) error {
			// NGINX before 1.7.5 wanted an argument ("on"); it still
			// accepts one and ignores it.
			c.Loc().(*locConf).stub = true
			return nil
		}},
		{Name: "metrics", Context: server.CtxServer | server.CtxLocation, MinArgs: 0, MaxArgs: 0, Set: func(c *server.Cmd) error {
			c.Loc().(*locConf).metrics = true
			c.Main().(*mainConf).metrics = true
			return nil
		}},
	}
	module.Content = content
	module.Filter = &server.Filter{Wrap: wrap, PerRequest: true}
	for _, v := range []struct {
		name string
		get  func(c status.StubCounts) int64
	}{
		{"connections_active", func(c status.StubCounts) int64 { return c.Active }},
		{"connections_reading", func(c status.StubCounts) int64 { return c.Reading }},
		{"connections_writing", func(c status.StubCounts) int64 { return c.Writing }},
		{"connections_waiting", func(c status.StubCounts) int64 { return c.Waiting }},
	} {
		vars.Register(v.name, func(*http.Request, *vars.State) string {
			return strconv.FormatInt(v.get(counts()), 10)
		})
	}
	server.Register(module)
}

// counts reads the server's connection counts. mosaic drops no accepted
// connection, so handled equals accepts.
func counts() status.StubCounts {
	c := server.ConnCounts()
	return status.StubCounts{
		Active: c.Active, Accepts: c.Accepted, Handled: c.Accepted, Requests: c.Requests,
		Reading: c.Reading, Writing: c.Writing, Waiting: c.Waiting,
	}
}

// content serves stub_status or metrics in the locations that ask.
func content(l *server.Location) (http.Handler, error) {
	lc := server.LocConf[*locConf](l, module)
	switch {
	case lc.stub:
		return page("text/plain", func() []byte { return status.AppendStub(nil, counts()) }), nil
	case lc.metrics:
		return page("text/plain; version=0.0.4; charset=utf-8", func() []byte {
			return collected.AppendPrometheus(nil, counts())
		}), nil
	}
	return nil, nil
}

// page answers GET and HEAD with a fresh body; other methods get 405, as
// NGINX's stub_status gives them.
func page(ctype string, body func() []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			server.Error(w, r, http.StatusMethodNotAllowed)
			return
		}
		b := body()
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}

// wrap counts the client requests of every location, once the response
// has gone, when the configuration serves metrics somewhere.
func wrap(l *server.Location, next http.Handler) (http.Handler, error) {
	srv := l.Server()
	if srv == nil || !server.MainConf[*mainConf](srv.Config(), module).metrics {
		return next, nil
	}
	bytesSent, _ := vars.Lookup("bytes_sent")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		st := vars.FromContext(r.Context())
		if st == nil {
			return
		}
		q := status.Request{Server: st.ServerName, Status: st.Status}
		if bytesSent != nil {
			q.Bytes, _ = strconv.ParseInt(bytesSent(r, st), 10, 64)
		}
		if t, ok := st.Get("upstream_response_time"); ok && t != "" {
			q.Upstream = proxy.UpstreamName(st)
			q.UpstreamTime = lastSeconds(t)
		}
		q.CacheStatus, _ = st.Get("upstream_cache_status")
		if st.Header != nil {
			if coding := st.Header.Get("Content-Encoding"); coding != "" {
				if ratio, ok := st.Get(ratioVariable(coding)); ok && ratio != "" {
					if f, err := strconv.ParseFloat(ratio, 64); err == nil {
						q.Coding, q.Compressed = coding, st.BodyBytes
						q.Uncompressed = int64(f * float64(st.BodyBytes))
					}
				}
			}
		}
		collected.Observe(q)
	}), nil
}

// ratioVariable is the variable compression publishes its ratio in for
// a coding ($gzip_ratio, $brotli_ratio, $zstd_ratio).
func ratioVariable(coding string) string {
	if coding == "br" {
		return "brotli_ratio"
	}
	return coding + "_ratio"
}

// lastSeconds reads the last of the comma-separated times of an
// $upstream_*_time value: the server that answered.
func lastSeconds(v string) time.Duration {
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}
