package ssi

import "sync"

// DefaultIncludeBuffer bounds the bytes of one include held in memory
// until its place in the page is written (Options.IncludeBuffer).
const DefaultIncludeBuffer = 64 << 10

// DefaultMaxIncludes is the default Options.MaxIncludes. The depth of
// subrequests alone does not bound a page that includes itself twice
// or more: every level multiplies the includes, all in flight at once
// (a page of four self-includes, ten levels deep, grew mosaic past 2 GB
// in 25 s). NGINX's own bound, a main request's 64535 references, is
// as far off; 4096 includes is far more than a real page's and holds a
// request to tens of megabytes.
const DefaultMaxIncludes = 4096

// incBody is the body of an include that runs beside the page: the
// goroutine fetching it appends, and the document takes what has come, in
// page order. It holds at most limit bytes; beyond, the fetch waits until
// the document has written them out, so a page that includes a large
// response holds a bounded part of it (NGINX holds what its proxy buffers
// take and stops reading the upstream), and the include at the head of
// the page streams to the client as it arrives.
type incBody struct {
	mu        sync.Mutex
	room      sync.Cond // on mu: the document took the bytes, or gave up
	buf       []byte
	spare     []byte // the buffer the document last wrote, for reuse
	writing   int    // bytes taken by the document and not yet written
	limit     int
	done      bool
	abandoned bool // the document writes no more: stop reading
	wake      chan<- struct{}
}

func newIncBody(limit int, wake chan<- struct{}) *incBody {
	b := &incBody{limit: limit, wake: wake}
	b.room.L = &b.mu
	return b
}

// write appends p, waiting while the buffer is full; it returns false once
// the document has given the include up.
func (b *incBody) write(p []byte) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(p) > 0 {
		for len(b.buf)+b.writing >= b.limit && !b.abandoned {
			b.room.Wait()
		}
		if b.abandoned {
			return false
		}
		n := min(len(p), b.limit-len(b.buf)-b.writing)
		b.buf = append(b.buf, p[:n]...)
		p = p[n:]
		b.poke()
	}
	return !b.abandoned
}

// finish marks the body complete.
func (b *incBody) finish() {
	b.mu.Lock()
	b.done = true
	b.poke()
	b.mu.Unlock()
}

// poke tells the document that something changed, without waiting: the
// channel holds one wake-up, which is all a waiting document needs.
func (b *incBody) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// take hands the bytes that have come to the document, which gives the
// slice back with release once it has written them (they count against
// the limit until then); done says the body is complete and nothing is
// left.
func (b *incBody) take() (p []byte, done bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, b.buf = b.buf, b.spare[:0]
	b.spare = nil
	b.writing = len(p)
	return p, b.done && len(p) == 0
}

// release returns a slice from take, written: its bytes no longer count
// against the limit, and it takes the next ones.
func (b *incBody) release(p []byte) {
	b.mu.Lock()
	b.writing = 0
	if b.spare == nil {
		b.spare = p[:0]
	}
	b.room.Broadcast()
	b.mu.Unlock()
}

// abandon makes the fetch stop: the document writes nothing more.
func (b *incBody) abandon() {
	b.mu.Lock()
	b.abandoned = true
	b.buf, b.writing = nil, 0
	b.room.Broadcast()
	b.mu.Unlock()
}
