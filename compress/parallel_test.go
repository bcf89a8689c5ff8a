package compress_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/vars"
)

// words is a compressible body of n bytes that does not repeat itself the
// way text does, so that what a segment's dictionary is worth shows.
func words(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("the of and to in is was for on that with as by at from it an be this which or are his her function return var const let if else while document window element node value index length")
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(vocab[rng.IntN(len(vocab))])
		if rng.IntN(9) == 0 {
			fmt.Fprintf(&b, "%d;\n", rng.IntN(1000))
		} else {
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// testPool is a WorkPool with a fixed number of workers and a bounded
// queue, like the server's thread_pool; it counts what it was given.
type testPool struct {
	tasks     chan func()
	submitted atomic.Int64
	refused   atomic.Int64
}

func newTestPool(t testing.TB, workers, queue int) *testPool {
	p := &testPool{tasks: make(chan func(), queue)}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for f := range p.tasks {
				f()
			}
		})
	}
	t.Cleanup(func() { close(p.tasks); wg.Wait() })
	return p
}

func (p *testPool) Submit(f func()) error {
	select {
	case p.tasks <- f:
		p.submitted.Add(1)
		return nil
	default:
		p.refused.Add(1)
		return errors.New("queue full")
	}
}

// parallelCodings are the codings parallelOn cuts into segments.
var parallelCodings = []string{"br", "zstd", "gzip"}

// parallelOn returns options with brotli (at level 4, which mosaic's own
// encoder cuts into segments), zstd and gzip on, each cutting bodies into
// segments of segment bytes on pool.
func parallelOn(pool compress.WorkPool, segment, tasks int, mod func(*compress.Options)) compress.Options {
	return allOn(func(o *compress.Options) {
		o.Brotli.Level = 4
		for _, p := range []*compress.Parallel{&o.Brotli.Parallel, &o.Zstd.Parallel, &o.Gzip.Parallel} {
			p.Pool, p.SegmentSize, p.Tasks = pool, segment, tasks
			p.Compressors = compress.NewCompressorPool(compress.DefaultCompressors)
		}
		if mod != nil {
			mod(o)
		}
	})
}

// cliDecode decodes body with the coding's command-line tool, or skips the
// test without it.
func cliDecode(t *testing.T, coding string, body []byte) []byte {
	t.Helper()
	tool := map[string]string{"br": "brotli", "gzip": "gzip", "zstd": "zstd"}[coding]
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("no %s command: %v", tool, err)
	}
	cmd := exec.Command(tool, "-d", "-c")
	cmd.Stdin = bytes.NewReader(body)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -d: %v: %s", tool, err, stderr.String())
	}
	return out
}

