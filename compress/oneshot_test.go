package compress_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/brotli"
	"github.com/mosaic-edge/mosaic/compress"
)

// Responses that interleave do not each hold an encoder: a body of known
// length is compressed in one burst, at most GOMAXPROCS at once, so the
// pool never needs more encoders than that.
func TestOneShotBoundsEncoders(t *testing.T) {
	body := jquery(t)[:40_000]
	pool := compress.NewEncoderPool(runtime.GOMAXPROCS(0))
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		// Yield between writes, as a handler reading a file or an
		// upstream does, so that the responses interleave.
		for i := 0; i < len(body); i += 8 << 10 {
			w.Write(body[i:min(i+8<<10, len(body))])
			runtime.Gosched()
		}
	}), allOn(func(o *compress.Options) {
		o.Zstd.Enable, o.Gzip.Enable = false, false
		o.Brotli.Level = 5
		o.Brotli.Encoders = pool
	}))
	url := serve(t, h)
	var wg sync.WaitGroup
	for range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
			if got := decode(t, resp.Header.Get("Content-Encoding"), raw); !bytes.Equal(got, body) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(body))
			}
			if resp.ContentLength != int64(len(raw)) {
				t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(raw))
			}
		}()
	}
	wg.Wait()
	st := pool.Stats()
	if st.Allocated > uint64(runtime.GOMAXPROCS(0)) || st.Allocated+st.Reused != 24 {
		t.Errorf("24 concurrent responses: %+v, want at most GOMAXPROCS (%d) allocated", st, runtime.GOMAXPROCS(0))
	}
}

// A one-shot response that is flushed, or outgrows compress.OneShotMax because its
// handler wrote more than it declared, goes on as a streamed one.
func TestOneShotBecomesStreamed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     []byte
		declared int
		flush    bool
	}{
		{"flushed", text(60_000), 60_000, true},
		{"longer than declared", text(compress.OneShotMax + 50_000), 1000, false},
	} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Length", strconv.Itoa(tc.declared))
			w.Write(tc.body[:20_000])
			if tc.flush {
				w.(http.Flusher).Flush()
			}
			for i := 20_000; i < len(tc.body); i += 32 << 10 {
				w.Write(tc.body[i:min(i+32<<10, len(tc.body))])
			}
		}), allOn(func(o *compress.Options) { o.Brotli.Level = 1 }))
		resp := fetchDecoded(t, serve(t, h), tc.body, "Accept-Encoding: br")
		if resp.Header.Get("Content-Encoding") != "br" {
			t.Errorf("%s: Content-Encoding %q", tc.name, resp.Header.Get("Content-Encoding"))
		}
		// A flush sends the headers: no Content-Length can follow.
		if tc.flush && resp.ContentLength != -1 {
			t.Errorf("%s: Content-Length %d after a flush", tc.name, resp.ContentLength)
		}
	}
}

// A one-shot body is held in a buffer the next response reuses, at every
// size up to compress.OneShotMax: a 1 MiB body allocated its megabyte per
// response, which made the collector run every few responses.
func TestOneShotReusesInputBuffer(t *testing.T) {
	for _, n := range []int{100 << 10, 1 << 20, compress.OneShotMax} {
		if per := brotliAllocs(t, n, 10); per > 16<<10 {
			t.Errorf("%d-byte body: %d bytes allocated per response, want at most 16 KiB", n, per)
		}
	}
}

// brotliAllocs serves an n-byte text body of known length compressed at
// brotli 1 until the pools are warm, then responses more times, and
// returns the bytes allocated per response. It skips under -race, where
// sync.Pool drops items on purpose.
func brotliAllocs(t *testing.T, n, responses int) uint64 {
	t.Helper()
	if raceEnabled {
		t.Skip("sync.Pool drops items on purpose under -race")
	}
	// No collection during the count, which would empty the pools, and
	// one P: what a P puts in a sync.Pool last, another P cannot get.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	body := text(n)
	h := mustNew(t, respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(n)),
		allOn(func(o *compress.Options) { o.Brotli.Level = 1 }))
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", "br")
	w := &discardWriter{h: http.Header{}}
	serve := func() {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
	serve()
	if w.h.Get("Content-Encoding") != "br" {
		t.Fatalf("%d bytes: not compressed", n)
	}
	serve()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range responses {
		serve()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(responses)
}

// The encoder compresses a one-shot body where it lies: going back to the
// pool, it holds its tables but no copy of the body, neither in its
// history nor in its output buffer (an incompressible body is stored
// whole), which a bounded retention policy between the two keeps (it
// freed such encoders when their history had grown to the body's size).
func TestOneShotEncoderHoldsNoBody(t *testing.T) {
	noise := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range noise {
		noise[i] = byte(rng.Uint32())
	}
	for name, body := range map[string][]byte{"text": text(1 << 20), "noise": noise} {
		// The tables, as an encoder sized for the body holds them idle
		// (detachBrotli's reset) after a body of one byte.
		opts := brotli.Options{Quality: 1, LGWin: 19, SizeHint: len(body)}
		bw, err := brotli.NewWriter(io.Discard, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := bw.WriteLast(body[:1]); err != nil {
			t.Fatal(err)
		}
		opts.SizeHint = 1
		bw.ResetOptions(nil, opts)
		tables := compress.EncoderFootprint(bw)

		pool := compress.NewEncoderPool(1)
		bound := tables + int64(len(body))/2
		h := mustNew(t, respond(200, body, "Content-Type: text/html", "Content-Length: "+strconv.Itoa(len(body))),
			allOn(func(o *compress.Options) {
				o.Brotli.Level = 1
				o.Brotli.Encoders = pool
				o.Brotli.Retention = compress.Retention{Policy: compress.RetainBounded, Bound: bound}
			}))
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("Accept-Encoding", "br")
		for range 2 {
			w := &discardWriter{h: http.Header{}}
			h.ServeHTTP(w, req)
			if w.h.Get("Content-Encoding") != "br" {
				t.Fatal("not compressed")
			}
		}
		if st := pool.Stats(); st.Released != 0 || st.Reused != 1 {
			t.Errorf("two 1 MiB responses of %s, bound %d bytes (tables %d): %+v, want the encoder kept and reused",
				name, bound, tables, st)
		}
	}
}

// A small compressed response allocates little besides its headers' values:
// the response writer (416 bytes, most of what the filter allocated) comes
// back from a pool, and $brotli_ratio is formatted in one allocation.
func TestSmallResponseAllocations(t *testing.T) {
	// The test's handler allocates its two header values; the filter its
	// Content-Encoding, Content-Length, Vary and weak ETag values, and the
	// ratio: about 110 bytes in all, where the writer alone was 416.
	if per := brotliAllocs(t, 2<<10, 100); per > 256 {
		t.Errorf("%d bytes allocated per response, want at most 256", per)
	}
}
