package compress

import (
	"fmt"
	"runtime"
	"sync"
)

// One-shot brotli compression.
//
// A brotli encoder at a high level carries tens of megabytes of hash
// tables, and a response holds its encoder from its first byte to its
// last. When responses interleave (the Go scheduler preempts a goroutine
// after 10 ms, or the machine is busy), each one in flight holds an
// encoder of its own: with eight connections at level 9, eight 32 MiB
// tables are in use and touched in turn, more than brotli_idle_encoders
// keeps, so encoders are freed and allocated again, and the process spends
// its time faulting in fresh memory.
//
// A body whose length is known and small (the common case: files and
// cached responses) is therefore held until the handler returns and then
// compressed in one go, holding an encoder only for that burst of CPU
// work, and at most GOMAXPROCS bursts run at once. Responses in flight
// then use no more encoders than there are CPUs to run them, the idle
// encoders suffice, and an encoder's tables stay in cache for its whole
// burst, as in NGINX's event loop, which compresses one response at a
// time. Nothing that waits (the handler, the client) happens inside a
// burst: the compressed output is sent after it.

// oneShotMax is the largest Content-Length compressed in one go: it covers
// nearly all text assets, and holding 2 MiB of input costs far less than
// the encoder it spares (32 MiB and more from level 5 up). A larger body,
// one of unknown length and one that is flushed are compressed as they are
// written.
const oneShotMax = 2 << 20

// The buffers that hold one-shot bodies are recycled in two pools, so
// that a small body does not take (and keep from the next large body) a
// buffer of megabytes, and a large body finds one its size: bodies up to
// smallInMax share inBuffers, larger ones bigInBuffers. A large body's
// buffer was once left to the collector; a 1 MiB body then allocated its
// megabyte per response, and the collector ran every four responses
// (README, "What a request costs outside the encoder"). A pool keeps no
// more buffers than responses held bodies at once, and the collector
// empties it when it goes unused.
const smallInMax = 256 << 10

var (
	inBuffers = sync.Pool{New: func() any {
		b := make([]byte, 0, 32<<10)
		return &b
	}}
	bigInBuffers sync.Pool
)

// cpuSlots bounds the bursts that run at once to GOMAXPROCS, read at each
// burst so that worker_processes takes effect.
type cpuSlots struct {
	mu   sync.Mutex
	cond sync.Cond
	busy int
}

var bursts = newCPUSlots()

func newCPUSlots() *cpuSlots {
	s := &cpuSlots{}
	s.cond.L = &s.mu
	return s
}

func (s *cpuSlots) acquire() {
	limit := runtime.GOMAXPROCS(0)
	s.mu.Lock()
	for s.busy >= limit {
		s.cond.Wait()
	}
	s.busy++
	s.mu.Unlock()
}

func (s *cpuSlots) release() {
	s.mu.Lock()
	s.busy--
	s.mu.Unlock()
	s.cond.Signal()
}

// holdInput starts a one-shot response: the body is collected until the
// handler returns. length is the declared Content-Length.
func (w *responseWriter) holdInput(length int64) {
	if length <= smallInMax {
		w.pending = inBuffers.Get().(*[]byte)
	} else if w.pending, _ = bigInBuffers.Get().(*[]byte); w.pending == nil {
		w.pending = new([]byte)
	}
	if int64(cap(*w.pending)) < length {
		*w.pending = make([]byte, 0, length)
	}
	*w.pending = (*w.pending)[:0]
}

// hold takes body bytes of a one-shot response. A body that outgrows
// oneShotMax (its handler wrote more than it declared) goes on as a
// streamed one.
func (w *responseWriter) hold(p []byte) (int, error) {
	if len(*w.pending)+len(p) > oneShotMax {
		if err := w.streamHeld(); err != nil {
			return 0, err
		}
		n, err := w.enc.Write(p)
		w.in += int64(n)
		return n, err
	}
	*w.pending = append(*w.pending, p...)
	w.in += int64(len(p))
	return len(p), nil
}

// streamHeld turns a one-shot response into a streamed one (the handler
// flushed, or wrote more than it declared): the encoder is taken now and
// fed what was held.
func (w *responseWriter) streamHeld() error {
	w.takeBrotli()
	_, err := w.enc.Write(*w.pending)
	w.releaseInput()
	return err
}

// closeOneShot compresses a held body in one burst and sends it. The
// encoder is back in the pool before any byte goes to the client. It
// returns the encoder's failure, as closeEncoder does.
func (w *responseWriter) closeOneShot() error {
	w.holdOutput = true
	err := w.burst()
	w.holdOutput = false
	if err != nil {
		// As when a streamed encoder fails to close: the output is not
		// sent. (The sink takes everything during a burst, so the encoder
		// has nothing to fail on.)
		w.dropEncoder()
		return fmt.Errorf("compress: one-shot %v encoder: %w", w.coding, err)
	}
	length := int64(len(w.out))
	if length > int64(w.outLimit) || hasTrailers(w.rw.Header()) {
		length = -1 // as if streamed: the output outgrew the buffers
	}
	w.storeBody()
	w.sendHeader(length)
	w.emitHeld()
	w.recordRatio()
	w.dropEncoder()
	return nil
}

// burst compresses the held body with an encoder taken for the occasion
// and returns the encoder.
func (w *responseWriter) burst() error {
	// Waiting for a slot is waiting for a CPU: counted as compressing.
	w.beginWork()
	defer w.endWork()
	bursts.acquire()
	defer bursts.release()
	w.takeBrotli()
	// The encoder reads the held body where it lies: no copy into its
	// history, which then does not grow to the body's size in an encoder
	// the pool keeps.
	err := w.bw.WriteLast(*w.pending)
	w.releaseInput()
	if err != nil {
		return err
	}
	w.releaseEncoder()
	return nil
}

// releaseInput gives back the buffer of a one-shot body.
func (w *responseWriter) releaseInput() {
	if w.pending == nil {
		return
	}
	*w.pending = (*w.pending)[:0]
	switch c := cap(*w.pending); {
	case c <= smallInMax:
		inBuffers.Put(w.pending)
	case c <= oneShotMax:
		bigInBuffers.Put(w.pending)
	}
	w.pending = nil
}