// Parallel bodies are one valid stream for the codings' own tools, for
// every way a body can end against the segments: on a boundary, one byte
// past it, short of it, of unknown length, written in odd pieces. A body
// of known length is shared evenly among the fewest segments no longer
// than the size and an eighth, so a byte past a boundary makes no segment
// of its own, as it does when the length is unknown; every segment but the
// last goes to the pool.
func TestParallelOutputDecodes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	body := words(5*seg + 1)
	cases := []struct {
		name    string
		n       int
		declare bool
		piece   int
		pooled  int64
	}{
		{"segments exactly", 4 * seg, true, 32 << 10, 3},
		{"one byte past", 4*seg + 1, true, 32 << 10, 3},
		{"one byte past, unknown length", 4*seg + 1, false, 32 << 10, 4},
		{"past the slack", 4*seg + 4*seg/8 + 1, true, 32 << 10, 4},
		{"unknown length", 5*seg + 1, false, 7000, 5},
		{"two segments in one write", 2*seg + 100, true, 5 * seg, 1},
	}
	for _, level := range []int{1, 6, 9} {
		for _, tc := range cases {
			opts := parallelOn(pool, seg, 3, func(o *compress.Options) {
				o.Gzip.Level = level
				o.Zstd.Level = []int{0, 1, 0, 0, 0, 0, 19, 0, 0, 7}[level]
				o.Brotli.Level = []int{0, 0, 0, 0, 0, 0, 2, 0, 0, 4}[level]
			})
			h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				if tc.declare {
					w.Header().Set("Content-Length", strconv.Itoa(tc.n))
				}
				for rest := body[:tc.n]; len(rest) > 0; {
					k := min(tc.piece, len(rest))
					w.Write(rest[:k])
					rest = rest[k:]
				}
			}), opts)
			url := serve(t, h)
			for _, coding := range parallelCodings {
				before := pool.submitted.Load()
				resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
				if got := resp.Header.Get("Content-Encoding"); got != coding {
					t.Fatalf("%s: Content-Encoding %q", coding, got)
				}
				if got := cliDecode(t, coding, raw); !bytes.Equal(got, body[:tc.n]) {
					t.Errorf("level %d, %s, %s: %s -d gave %d bytes, want %d", level, tc.name, coding, coding, len(got), tc.n)
				}
				if got := decode(t, coding, raw); !bytes.Equal(got, body[:tc.n]) {
					t.Errorf("level %d, %s, %s: Go decoder gave %d bytes", level, tc.name, coding, len(got))
				}
				if got := pool.submitted.Load() - before; got != tc.pooled {
					t.Errorf("level %d, %s, %s: %d segments on the pool, want %d", level, tc.name, coding, got, tc.pooled)
				}
			}
		}
	}
}

// The deflate segments start with the input before them as a dictionary:
// the parallel body is within a fraction of a percent of the serial one.
func TestParallelGzipSizeNearSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	body := words(1 << 20)
	serial := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(nil, 0, 0, func(o *compress.Options) { o.Gzip.Level = 6 }))
	parallel := mustNew(t, respond(200, body, "Content-Type: text/html"),
		parallelOn(newTestPool(t, 2, 64), 64<<10, 4, func(o *compress.Options) { o.Gzip.Level = 6 }))
	_, s := fetch(t, http.MethodGet, serve(t, serial), "Accept-Encoding: gzip")
	_, p := fetch(t, http.MethodGet, serve(t, parallel), "Accept-Encoding: gzip")
	if diff := float64(len(p))/float64(len(s)) - 1; diff > 0.005 {
		t.Errorf("parallel gzip %d bytes, serial %d: %.2f%% larger", len(p), len(s), 100*diff)
	}
}

// A body that fits in one segment, of known length or not, is compressed
// without the pool.
func TestParallelSmallBodiesSkipPool(t *testing.T) {
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	body := words(seg)
	for _, declare := range []bool{true, false} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if declare {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.Write(body[:seg/2])
			w.Write(body[seg/2:])
		}), parallelOn(pool, seg, 4, nil))
		url := serve(t, h)
		for _, coding := range parallelCodings {
			fetchDecoded(t, url, body, "Accept-Encoding: "+coding)
		}
	}
	if n := pool.submitted.Load(); n != 0 {
		t.Errorf("%d segments went to the pool", n)
	}
}

// holdingPool queues tasks and runs none until it is released, so that a
// test sees how many a response hands out before it stops.
type holdingPool struct {
	mu       sync.Mutex
	held     []func()
	released bool
}

func (p *holdingPool) Submit(f func()) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.released {
		go f()
		return nil
	}
	p.held = append(p.held, f)
	return nil
}

func (p *holdingPool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.held)
}

func (p *holdingPool) release() {
	p.mu.Lock()
	p.released = true
	held := p.held
	p.mu.Unlock()
	for _, f := range held {
		go f()
	}
}

