package compress_test

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/compress"
)

// workers is the smallest WorkPool: a fixed number of goroutines and a
// bounded queue; Submit refuses at once when the queue is full.
type workers chan func()

func newWorkers(n, queue int) workers {
	w := make(workers, queue)
	for range n {
		go func() {
			for f := range w {
				f()
			}
		}()
	}
	return w
}

func (w workers) Submit(f func()) error {
	select {
	case w <- f:
		return nil
	default:
		return errors.New("queue full")
	}
}

// With Gzip.Parallel.Pool set, a body longer than one segment is cut into
// segments compressed on the pool's workers: one gzip stream all the same.
func ExampleParallel() {
	page := strings.Repeat("<p>A long page, compressed on several CPUs at once.</p>\n", 40_000) // 2.2 MB
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	})

	pool := newWorkers(4, 64)
	defer close(pool)
	opts := compress.DefaultOptions()
	opts.Gzip.Enable = true
	opts.Gzip.Level = 6
	opts.Gzip.Parallel.Pool = pool             // gzip_thread_pool
	opts.Gzip.Parallel.SegmentSize = 512 << 10 // gzip_parallel_segment_size 512k
	h, err := compress.New(app, opts)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	body, err := io.ReadAll(zr) // checks the CRC-32 combined from the segments'
	fmt.Println(resp.Header.Get("Content-Encoding"), len(body), string(body) == page, err)
	// Output: gzip 2240000 true <nil>
}
