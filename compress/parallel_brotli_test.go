package compress_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
)

// Parallel brotli: catable segments of mosaic's own encoder, each primed
// with the input before it. The rules brotli shares with gzip and zstd
// (pools, backpressure, flush, busy pools, ratios) are tested with them in
// parallel_test.go.

// brotliParallel serves body through brotli at level, with its
// Content-Length if declare is set, cut into segments of seg bytes on pool
// (nil: serial), and returns the compressed body, checked by both decoders.
func brotliParallel(t *testing.T, body []byte, declare bool, level, seg int, pool compress.WorkPool) []byte {
	t.Helper()
	headers := []string{"Content-Type: text/html"}
	if declare {
		headers = append(headers, "Content-Length: "+strconv.Itoa(len(body)))
	}
	h := mustNew(t, respond(200, body, headers...),
		parallelOn(pool, seg, compress.DefaultTasks, func(o *compress.Options) { o.Brotli.Level = level }))
	resp, raw := fetch(t, http.MethodGet, serve(t, h), "Accept-Encoding: br")
	if ce := resp.Header.Get("Content-Encoding"); ce != "br" {
		t.Fatalf("Content-Encoding %q", ce)
	}
	if got := decode(t, "br", raw); !bytes.Equal(got, body) {
		t.Fatalf("level %d, %d-byte segments: decoded %d bytes, want %d", level, seg, len(got), len(body))
	}
	if got := cliDecode(t, "br", raw); !bytes.Equal(got, body) {
		t.Fatalf("level %d, %d-byte segments: brotli -d gave %d bytes, want %d", level, seg, len(got), len(body))
	}
	return raw
}

// The bound: within 1% of serial at 1 MiB segments. Shorter
// segments cost more (each starts without the distances the serial
// stream had, and reaches back only 64 KiB), but the prefix keeps even 64k
// segments within 5%, where segments without one are 9-13% larger on
// react-dom. Level 11 is held to the 1 MiB bound alone (64k segments cost about 5% at 10 and 11, and these levels
// take most of a minute under the race detector; 10, +0.20% at 1 MiB,
// is left out for the same reason). The body's length is not declared:
// declared, a 1 MB body would be one segment of 1 MiB and its slack, and
// not cut; streamed, it is cut into 1 MiB and the 31 KB left.
func TestParallelBrotliSizeNearSerial(t *testing.T) {
	encoderOnly(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	body := largeBody(t)
	type bound struct {
		seg   int
		bound float64
	}
	for _, level := range []int{1, 4, 6, 9, 11} {
		serial := len(brotliParallel(t, body, false, level, compress.DefaultSegmentSize, nil))
		bounds := []bound{{1 << 20, 0.01}, {64 << 10, 0.10}}
		if level == 11 {
			bounds = bounds[:1]
		}
		for _, c := range bounds {
			pool := newTestPool(t, 2, 64)
			n := len(brotliParallel(t, body, false, level, c.seg, pool))
			if pool.submitted.Load() == 0 {
				t.Fatalf("level %d, %dk segments: nothing went to the pool", level, c.seg>>10)
			}
			diff := float64(n)/float64(serial) - 1
			t.Logf("level %d, %dk segments: %d bytes, serial %d (%+.2f%%)", level, c.seg>>10, n, serial, 100*diff)
			if diff > c.bound {
				t.Errorf("level %d, %dk segments: %d bytes, %.2f%% more than serial %d, bound %.0f%%",
					level, c.seg>>10, n, 100*diff, serial, 100*c.bound)
			}
		}
	}
}

// The segments share one window, which the first declares before the rest
// of the body is seen: the one the serial encoder declares for a body of
// the known length (the smallest that holds it), and the configured one
// when the length is unknown.
func TestParallelBrotliWindow(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	body := words(300 << 10) // needs 2^19 bytes of window
	for _, declare := range []bool{true, false} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			if declare {
				w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			}
			w.Write(body)
		}), parallelOn(newTestPool(t, 2, 64), seg, 4, func(o *compress.Options) { o.Brotli.Window = 16 << 20 }))
		_, raw := fetch(t, http.MethodGet, serve(t, h), "Accept-Encoding: br")
		if got := cliDecode(t, "br", raw); !bytes.Equal(got, body) {
			t.Fatalf("declared %v: brotli -d gave %d bytes, want %d", declare, len(got), len(body))
		}
		want := 24
		if declare {
			want = 19
		}
		if got := windowBits(raw); got != want {
			t.Errorf("Content-Length declared %v: window of 2^%d bytes, want 2^%d", declare, got, want)
		}
	}
}

