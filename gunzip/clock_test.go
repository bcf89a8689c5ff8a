package gunzip_test

import (
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/gunzip"
	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
)

// TestGunzipExpiredTakesTheResponseTime: with gzip_proxied expired, a
// proxied request's gzip body is left gzip only when the response has
// expired by its Date, which the test reads from the server's writer
// (header.ResponseTime), as NGINX reads both from its cached time. A
// writer between the filter and the server holds the status line until
// the next second: had the filter read the clock itself, Date would come
// out a second later than the time it judged "Expires: now" by, and a
// body NGINX would leave gzip went out decoded.
func TestGunzipExpiredTakesTheResponseTime(t *testing.T) {
	opts := compress.DefaultOptions()
	opts.Gunzip = true
	opts.Gzip.Proxied = compress.ProxiedExpired
	test, err := compress.GunzipTest(opts)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzipped(t, page(3000))
	filtered := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Expires", time.Now().UTC().Format(http.TimeFormat))
		gzipOrigin(http.StatusOK, gz).ServeHTTP(w, r)
	}), gunzip.Options{Decode: test})
	srv := &http1.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		filtered.ServeHTTP(&nextSecondWriter{w}, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	resp, _, err := fetch(t, http.MethodGet, "http://"+ln.Addr().String()+"/", "Accept-Encoding: gzip", "Via: 1.1 front")
	if err != nil {
		t.Fatal(err)
	}
	expires, _ := httpdate.Parse(resp.Header.Get("Expires"))
	date, ok := httpdate.Parse(resp.Header.Get("Date"))
	decoded := resp.Header.Get("Content-Encoding") == ""
	if !ok || decoded != !expires.Before(date) {
		t.Errorf("Expires %q, Date %q: decoded %v, want %v", resp.Header.Get("Expires"), resp.Header.Get("Date"), decoded, !expires.Before(date))
	}
}

// nextSecondWriter holds the status line until the next second, after
// the filter above it has decided.
type nextSecondWriter struct{ http.ResponseWriter }

func (w *nextSecondWriter) WriteHeader(code int) {
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now) + time.Millisecond)
	w.ResponseWriter.WriteHeader(code)
}

func (w *nextSecondWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
