package throttle

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// readFromRecorder counts the ReadFrom calls that reach it.
type readFromRecorder struct {
	*httptest.ResponseRecorder
	readFroms int
}

func (r *readFromRecorder) ReadFrom(src io.Reader) (int64, error) {
	r.readFroms++
	return io.Copy(r.ResponseRecorder, src)
}

func TestThrottle(t *testing.T) {
	body := strings.Repeat("x", 12000)
	serve := func(rate, after int64) (*readFromRecorder, time.Duration) {
		h := Handler(func(*http.Request) (int64, int64) { return rate, after }, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(w, struct{ io.Reader }{strings.NewReader(body)}) // ReadFrom, as a file is sent
		}))
		// A throttled body that should not be gets cut here rather
		// than hanging the test.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rec := &readFromRecorder{ResponseRecorder: httptest.NewRecorder()}
		start := time.Now()
		h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/", nil))
		return rec, time.Since(start)
	}
	// 12000 bytes at 10000 per second with a second of slack: 0.2 s.
	rec, d := serve(10000, 0)
	if rec.Body.String() != body || d < 150*time.Millisecond || rec.readFroms != 0 {
		t.Errorf("limited: %d bytes in %v, %d ReadFrom", rec.Body.Len(), d, rec.readFroms)
	}
	// Without a limit the writer's own ReadFrom (sendfile) is used: the
	// body bypasses the throttle.
	rec, _ = serve(0, 0)
	if rec.Body.String() != body || rec.readFroms != 1 {
		t.Errorf("unlimited: %d bytes, %d ReadFrom", rec.Body.Len(), rec.readFroms)
	}
	// limit_rate_after past the body: no wait. At 1 byte per second a
	// throttled body would need hours, so the whole body within the
	// request's 10 s shows it went unthrottled, however slow the machine.
	if rec, d = serve(1, 12000); rec.Body.String() != body {
		t.Errorf("after: %d bytes in %v", rec.Body.Len(), d)
	}
}

// wireRecorder reports a header's size once the header is written, as
// the HTTP/1.x server's vars.WireSizer does (before: none yet).
type wireRecorder struct {
	*httptest.ResponseRecorder
	header int64
	wrote  bool
}

func (r *wireRecorder) WriteHeader(code int) {
	r.wrote = true
	r.ResponseRecorder.WriteHeader(code)
}

func (r *wireRecorder) RequestSize() int64 { return 0 }
func (r *wireRecorder) HeaderSize() int64 {
	if !r.wrote {
		return 0
	}
	return r.header
}
func (r *wireRecorder) BodyOverhead(bool) int64 { return 0 }
func (r *wireRecorder) RequestLines() string    { return "" }

// TestThrottleImplicitHeaderCounts: a handler that writes its body
// without WriteHeader (an implicit 200) has its header counted against
// limit_rate_after too: the writer makes the header before it weighs the
// first write. At rate 1 and after 50, a 20-byte header leaves 31 body
// bytes to go at once (the second's slack is 1 byte); had the header been
// made by the first write, 51 would go.
func TestThrottleImplicitHeaderCounts(t *testing.T) {
	rec := &wireRecorder{ResponseRecorder: httptest.NewRecorder(), header: 20}
	st := &vars.State{Start: time.Now(), Wire: rec}
	h := Handler(func(*http.Request) (int64, int64) { return 1, 50 }, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 100)))
	}))
	// The next byte is due a second after the start: the request ends
	// before, cutting the body after what went at once.
	ctx, cancel := context.WithTimeout(vars.NewContext(context.Background(), st), 300*time.Millisecond)
	defer cancel()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, "GET", "/", nil))
	// One byte more if the machine's load held the write past a second.
	if n := rec.Body.Len(); n < 31 || n > 32 || rec.Code != http.StatusOK {
		t.Errorf("status %d, %d body bytes at once; want 200 and 31 (after 50 + 1 of slack - the 20-byte header)", rec.Code, n)
	}
}