// windowBits reads WBITS from a brotli stream's header (RFC 7932 section
// 9.1), for the windows of 16 to 24 bits.
func windowBits(b []byte) int {
	switch {
	case b[0]&1 == 0:
		return 16
	case (b[0]>>1)&7 != 0:
		return 17 + int((b[0]>>1)&7)
	}
	return 0 // 10 to 15 or 17 bits: not used here
}

// A brotli segment is primed with as much as one segment of the input
// before it: react-dom in two halves at level 9 comes out within 0.25% of
// one stream (0.13%), where 256 KiB of prefix left it 0.35% larger.
func TestParallelBrotliPrefixOneSegment(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	body := largeBody(t)
	serial := len(brotliParallel(t, body, true, 9, compress.DefaultSegmentSize, nil))
	pool := newTestPool(t, 2, 64)
	n := len(brotliParallel(t, body, true, 9, 512<<10, pool))
	if pool.submitted.Load() != 1 {
		t.Fatalf("%d segments went to the pool, want 1 of the 2 halves", pool.submitted.Load())
	}
	if diff := float64(n)/float64(serial) - 1; diff > 0.0025 {
		t.Errorf("level 9 in two halves: %d bytes, %+.2f%% against one stream's %d, bound +0.25%%", n, 100*diff, serial)
	}
}

// At level 10 a body of known length is cut with a longer first segment
// (TestParallelSegmentsPrimed): 140,000 bytes in 64k segments are two, of
// 73,728 and 66,272 bytes, one on the pool and the last on the response's
// goroutine (cut at the others' length, a third of 7,456 bytes would
// follow). A flush that ends the first segment early leaves the others
// even: after a first byte flushed alone, 70,000 and 69,999 bytes, where
// the others' shorter length would leave four segments. With a window of
// 32 KiB (brotli_window 32k) a later segment enters no more than that, and
// 120,000 bytes are cut 64,257 and 55,743.
func TestParallelBrotliFirstLonger(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	const seg = 64 << 10
	for _, c := range []struct {
		length, window int
		flush          bool
		want           string
	}{
		{140_000, 0, false, "segments=2 pooled=1 first=73728"},
		{140_000, 0, true, "segments=3 pooled=1 first=1"},
		{120_000, 32 << 10, false, "segments=2 pooled=1 first=64257"},
	} {
		body := words(c.length)
		var logs bytes.Buffer
		var mu sync.Mutex
		lg := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body[:1])
			if c.flush {
				w.(http.Flusher).Flush()
			}
			w.Write(body[1:])
		}), parallelOn(newTestPool(t, 2, 64), seg, compress.DefaultTasks, func(o *compress.Options) {
			o.Brotli.Level = 10
			if c.window > 0 {
				o.Brotli.Window = c.window
			}
			o.Logger = lg
		}))
		_, raw := fetch(t, http.MethodGet, serve(t, h), "Accept-Encoding: br")
		if got := decode(t, "br", raw); !bytes.Equal(got, body) {
			t.Fatalf("%d bytes, flush %v: decoded %d bytes", c.length, c.flush, len(got))
		}
		// The line comes once the response is done, which the client may
		// see first.
		var line string
		for deadline := time.Now().Add(5 * time.Second); line == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			line = logs.String()
			mu.Unlock()
		}
		fields := map[string]string{}
		for _, f := range strings.Fields(line) {
			if k, v, ok := strings.Cut(f, "="); ok {
				fields[k] = v
			}
		}
		for _, f := range strings.Fields(c.want) {
			if k, v, _ := strings.Cut(f, "="); fields[k] != v {
				t.Errorf("%d bytes, flush %v: %s=%s, want %s (debug log %q)", c.length, c.flush, k, fields[k], v, line)
			}
		}
	}
}

// Segments are told where they start in the body, so that at the levels
// that search the static dictionary throughout (7 and up) they can refer to
// it too: api-listing.json (95 KB) in 64k segments at level 9 comes out
// within 1.5% of serial compression (+0.91%; +2.03% without the
// dictionary after the first segment).
func TestParallelBrotliSegmentDictionary(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // the busy-CPU rule needs two
	body, err := os.ReadFile("../../shared/corpus/api-listing.json")
	if err != nil {
		t.Skip("no ../../shared/corpus/api-listing.json")
	}
	serial := len(brotliParallel(t, body, true, 9, compress.DefaultSegmentSize, nil))
	pool := newTestPool(t, 2, 64)
	n := len(brotliParallel(t, body, true, 9, 64<<10, pool))
	if pool.submitted.Load() == 0 {
		t.Fatal("nothing went to the pool")
	}
	if diff := float64(n)/float64(serial) - 1; diff > 0.015 {
		t.Errorf("level 9 in 64k segments: %d bytes, %+.2f%% against serial %d, bound +1.5%%", n, 100*diff, serial)
	}
}
