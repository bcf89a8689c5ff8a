package esi

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// output keeps a page in document order while fragments complete in any
// order. It is a queue of text segments and fragment slots. Whoever finds
// the head of the queue ready (the parser appending text, a fragment
// completing) takes the writer role and writes everything that is ready, so
// each part goes out as soon as it and everything before it are done.
//
// Text that arrives while nothing is pending is written at once from the
// slice it came in, so a page with no pending fragment is never copied. Text
// queued behind a pending fragment is kept by reference when it lies in a
// buffer the page owns, and copied once when it was only lent (a Write).
type output struct {
	mu   sync.Mutex
	cond sync.Cond
	w    io.Writer
	// flush pushes written bytes to the client; nil when w cannot flush.
	flush func() error
	bufs  *chunkPool

	segs []seg
	head int // segs[:head] are written (and zeroed)
	hold int // index of the slot standing for an open <esi:remove>, or -1

	// collect: the output has no writer; it gathers its content (an
	// <esi:try>'s attempt or except) for gather to hand over. Only the
	// parser going on moves a collector, so it cannot wait for room as an
	// output does: past maxHeld it gives its content up (over) and calls
	// overflow once, and gather then hands nothing over.
	collect  bool
	over     bool
	overflow func()

	writing     bool // a goroutine holds the writer role
	dirty       bool // written since the last flush (or headers not sent)
	flushWanted bool // the handler upstream asked for a flush
	eager       bool // a fragment completed: flush once it is written
	err         error

	arena *chunk // where lent text is copied
	fill  int

	// held counts the bytes of text queued behind a pending fragment,
	// and slotCost for each fragment's place in the queue; past maxHeld
	// (when not 0) the parser waits for the queue to move, which pauses
	// the reading of the page (Options.MaxHeldSize).
	held, maxHeld int
}

// slotCost is what a fragment's place in the queue counts towards held:
// about the memory an include keeps there (its slot, its queue entry,
// what fills it), so that a page of includes behind a pending fragment,
// which costs several times its bytes, is bounded as its text is.
const slotCost = 128

// newOutput writes to w; maxHeld bounds the text held behind pending
// fragments (0: no bound).
func newOutput(w io.Writer, flush func() error, bufs *chunkPool, maxHeld int) *output {
	o := &output{w: w, flush: flush, bufs: bufs, hold: -1, dirty: true, maxHeld: maxHeld}
	o.cond.L = &o.mu
	return o
}

// newCollector returns an output that writes nothing: its text and
// fragments are kept, by reference where they can be, until gather. Past
// maxHeld bytes of text (0: no bound) it drops what it holds and calls
// overflow.
func newCollector(bufs *chunkPool, maxHeld int, overflow func()) *output {
	o := newOutput(nil, nil, bufs, maxHeld)
	o.collect, o.overflow = true, overflow
	return o
}

// full reports, for a collector, whether n more bytes are beyond its
// bound; the first time, it gives up what it holds. o.mu is held.
func (o *output) full(n int) bool {
	if !o.collect || o.maxHeld <= 0 {
		return false
	}
	if o.over {
		return true
	}
	if o.held+n <= o.maxHeld {
		return false
	}
	o.over = true
	// The text goes now, so that the memory is free while the page goes
	// on; the slots stay until gather, as fragments still complete into
	// them (each bounded on its own).
	kept := o.segs[:0]
	o.held = 0
	for i := range o.segs {
		if o.segs[i].f == nil {
			o.segs[i].release()
			continue
		}
		kept = append(kept, o.segs[i])
		o.held += heldBy(&o.segs[i])
	}
	clear(o.segs[len(kept):])
	o.segs = kept
	if o.overflow != nil {
		o.overflow()
	}
	return true
}

// gather waits until every fragment of a collector is in and hands its
// content over as a list of text segments, which the caller then owns.
// Nothing may be appended any more.
func (o *output) gather() []seg {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := 0; i < len(o.segs); {
		if f := o.segs[i].f; f != nil && !f.done {
			o.cond.Wait()
			continue
		}
		i++
	}
	if o.over {
		for i := range o.segs {
			o.segs[i].release()
		}
		clear(o.segs)
		o.segs = o.segs[:0]
		return nil
	}
	var out []seg
	for _, s := range o.segs {
		if s.f == nil {
			out = append(out, s)
			continue
		}
		out = append(out, s.f.parts...)
	}
	clear(o.segs)
	o.segs = o.segs[:0]
	return out
}