// At most tasks segments of a response are out at once: with the pool
// stalled, the handler's writes stop after tasks segments and the one
// being filled, and resume when the pool runs.
func TestParallelBackpressure(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg, tasks = 64 << 10, 3
	body := words(20 * seg)
	pool := &holdingPool{}
	var written atomic.Int64
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for rest := body; len(rest) > 0; {
			k := min(16<<10, len(rest))
			w.Write(rest[:k])
			written.Add(int64(k))
			rest = rest[k:]
		}
	}), parallelOn(pool, seg, tasks, nil))
	url := serve(t, h)
	done := make(chan []byte)
	go func() {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: gzip")
		done <- raw
	}()
	deadline := time.Now().Add(5 * time.Second)
	for pool.count() < tasks && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // room for writes the bound should stop
	if n := pool.count(); n != tasks {
		t.Errorf("%d segments handed to the stalled pool, want %d", n, tasks)
	}
	// tasks segments out, one full one waiting to go, and the write that
	// found it full.
	if n, bound := written.Load(), int64((tasks+1)*seg+16<<10); n > bound {
		t.Errorf("handler wrote %d bytes while the pool stalled, more than %d", n, bound)
	}
	pool.release()
	select {
	case raw := <-done:
		if got := decode(t, "gzip", raw); !bytes.Equal(got, body) {
			t.Errorf("decoded %d bytes, want %d", len(got), len(body))
		}
	case <-time.After(20 * time.Second):
		t.Fatal("response did not complete after the pool ran")
	}
}

// A pool whose queue is full refuses segments, and the response compresses
// them itself: the body is the same and complete.
func TestParallelQueueFullRunsInline(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	body := words(8 * seg)
	var logs bytes.Buffer
	var mu sync.Mutex
	lg := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	full := newTestPool(t, 1, 1)
	// Occupy the worker and the queue's one place for the whole test.
	block := make(chan struct{})
	defer close(block)
	started := make(chan struct{})
	full.Submit(func() { close(started); <-block })
	<-started
	if err := full.Submit(func() { <-block }); err != nil {
		t.Fatal(err)
	}
	h := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(full, seg, 4, func(o *compress.Options) { o.Logger = lg }))
	url := serve(t, h)
	for _, coding := range parallelCodings {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
		if got := cliDecode(t, coding, raw); !bytes.Equal(got, body) {
			t.Errorf("%s: decoded %d bytes, want %d", coding, len(got), len(body))
		}
	}
	if n := full.refused.Load(); n < 3*7 {
		t.Errorf("the full pool refused %d segments, want 21", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "refused=7"); n != 3 {
		t.Errorf("debug log has %d lines with refused=7, want 3:\n%s", n, logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// A flush ends the current segment: what was written before it decodes at
// once, before the handler writes more.
func TestParallelFlushEndsSegment(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	first, rest := words(3*seg+500), words(2*seg)
	for _, coding := range parallelCodings {
		goOn := make(chan struct{})
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Write(first)
			w.(http.Flusher).Flush()
			<-goOn
			w.Write(rest)
		}), parallelOn(pool, seg, 4, nil))
		url := serve(t, h)
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept-Encoding", coding)
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		dec := streamReader(t, coding, resp.Body)
		got := make([]byte, len(first))
		read := make(chan error, 1)
		go func() { _, err := io.ReadFull(dec, got); read <- err }()
		select {
		case err := <-read:
			if err != nil || !bytes.Equal(got, first) {
				t.Errorf("%s: before the handler went on, read %v", coding, err)
			}
		case <-time.After(10 * time.Second):
			close(goOn)
			t.Fatalf("%s: what was written before the flush did not arrive", coding)
		}
		close(goOn)
		tail, err := io.ReadAll(dec)
		resp.Body.Close()
		if err != nil || !bytes.Equal(tail, rest) {
			t.Errorf("%s: after the flush, read %d bytes, %v", coding, len(tail), err)
		}
	}
}

