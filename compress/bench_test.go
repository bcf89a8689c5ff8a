package compress_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

// discardWriter is a ResponseWriter that only counts, so that benchmarks
// measure the encoder and this package's writer, not a network.
type discardWriter struct {
	h http.Header
	n int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(p []byte) (int, error) { d.n += len(p); return len(p), nil }

// benchEncode compresses jquery.min.js through New's handler for each iteration.
func benchEncode(b *testing.B, coding string, opts compress.Options) {
	js := jquery(b)
	h := mustNew(b, respond(200, js, "Content-Type: text/html"), opts)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", coding)
	w := benchServe(b, h, req, len(js))
	if w.h.Get("Content-Encoding") != coding {
		b.Fatalf("not compressed with %s", coding)
	}
	b.ReportMetric(float64(len(js))/float64(w.n), "ratio")
}

// benchServe has h answer req for each iteration, a body of n bytes, and
// returns the writer with the last response.
func benchServe(b *testing.B, h http.Handler, req *http.Request, n int) *discardWriter {
	w := &discardWriter{h: http.Header{}}
	// One response before timing, as a running server has served one: it
	// leaves a pooled encoder behind, and the first allocation's page
	// faults out of the figures.
	h.ServeHTTP(w, req)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		w.n = 0
		h.ServeHTTP(w, req)
	}
	return w
}

// BenchmarkBrotli is brotli's throughput per level, reusing encoders
// (brotli_reuse_memory on) and allocating one per response (off).
func BenchmarkBrotli(b *testing.B) {
	for _, level := range []int{1, 4, 5, 6, 9, 11} {
		for _, reuse := range []bool{true, false} {
			name := fmt.Sprintf("level=%d/reuse=%v", level, reuse)
			b.Run(name, func(b *testing.B) {
				benchEncode(b, "br", allOn(func(o *compress.Options) {
					o.Brotli.Level = level
					o.Brotli.ReuseMemory = reuse
				}))
			})
		}
	}
}

// BenchmarkZstd is zstd's throughput at levels that map to each of the
// encoder's four speeds.
func BenchmarkZstd(b *testing.B) {
	for _, level := range []int{1, 3, 7, 19} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			benchEncode(b, "zstd", allOn(func(o *compress.Options) { o.Zstd.Level = level }))
		})
	}
}

func BenchmarkGzip(b *testing.B) {
	for _, level := range []int{1, 6, 9} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			benchEncode(b, "gzip", allOn(func(o *compress.Options) { o.Gzip.Level = level }))
		})
	}
}

// BenchmarkSmallResponse is the cost the handler adds to a 15-byte JSON
// response, which stays identity below the min length.
func BenchmarkSmallResponse(b *testing.B) {
	h := mustNew(b, respond(200, []byte(`{"status":"ok"}`), "Content-Type: application/json", "Content-Length: 15"),
		allOn(func(o *compress.Options) { o.Brotli.Types = []string{"application/json"} }))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

// BenchmarkBodyCache serves jquery.min.js, a fixed object (ETag and
// Content-Length), with brotli level 11 and compress_cache on and off: on,
// every timed response is a copy from the store.
func BenchmarkBodyCache(b *testing.B) {
	js := jquery(b)
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("cache=%v", on), func(b *testing.B) {
			var cache *compress.BodyCache
			if on {
				var err error
				if cache, err = compress.NewBodyCache(compress.DefaultBodyCacheSize); err != nil {
					b.Fatal(err)
				}
			}
			h := mustNew(b, respond(200, js, "Content-Type: text/html", `ETag: "jq"`, fmt.Sprintf("Content-Length: %d", len(js))),
				allOn(func(o *compress.Options) { o.Brotli.Level = 11; o.Cache = cache }))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", "br")
			w := &discardWriter{h: http.Header{}}
			h.ServeHTTP(w, req)
			b.SetBytes(int64(len(js)))
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
			if on && cache.Stats().Hits == 0 {
				b.Fatal("no response came from the store")
			}
		})
	}
}

// BenchmarkSmallBody is what the handler and the brotli encoder cost a
// 2 KB JSON body (api-small.json) at levels 1 and 6; set beside
// BenchmarkEncode/q1 and q6 of the brotli package, the difference is the
// handler's own (compress README, "The 2 KB JSON").
func BenchmarkSmallBody(b *testing.B) {
	body, err := os.ReadFile("../../shared/corpus/api-small.json")
	if err != nil {
		b.Skip("no ../../shared/corpus/api-small.json")
	}
	for _, level := range []int{1, 6} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			h := mustNew(b, respond(200, body, "Content-Type: application/json", "Content-Length: "+strconv.Itoa(len(body))),
				allOn(func(o *compress.Options) { o.Brotli.Types = []string{"application/json"}; o.Brotli.Level = level }))
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", "br")
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}