// text appends document text. c is the chunk that data lies in when the
// page owns it; stable data (parser memory) needs neither chunk nor copy;
// other data is only lent and is copied if it cannot be written now.
func (o *output) text(data []byte, c *chunk, stable bool) error {
	if len(data) == 0 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	if o.writable() {
		return o.writeNow(seg{data: data})
	}
	if o.full(len(data)) {
		return nil
	}
	switch {
	case c != nil:
		c.ref()
		o.segs = append(o.segs, seg{data: data, c: c})
	case stable:
		o.segs = append(o.segs, seg{data: data})
	default:
		o.retain(data)
	}
	o.held += len(data)
	o.waitHeld()
	return o.err
}

// waitHeld waits while more than maxHeld is held and the queue can move
// without the parser: not while an <esi:remove> is held or into a
// collector, which only the parser, going on, moves. o.mu is held.
func (o *output) waitHeld() {
	for o.maxHeld > 0 && o.held > o.maxHeld && o.err == nil && o.hold < 0 && !o.collect {
		o.cond.Wait()
	}
}

// heldBy is what a queued segment counts towards held. A stored run
// counts the text it stands for, though it holds no copy of it: a try's
// bound (a collector's) is then decided alike whether the page's runs
// come as text (a parse) or stored (a stitched replay).
func heldBy(s *seg) int {
	switch {
	case s.f != nil:
		return slotCost + s.f.held
	case s.st != nil:
		return int(s.st.n)
	}
	return len(s.data)
}

// stored appends a verbatim run that goes out in its stored compressed
// form: the output writes to a stitcher.
func (o *output) stored(st *step) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil {
		return o.err
	}
	sg := seg{st: st}
	if o.writable() {
		return o.writeNow(sg)
	}
	if o.full(heldBy(&sg)) {
		return nil
	}
	o.segs = append(o.segs, sg)
	o.held += heldBy(&sg)
	return nil
}

// writeSeg writes one text segment: its bytes, or its stored form.
// writable says whether a segment may be written at once: nothing waits
// before it and no write is under way. o.mu is held.
func (o *output) writable() bool {
	return o.head == len(o.segs) && !o.writing && !o.collect
}

// writeNow writes s without holding o.mu (the client may be slow), then
// sends what queued meanwhile. o.mu is held on entry and on return.
func (o *output) writeNow(s seg) error {
	o.writing = true
	o.mu.Unlock()
	err := o.writeSeg(s)
	o.mu.Lock()
	o.dirty = true
	o.setErr(err)
	o.writing = false
	o.pump()
	return o.err
}

func (o *output) writeSeg(s seg) error {
	if s.st != nil {
		return o.w.(*stitcher).stored(s.st)
	}
	_, err := o.w.Write(s.data)
	return err
}

// retain copies lent text into the arena, one segment per chunk touched.
func (o *output) retain(data []byte) {
	for len(data) > 0 {
		if o.arena == nil || o.fill == len(o.arena.buf) {
			if o.arena != nil {
				o.arena.release()
			}
			o.arena, o.fill = o.bufs.get(), 0
		}
		n := copy(o.arena.buf[o.fill:], data)
		o.arena.ref()
		o.segs = append(o.segs, seg{data: o.arena.buf[o.fill : o.fill+n], c: o.arena})
		o.fill += n
		data = data[n:]
	}
}

// slot appends the place of a fragment, once the queue holds no more than
// maxHeld, and returns it. It waits before the slot is queued: only the
// caller, once it has the slot, starts what fills it, so a wait that
// counted it would wait for itself (any include, with a maxHeld under
// slotCost).
func (o *output) slot() *slot {
	o.mu.Lock()
	o.waitHeld()
	s := o.pushSlot()
	o.mu.Unlock()
	return s
}

func (o *output) pushSlot() *slot {
	s := &slot{}
	o.segs = append(o.segs, seg{f: s})
	o.held += slotCost
	// The text before a first pending fragment is flushed now: nothing else
	// would push it to the client until the fragment arrives.
	o.pump()
	return s
}

// complete fills a slot and writes whatever became ready. What a fragment
// releases is flushed at once: the handler writing the page may be waiting
// on its upstream, and nothing else would push these bytes to the client.
func (o *output) complete(s *slot, parts []seg) {
	o.mu.Lock()
	o.settle(s, parts)
	o.mu.Unlock()
}

// completeHeld fills the slot of a try with the text it kept, which then
// counts towards held until written, as text queued in its place would:
// the try's bound applies to one try, and a page of tries behind a
// pending fragment must pause the parser as a page of text does.
func (o *output) completeHeld(s *slot, parts []seg) {
	n := 0
	for i := range parts {
		n += heldBy(&parts[i])
	}
	o.mu.Lock()
	o.charge(s, n)
	if o.over {
		for i := range parts {
			parts[i].release()
		}
		parts = nil
		o.charge(s, 0)
	}
	o.settle(s, parts)
	o.mu.Unlock()
}