// A flush with nothing written since the one before sends nothing more: it
// makes no empty segment, so the body comes out as with one flush.
func TestParallelFlushTwiceNoEmptySegment(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	first, rest := words(2*seg+500), words(seg+300)
	body := append(append([]byte(nil), first...), rest...)
	for _, coding := range parallelCodings {
		var raw [2][]byte
		for flushes := 1; flushes <= 2; flushes++ {
			h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Write(first)
				for range flushes {
					w.(http.Flusher).Flush()
				}
				w.Write(rest)
			}), parallelOn(pool, seg, 4, nil))
			_, raw[flushes-1] = fetch(t, http.MethodGet, serve(t, h), "Accept-Encoding: "+coding)
		}
		if got := cliDecode(t, coding, raw[1]); !bytes.Equal(got, body) {
			t.Errorf("%s: flushed twice, %s -d gave %d bytes, want %d", coding, coding, len(got), len(body))
		}
		if !bytes.Equal(raw[0], raw[1]) {
			t.Errorf("%s: flushed twice, %d bytes; once, %d", coding, len(raw[1]), len(raw[0]))
		}
	}
}

// The ratio variables count every segment, header and trailer: exact.
func TestParallelRatioExact(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	body := words(6*seg + 123)
	states := make(chan *vars.State, 1)
	inner := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(newTestPool(t, 2, 64), seg, 4, nil))
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &vars.State{}
		inner.ServeHTTP(w, r.WithContext(vars.NewContext(r.Context(), st)))
		states <- st
	}))
	for _, coding := range parallelCodings {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
		st := <-states
		e, _ := compress.ParseEncoding(coding)
		got, _ := st.Get(e.RatioVariable())
		if want := vars.FormatRatio(int64(len(body)), int64(len(raw))); got != want {
			t.Errorf("$%s = %q, want %q", e.RatioVariable(), got, want)
		}
	}
}

// Compressors are kept up to the pool's count; responses beyond it get
// their own.
func TestCompressorPool(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	body := words(3 * seg)
	pool := newTestPool(t, 2, 64)
	for _, n := range []int{0, 1} {
		cp := compress.NewCompressorPool(n)
		h := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(pool, seg, 4, func(o *compress.Options) {
			o.Gzip.Parallel.Compressors = cp
		}))
		url := serve(t, h)
		// A response gives its compressor back after its last byte
		// is out: wait for that before the next one.
		settled := func() compress.CompressorStats {
			deadline := time.Now().Add(5 * time.Second)
			for cp.Stats().Held > 0 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			return cp.Stats()
		}
		for range 3 {
			fetchDecoded(t, url, body, "Accept-Encoding: gzip")
			settled()
		}
		st := settled()
		want := compress.CompressorStats{Unpooled: 3}
		if n == 1 {
			want = compress.CompressorStats{Idle: 1, Allocated: 1, Reused: 2}
		}
		if st != want {
			t.Errorf("parallel_compressors %d: stats %+v, want %+v", n, st, want)
		}
	}
}

