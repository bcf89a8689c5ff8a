package compress_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
)

// BenchmarkParallelLoaded is large responses served by 4 goroutines per
// CPU at once, every CPU busy: the pool must cost no throughput. It reports
// the process's CPU time per response and the segments pooled per
// response (0 when no body is cut), serial and with a pool of GOMAXPROCS
// workers and 512k segments, at gzip 6 and brotli 6.
//
//	go test ./compress -run '^$' -bench ParallelLoaded -benchtime 100x -cpu 2
func BenchmarkParallelLoaded(b *testing.B) {
	body := largeBody(b)
	for _, c := range []struct {
		coding string
		level  int
	}{{"gzip", 6}, {"br", 6}} {
		for _, mode := range []string{"serial", "parallel"} {
			b.Run(c.coding+"-"+strconv.Itoa(c.level)+"/"+mode, func(b *testing.B) {
				pool := newTestPool(b, runtime.GOMAXPROCS(0), 64)
				var p compress.WorkPool
				if mode == "parallel" {
					p = pool
				}
				opts := parallelOn(p, 512<<10, compress.DefaultTasks, func(o *compress.Options) {
					o.Gzip.Level, o.Brotli.Level = c.level, c.level
				})
				h := mustNew(b, respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body))), opts)
				b.SetParallelism(4)
				before := compress.CPUTime(b)
				b.RunParallel(func(pb *testing.PB) {
					req := httptest.NewRequest(http.MethodGet, "/", nil)
					req.Header.Set("Accept-Encoding", c.coding)
					w := &discardWriter{h: http.Header{}}
					for pb.Next() {
						clear(w.h)
						h.ServeHTTP(w, req)
					}
				})
				b.ReportMetric(float64((compress.CPUTime(b)-before).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(pool.submitted.Load())/float64(b.N), "pooled/op")
			})
		}
	}
}