// reserve counts, for the slot of a try the parser has just closed, what
// its attempt and except hold, until completeHeld counts what it keeps:
// the parser's next step then waits for room as it would behind that
// much text, while the try is settled in the background.
func (o *output) reserve(s *slot, attempt, except *output) {
	n := attempt.heldNow() + except.heldNow()
	o.mu.Lock()
	o.charge(s, n)
	o.mu.Unlock()
}

func (o *output) heldNow() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.held
}

// charge counts n bytes for s in held, in place of what it counted
// before. o.mu is held.
func (o *output) charge(s *slot, n int) {
	o.held += n - s.held
	s.held = n
	o.full(0)
}

// settle completes s with parts and writes what became ready. o.mu is held.
func (o *output) settle(s *slot, parts []seg) {
	s.parts, s.done = parts, true
	o.eager = true
	o.pump()
}

// holdRemove starts holding an <esi:remove> block: the text after it waits
// behind an unfinished slot until the block is decided.
func (o *output) holdRemove() {
	o.mu.Lock()
	o.pushSlot()
	// Only the parser appends, and a pending slot is never passed, so the
	// index stays valid until the block is decided.
	o.hold = len(o.segs) - 1
	o.mu.Unlock()
}

// dropRemove drops the held block: its slot and everything after it.
func (o *output) dropRemove() {
	o.mu.Lock()
	if o.hold >= 0 {
		for i := o.hold; i < len(o.segs); i++ {
			o.held -= heldBy(&o.segs[i])
			o.segs[i].release()
		}
		o.segs = o.segs[:o.hold]
		o.hold = -1
		o.pump()
	}
	o.mu.Unlock()
}

// keepRemove gives the held block up as unclosed: it is written as it was.
func (o *output) keepRemove() {
	o.mu.Lock()
	if o.hold >= 0 {
		o.segs[o.hold].f.done = true
		o.hold = -1
		o.pump()
	}
	o.mu.Unlock()
}

// requestFlush is Flush from the handler that produces the page.
func (o *output) requestFlush() {
	o.mu.Lock()
	o.flushWanted = true
	o.pump()
	o.mu.Unlock()
}

func (o *output) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

func (o *output) setErr(err error) {
	if err != nil && o.err == nil {
		o.err = err
	}
}

// pump takes the writer role, unless someone holds it, and writes every
// ready segment at the head of the queue. It flushes when it stops at a
// pending fragment, when asked to (flushWanted: kept until the queue has
// drained, so a flush is not lost behind a fragment), and after a fragment
// completed (eager). o.mu is held on entry and exit and released while
// writing.
func (o *output) pump() {
	if o.collect {
		o.cond.Broadcast() // a fragment is in: gather looks again
		return
	}
	if o.writing {
		return
	}
	o.writing = true
	for o.err == nil {
		start := o.head
		for o.head < len(o.segs) && (o.segs[o.head].f == nil || o.segs[o.head].f.done) {
			o.head++
		}
		if o.head > start {
			batch := o.segs[start:o.head]
			o.mu.Unlock()
			err := o.writeBatch(batch)
			o.mu.Lock()
			// Released under the lock: the parser may be copying the array
			// these entries are in while it appends.
			for i := range batch {
				o.held -= heldBy(&batch[i])
				batch[i].release()
			}
			o.dirty = true
			o.setErr(err)
			if o.head == len(o.segs) {
				o.segs, o.head = o.segs[:0], 0
			}
			continue
		}
		stalled := o.head < len(o.segs)
		if o.flush == nil || !o.dirty || !(stalled || o.flushWanted || o.eager) {
			break
		}
		o.dirty, o.eager = false, false
		if !stalled {
			o.flushWanted = false
		}
		o.mu.Unlock()
		err := o.flush()
		o.mu.Lock()
		if errors.Is(err, http.ErrNotSupported) {
			o.flush, err = nil, nil // asked once, not on every stall
		}
		o.setErr(err)
	}
	o.writing = false
	o.cond.Broadcast()
}

// writeBatch writes ready segments, which nobody changes while the writer
// role is held, up to the first error.
func (o *output) writeBatch(batch []seg) error {
	for _, s := range batch {
		if s.f == nil {
			if err := o.writeSeg(s); err != nil {
				return err
			}
			continue
		}
		for _, p := range s.f.parts {
			if err := o.writeSeg(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// wait writes everything and returns when the queue is empty, or when
// writing failed and no one is writing any more.
func (o *output) wait() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pump()
	for o.writing || (o.err == nil && o.head < len(o.segs)) {
		o.cond.Wait()
	}
	return o.err
}

// discard releases what is left once no fragment can complete any more:
// after a failed write, the queue's unwritten buffers; always, the arena.
func (o *output) discard() {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := o.head; i < len(o.segs); i++ {
		o.segs[i].release()
	}
	o.segs, o.head, o.held = o.segs[:0], 0, 0
	if o.arena != nil {
		o.arena.release()
		o.arena = nil
	}
}
