package throttle

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
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