func TestParallelValidate(t *testing.T) {
	pool := newTestPool(t, 1, 1)
	for _, tc := range []struct {
		seg, tasks int
		want       string
	}{
		{32 << 10, 4, "gzip_parallel_segment_size"},
		{32 << 20, 4, "gzip_parallel_segment_size"},
		{1 << 20, 0, "gzip_parallel_tasks"},
		{1 << 20, compress.MaxTasks + 1, "gzip_parallel_tasks"},
	} {
		o := parallelOn(pool, tc.seg, tc.tasks, nil)
		o.Zstd.Enable = false
		_, err := compress.New(http.NotFoundHandler(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("segment %d, tasks %d: %v, want an error naming %s", tc.seg, tc.tasks, err, tc.want)
		}
	}
	// Off, the settings are not read.
	o := parallelOn(nil, 0, 0, nil)
	if _, err := compress.New(http.NotFoundHandler(), o); err != nil {
		t.Error(err)
	}
}

// While the pools hold GOMAXPROCS segments, a new response is compressed
// serially: no CPU is free to run its segments.
func TestParallelBusyPoolsCompressSerially(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const seg = 64 << 10
	body := words(6 * seg)
	pool := &holdingPool{}
	h := mustNew(t, respond(200, body, "Content-Type: text/html"), parallelOn(pool, seg, 4, nil))
	url := serve(t, h)
	first := make(chan []byte)
	go func() {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: gzip")
		first <- raw
	}()
	deadline := time.Now().Add(5 * time.Second)
	for pool.count() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := pool.count(); n != 4 {
		t.Fatalf("first response handed out %d segments, want 4", n)
	}
	// The pool is stalled: a response that used it would not end.
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	for _, coding := range parallelCodings {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept-Encoding", coding)
		resp, err := client.Do(req)
		if err != nil {
			pool.release()
			t.Fatalf("%s while the pools are busy: %v", coding, err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			pool.release()
			t.Fatalf("%s while the pools are busy: %v", coding, err)
		}
		if got := decode(t, coding, raw); !bytes.Equal(got, body) {
			t.Errorf("%s: decoded %d bytes, want %d", coding, len(got), len(body))
		}
	}
	if n := pool.count(); n != 4 {
		t.Errorf("%d segments on the busy pool, want the first response's 4", n)
	}
	pool.release()
	if got := decode(t, "gzip", <-first); !bytes.Equal(got, body) {
		t.Errorf("first response decodes to %d bytes, want %d", len(got), len(body))
	}
}

// Writes of random sizes with flushes at random points, the pool sometimes
// full: every body decodes to what was written, with gzip's CRC and
// dictionaries across flushed segments right.
func TestParallelRandomWritesAndFlushes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	pool := newTestPool(t, 2, 2)
	body := words(8 * seg)
	for i := range 24 {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		n := rng.IntN(len(body)) + 1
		var pieces []int
		var flushes []bool
		for left := n; left > 0; {
			k := min(left, 1+rng.IntN(100_000))
			pieces = append(pieces, k)
			flushes = append(flushes, rng.IntN(8) == 0)
			left -= k
		}
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			at := 0
			for j, k := range pieces {
				w.Write(body[at : at+k])
				at += k
				if flushes[j] {
					w.(http.Flusher).Flush()
				}
			}
		}), parallelOn(pool, seg, 1+rng.IntN(4), nil))
		url := serve(t, h)
		for _, coding := range parallelCodings {
			_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: "+coding)
			got := decode(t, coding, raw)
			if i%6 == 0 {
				got = cliDecode(t, coding, raw)
			}
			if !bytes.Equal(got, body[:n]) {
				t.Fatalf("case %d, %s (%d bytes in %d pieces): decoded %d bytes", i, coding, n, len(pieces), len(got))
			}
		}
	}
}

