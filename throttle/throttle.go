// Package throttle limits the rate at which a response goes to the
// client, as NGINX's limit_rate and limit_rate_after do: the first
// After bytes go at once, then the body leaves at Rate bytes per second on
// average, counted from the start of the request, with one second's worth
// of slack (NGINX's write filter allows rate × (seconds since the start +
// 1) bytes past After). The package imports nothing of the server:
// Handler is plain net/http middleware.
package throttle

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// StateName is the vars.State value that overrides a location's rate for
// one request, in bytes per second: "set $limit_rate" and an upstream's
// X-Accel-Limit-Rate write it, and $limit_rate reads it.
const StateName = "limit_rate"

// Limits returns the rate (bytes per second, 0: no limit) and the bytes
// sent before it applies, for one request. It is called once, when the
// response's header or body goes out, so that what the request's
// handlers set (X-Accel-Limit-Rate, "set $limit_rate") counts.
type Limits func(r *http.Request) (rate, after int64)

// Handler wraps next so that each response's body goes out within the
// limits; with limits nil it returns next.
func Handler(limits Limits, next http.Handler) http.Handler {
	if limits == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &writer{ResponseWriter: w, r: r, limits: limits, start: vars.StartTime(r.Context())}
		next.ServeHTTP(tw, r)
		if tw.timer != nil {
			tw.timer.Stop()
		}
	})
}

// Rate returns the request's override (StateName), if any.
func Rate(st *vars.State) (int64, bool) {
	v, ok := st.Get(StateName)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

type writer struct {
	http.ResponseWriter
	r        *http.Request
	limits   Limits
	start    time.Time
	resolved bool
	wrote    bool // WriteHeader was called
	rate     int64
	after    int64
	sent     int64
	wire     vars.WireSizer // the header's and the framing's bytes; nil: none known
	timer    *time.Timer
}

func (w *writer) resolve() {
	if w.resolved {
		return
	}
	w.resolved = true
	w.rate, w.after = w.limits(w.r)
	if w.rate > 0 {
		// $limit_rate shows the rate in force from now on, as NGINX's
		// does once its write filter has read it.
		st := vars.FromContext(w.r.Context())
		st.Set(StateName, strconv.FormatInt(w.rate, 10))
		if st != nil {
			w.wire = st.Wire
		}
	}
}

// onWire is what the response has sent. As NGINX's write filter weighs
// c->sent, the status line, the header and a chunked body's framing
// count with the body, where the server reports them (vars.WireSizer:
// HTTP/1.x's does, Go's HTTP/2 server reports none): limit_rate_after
// 10k lets 10k go at once, header included.
func (w *writer) onWire() int64 {
	if w.wire == nil {
		return w.sent
	}
	return w.sent + w.wire.HeaderSize() + w.wire.BodyOverhead(false)
}

// allowed is how many more bytes may go now.
func (w *writer) allowed(now time.Time) int64 {
	elapsed := now.Sub(w.start) + time.Second
	return int64(float64(w.rate)*elapsed.Seconds()) + w.after - w.onWire()
}

// WriteHeader settles the limits as the header goes out, as NGINX's write
// filter reads limit_rate when it sends the header: a response without a
// body (HEAD, 204, 304) shows its rate in $limit_rate too.
func (w *writer) WriteHeader(code int) {
	if code >= 200 {
		w.resolve()
		w.wrote = true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *writer) Write(p []byte) (int, error) {
	w.resolve()
	if w.rate <= 0 {
		return w.ResponseWriter.Write(p)
	}
	if !w.wrote {
		// The implicit 200 that the first Write would make below, made
		// here so that the header's size is known before the first
		// allowance is spent.
		w.WriteHeader(http.StatusOK)
	}
	total := 0
	for len(p) > 0 {
		n := w.allowed(time.Now())
		if n <= 0 {
			// Wait until a slice of the rate is allowed: at most a tenth
			// of a second's worth, so a slow rate goes out smoothly.
			want := min(int64(len(p)), max(w.rate/10, 1))
			due := w.start.Add(time.Duration(float64(w.onWire()+want-w.after)/float64(w.rate)*float64(time.Second)) - time.Second)
			if err := w.wait(time.Until(due)); err != nil {
				return total, err
			}
			continue
		}
		n = min(n, int64(len(p)))
		m, err := w.ResponseWriter.Write(p[:n])
		total += m
		w.sent += int64(m)
		if err != nil {
			return total, err
		}
		p = p[n:]
	}
	return total, nil
}

// wait sends what is buffered, so that the client has it while the
// response pauses, and sleeps for d unless the request ends first.
func (w *writer) wait(d time.Duration) error {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	if d <= 0 {
		d = time.Millisecond
	}
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.timer.C:
		return nil
	case <-w.r.Context().Done():
		return context.Cause(w.r.Context())
	}
}

// ReadFrom keeps the server's sendfile path for a response without a
// limit; a limited one is copied through Write.
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	w.resolve()
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok && w.rate <= 0 {
		return rf.ReadFrom(src)
	}
	return io.Copy(writerOnly{w}, src)
}

// writerOnly hides writer's ReadFrom from io.Copy.
type writerOnly struct{ io.Writer }

func (w *writer) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
