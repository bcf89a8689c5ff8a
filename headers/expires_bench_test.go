package headers

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkExpires is the filter on a response with "expires 1h" above a
// writer that keeps the response's time, as mosaic's HTTP/1 server does.
func BenchmarkExpires(b *testing.B) {
	h, err := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}), Options{Expires: Expires{Mode: ExpiresAccess, D: time.Hour}})
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	w := &clockWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.at = time.Time{}
		h.ServeHTTP(w, r)
	}
}

// clockWriter keeps one reading of the clock, taken when first asked.
type clockWriter struct {
	h  http.Header
	at time.Time
}

func (w *clockWriter) Header() http.Header         { return w.h }
func (w *clockWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *clockWriter) WriteHeader(int)             {}

func (w *clockWriter) ResponseTime() time.Time {
	if w.at.IsZero() {
		w.at = time.Now()
	}
	return w.at
}
