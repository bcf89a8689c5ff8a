package compress_test

import (
	"bytes"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
)

// While a response compresses serially on a 2-CPU server (here: a
// one-shot body waiting for a CPU slot, which the test holds as running
// bursts would), the pools are empty but fewer than two CPUs are free: a
// new long response is not cut, since cutting it would gain nothing and
// cost its prefixes. Once the CPUs are free it is cut again.
func TestParallelBusyCPUsCompressSerially(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	opts := parallelOn(pool, seg, 4, nil)
	small := words(seg / 2) // never cut, but its coding has a pool: counted
	big := words(6 * seg)
	smallURL := serve(t, mustNew(t, respond(200, small, "Content-Type: text/html",
		"Content-Length: "+strconv.Itoa(len(small))), opts))
	bigURL := serve(t, mustNew(t, respond(200, big, "Content-Type: text/html"), opts))

	release := compress.HoldCPUSlots(2)
	done := make(chan []byte, 1)
	go func() {
		_, raw := fetch(t, http.MethodGet, smallURL, "Accept-Encoding: br")
		done <- raw
	}()
	deadline := time.Now().Add(5 * time.Second)
	for compress.Compressing() < 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := compress.Compressing(); n != 1 {
		release()
		t.Fatalf("%d responses counted compressing, want the one waiting for a CPU", n)
	}
	for _, coding := range []string{"gzip", "zstd"} {
		_, raw := fetch(t, http.MethodGet, bigURL, "Accept-Encoding: "+coding)
		if got := decode(t, coding, raw); !bytes.Equal(got, big) {
			t.Errorf("%s while the CPUs are busy: decoded %d bytes, want %d", coding, len(got), len(big))
		}
	}
	if n := pool.submitted.Load(); n != 0 {
		t.Errorf("%d segments pooled while one of two CPUs was busy compressing, want 0", n)
	}
	release()
	if got := decode(t, "br", <-done); !bytes.Equal(got, small) {
		t.Errorf("waiting response decodes to %d bytes, want %d", len(got), len(small))
	}
	if n := compress.Compressing(); n != 0 {
		t.Fatalf("%d responses still counted compressing after all ended", n)
	}
	_, raw := fetch(t, http.MethodGet, bigURL, "Accept-Encoding: gzip")
	if got := decode(t, "gzip", raw); !bytes.Equal(got, big) {
		t.Errorf("gzip on idle CPUs: decoded %d bytes, want %d", len(got), len(big))
	}
	if pool.submitted.Load() == 0 {
		t.Error("a long response on idle CPUs was not cut into segments")
	}
}

// A serial response is counted only while its encoder works: not while
// its handler makes it wait for the rest of the body.
func TestParallelWaitingResponseNotCounted(t *testing.T) {
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	body := words(seg / 2)
	half := len(body) / 2
	wrote, resume := make(chan struct{}), make(chan struct{})
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body[:half])
		close(wrote)
		<-resume
		w.Write(body[half:])
	}), parallelOn(pool, seg, 4, nil))
	url := serve(t, h)
	done := make(chan []byte, 1)
	go func() {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: gzip")
		done <- raw
	}()
	<-wrote
	n := compress.Compressing()
	close(resume)
	if got := decode(t, "gzip", <-done); !bytes.Equal(got, body) {
		t.Errorf("decoded %d bytes, want %d", len(got), len(body))
	}
	if n != 0 {
		t.Errorf("%d counted compressing while the only response waits for its handler, want 0", n)
	}
}

// A body compressed serially because the CPUs are busy takes the serial
// path of a coding whose pool is off: the one-shot burst and the
// brotli_idle_encoders pool, whose encoder the next such response reuses.
// Neither a compressor's segment encoders nor a fresh encoder per
// response (README, "The 8-connection rows' warm-up").
func TestParallelBusySerialReusesEncoder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one CPU: nothing is cut
	const seg = 64 << 10
	pool := newTestPool(t, 2, 64)
	encoders := compress.NewEncoderPool(4)
	body := words(6 * seg)
	url := serve(t, mustNew(t, respond(200, body, "Content-Type: text/html",
		"Content-Length: "+strconv.Itoa(len(body))), parallelOn(pool, seg, 4, func(o *compress.Options) {
		o.Brotli.Encoders = encoders
	})))
	const n = 4
	for i := range n {
		_, raw := fetch(t, http.MethodGet, url, "Accept-Encoding: br")
		if got := decode(t, "br", raw); !bytes.Equal(got, body) {
			t.Fatalf("response %d decodes to %d bytes, want %d", i, len(got), len(body))
		}
	}
	if got := pool.submitted.Load(); got != 0 {
		t.Errorf("%d segments pooled with one CPU, want 0", got)
	}
	if s := encoders.Stats(); s.Allocated != 1 || s.Reused != n-1 {
		t.Errorf("%d serial responses: %+v, want 1 encoder allocated and reused %d times", n, s, n-1)
	}
}