// At brotli's levels 10 and 11 and zstd's joined levels 10-22, where a
// segment's prefix costs it a part of compressing as many bytes, the
// first segment of a body of known
// length, which has none, is the longer, within the slack, by the part of
// the prefix the window holds; the body is still cut into as many
// segments, and covered. Other codings and levels, and bodies of unknown
// length, are cut as TestParallelSegmentsEven says.
func TestParallelSegmentsPrimed(t *testing.T) {
	const k = 1 << 10
	for _, c := range []struct {
		coding                compress.Encoding
		level, segment, lgwin int
		length                int64
		first, rest           int // 0: cut evenly
	}{
		// react-dom in 512k segments: 524,272 bytes of prefix (the
		// window) cost 0.12 of a byte each at 11, half of it moved to
		// the first; at 10 (0.26) the slack stops it.
		{compress.Brotli, 11, 512 * k, 19, 1080227, 571_570, 508_657},
		{compress.Brotli, 10, 512 * k, 19, 1080227, 589_824, 490_403},
		// 3 MiB in 1m segments: the window, not the segment, is the
		// prefix; two thirds of its cost go to the first.
		{compress.Brotli, 11, 1024 * k, 19, 3 << 20, 1_090_517, 1_027_606},
		// With a window of 4 MiB, the 1 MiB before the segment.
		{compress.Brotli, 11, 1024 * k, 22, 3 << 20, 1_132_462, 1_006_633},
		// A window of 32 KiB holds a prefix shorter than the segments.
		{compress.Brotli, 10, 64 * k, 15, 120_000, 64_257, 55_743},
		// 10 MiB in 143 segments of 64k and the slack: stopped by it.
		{compress.Brotli, 11, 64 * k, 19, 10 << 20, 73_728, 73_325},
		{compress.Brotli, 11, 512 * k, 19, -1, 0, 0},
		{compress.Brotli, 11, 1024 * k, 19, 1080227, 0, 0}, // one segment
		{compress.Brotli, 9, 512 * k, 19, 1080227, 0, 0},
		{compress.Gzip, 9, 512 * k, 0, 1080227, 0, 0},
		// Joined zstd segments: 294,912 bytes of prefix (half the
		// longest segment) at 0.68 of a byte, stopped by the slack;
		// in 256k segments, 256 KiB of prefix, stopped by it too.
		{compress.Zstd, 19, 512 * k, 0, 1080227, 589_824, 490_403},
		{compress.Zstd, 10, 256 * k, 0, 1080227, 294_912, 261_772},
		{compress.Zstd, 19, 512 * k, 0, -1, 0, 0},
		{compress.Zstd, 9, 512 * k, 0, 1080227, 0, 0}, // frames: nothing to enter
	} {
		name := fmt.Sprintf("%v %d, segment %d, window 2^%d, body %d", c.coding, c.level, c.segment, c.lgwin, c.length)
		first, rest := compress.CutLengths(c.coding, c.level, c.segment, c.lgwin, c.length)
		even := compress.CutLength(c.segment, c.length)
		if c.first == 0 {
			c.first, c.rest = even, even
		}
		if first != c.first || rest != c.rest {
			t.Errorf("%s: segments of %d and %d bytes, want %d and %d", name, first, rest, c.first, c.rest)
		}
		if c.length <= 0 {
			continue
		}
		n := (c.length + int64(even) - 1) / int64(even)
		if first > c.segment+c.segment/8 || rest > first {
			t.Errorf("%s: first segment %d, others %d bytes, bound %d", name, first, rest, c.segment+c.segment/8)
		}
		if covered := int64(first) + (n-1)*int64(rest); covered < c.length || covered-c.length >= n {
			t.Errorf("%s: %d + %d×%d bytes for a body of %d", name, first, n-1, rest, c.length)
		}
	}
}

// A body of known length is shared evenly among the fewest segments no
// longer than the configured size and an eighth; of unknown length, it is
// cut at the configured size.
func TestParallelSegmentsEven(t *testing.T) {
	const k = 1 << 10
	for _, c := range []struct {
		segment int
		length  int64
		want    int
	}{
		{512 * k, -1, 512 * k},
		{512 * k, 1080227, 540114},         // react-dom: two halves, not 512k, 512k and 31 KB
		{1024 * k, 1080227, 1080227},       // one segment within the slack
		{256 * k, 1080227, 270057},         // four, not four and 31 KB
		{64 * k, 4*64*k + 1, 64*k + 1},     // the byte past joins a segment
		{64 * k, 4*72*k + 1, 4*72*k/5 + 1}, // past the slack: five segments
	} {
		got := compress.CutLength(c.segment, c.length)
		if got != c.want {
			t.Errorf("segment %d, body %d: segments of %d bytes, want %d", c.segment, c.length, got, c.want)
		}
		if c.length > 0 && (got > c.segment+c.segment/8 || int64(got)*((c.length+int64(got)-1)/int64(got)) < c.length) {
			t.Errorf("segment %d, body %d: %d bytes per segment breaks the bounds", c.segment, c.length, got)
		}
	}
}
