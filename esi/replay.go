package esi

import (
	"bytes"
	"log/slog"
	"net/http"
)

// replay is a page's progress through a parse plan. The parser is fed
// every byte but those of the verbatim runs it skips; a run is skipped
// only when the parser holds nothing back at its start (markup whose end
// depends on the bytes after it leaves the parser waiting: the run is then
// fed to it), so the parser's state is always the one a full parse has
// at the same byte.
type replay struct {
	pl   *plan
	si   int   // the step being matched
	done int64 // bytes of it taken so far
	// fed: the current run goes to the parser rather than being skipped
	// (a run of an <esi:remove> block, or a run the parser must see).
	fed bool
	// sent: the current run went out from its stored compressed form when
	// it began (stitching); its bytes are only counted as they come.
	sent bool
	// held are the bytes of a skipped run that straddles pieces of the
	// body, kept until the bytes after it are known to be the plan's:
	// its last guardLen bytes, or the whole run where it is to be stored
	// compressed (stitching, before its stored form is made).
	held  []seg
	arena *chunk // where held bytes that were only lent are copied
	fill  int
	// guarding: the run is taken, the bytes after it are awaited; after
	// are those that came so far (copied: at most guardLen).
	guarding bool
	after    []byte
}

// feed takes the next piece of the body: replayed while it matches the
// plan, parsed from the first byte that does not.
func (p *page) feed(b []byte) {
	for len(b) > 0 && p.rp != nil {
		b = b[p.replayStep(b):]
	}
	if len(b) > 0 {
		p.parser.Feed(b)
	}
}

// replayStep matches the start of b against the plan and returns how many
// bytes it took. It ends the replay, taking nothing, where b departs from
// the plan.
func (p *page) replayStep(b []byte) int {
	rp := p.rp
	if rp.guarding {
		return p.replayGuard(b)
	}
	if rp.si == len(rp.pl.steps) {
		p.endReplay(true) // the body is longer than the plan
		return 0
	}
	s := &rp.pl.steps[rp.si]
	k := int(min(int64(len(b)), s.n-rp.done))
	if s.kind == stepMarkup {
		if !bytes.Equal(b[:k], s.data[rp.done:rp.done+int64(k)]) {
			p.endReplay(true)
			return 0
		}
		p.parser.Feed(b[:k])
		p.next(rp, int64(k))
		return k
	}
	if rp.done == 0 {
		rp.fed = s.kind == stepRemoved || !p.parser.clean()
		rp.sent = !rp.fed && p.sendStored(s)
	}
	switch {
	case rp.fed:
		// The parser sees these bytes: the output is right whatever they
		// are.
		p.parser.Feed(b[:k])
		p.next(rp, int64(k))
		return k
	case rp.sent:
		rp.done += int64(k)
	case rp.done == 0 && len(b) >= int(s.n)+len(s.guard):
		// The run and the bytes after it are in this piece: checked and
		// written from it.
		if !bytes.Equal(b[k:k+len(s.guard)], s.guard) {
			p.endReplay(true)
			return 0
		}
		p.replayRun(s, []seg{{data: b[:k], c: p.cur}})
		p.next(rp, int64(k))
		return k
	default:
		early := p.earlyText(s, b[:k])
		p.hold(b[early:k])
		rp.done += int64(k)
	}
	if rp.done == s.n {
		rp.guarding = true
		if len(s.guard) == 0 {
			p.replayGuard(nil)
		}
	}
	return k
}

// sendStored writes the run s from its stored form in the page's coding,
// when the page is stitched and that form is made, as the run begins:
// the plan is the stored body's own (keyed on its identity), so the run's
// bytes are not needed. It reports whether it did.
func (p *page) sendStored(s *step) bool {
	if p.stitch == nil || s.run.form(p.stitch.coding) == nil {
		return false
	}
	p.parser.skip(s.n)
	if !p.skipping() {
		_ = p.dst.stored(s) // a write error is kept by the output
	}
	return true
}

// earlyText writes the start of b, the next bytes of the plain run s,
// before the run's guard has come, and returns how many bytes it wrote:
// those more than guardLen bytes before the run's end, whose parse the
// bytes after the run cannot change. A page that departs from the plan at
// the guard is parsed from the run's last guardLen bytes, which are held.
// A run that is to be stored compressed (stitching) is held whole, for
// its stored form is made from all of it.
func (p *page) earlyText(s *step, b []byte) int {
	if p.stitch != nil {
		return 0
	}
	n := int(min(int64(len(b)), s.n-guardLen-p.rp.done))
	if n <= 0 {
		return 0
	}
	p.writeRun([]seg{{data: b[:n], c: p.cur}})
	return n
}

// replayGuard takes the bytes after a taken run, until there are as many
// as the plan's guard: then the run is written, unless it went out
// already, and those bytes replayed as the start of what follows it.
func (p *page) replayGuard(b []byte) int {
	rp := p.rp
	s := &rp.pl.steps[rp.si]
	k := min(len(b), len(s.guard)-len(rp.after))
	rp.after = append(rp.after, b[:k]...)
	if !bytes.Equal(rp.after, s.guard[:len(rp.after)]) {
		p.endReplay(true)
		return k
	}
	if len(rp.after) < len(s.guard) {
		return k
	}
	if !rp.sent {
		p.replayRun(s, rp.held)
		rp.releaseHeld()
	}
	rp.guarding = false
	p.next(rp, 0)
	after := rp.after
	rp.after = nil
	cur := p.cur
	p.cur = nil // after is the replay's own copy
	p.feed(after)
	p.cur = cur
	return k
}

// next advances past n bytes of the current step.
func (p *page) next(rp *replay, n int64) {
	rp.done += n
	if rp.done == rp.pl.steps[rp.si].n {
		rp.si++
		rp.done, rp.sent = 0, false
	}
}

// replayRun writes the run s, or what is left of it to write, whose bytes
// are parts, as a full parse would have: as text events. The parser skips
// them without scanning. A stitched page writes the run from its stored
// compressed form instead, made from parts the first time: it wrote
// nothing of the run before (earlyText), and parts are the whole run.
func (p *page) replayRun(s *step, parts []seg) {
	if p.stitch == nil || !p.replayStored(s, parts) {
		p.writeRun(parts)
	}
}

// replayStored writes the run s of a stitched page from its stored form,
// made from parts if it is not yet, and reports whether it did: the zone
// may have no room to keep it, and the run then goes out as text, which
// the stitcher compresses live. A run in a branch not taken goes the same
// way, to be dropped as its text events are.
func (p *page) replayStored(s *step, parts []seg) bool {
	if p.skipping() {
		return false
	}
	pl := p.rp.pl
	if !storedForm(s, p.stitch.coding, p.stitch.level, parts, func(n int64) bool { return pl.store.grow(pl, n) }) {
		return false
	}
	p.parser.skip(s.n)
	_ = p.dst.stored(s) // a write error is kept by the output
	return true
}

// writeRun writes parts, the next bytes of a run, as text events, and
// moves the parser past them.
func (p *page) writeRun(parts []seg) {
	off := p.parser.off
	for _, part := range parts {
		p.parser.skip(int64(len(part.data)))
	}
	cur := p.cur
	for _, part := range parts {
		p.cur = part.c
		ev := Event{Kind: KindText, Off: off, Len: len(part.data), Data: part.data}
		p.event(&ev)
		off += int64(len(part.data))
	}
	p.cur = cur
}

// hold keeps b, part of a run whose guard is awaited: by reference when it lies in
// a chunk the page owns, else copied.
func (p *page) hold(b []byte) {
	rp := p.rp
	if p.cur != nil {
		p.cur.ref()
		rp.held = append(rp.held, seg{data: b, c: p.cur})
		return
	}
	for len(b) > 0 {
		if rp.arena == nil || rp.fill == len(rp.arena.buf) {
			if rp.arena != nil {
				rp.arena.release()
			}
			rp.arena, rp.fill = p.h.bufs.get(), 0
		}
		n := copy(rp.arena.buf[rp.fill:], b)
		rp.arena.ref()
		rp.held = append(rp.held, seg{data: rp.arena.buf[rp.fill : rp.fill+n], c: rp.arena})
		rp.fill += n
		b = b[n:]
	}
}

func (rp *replay) releaseHeld() {
	for i := range rp.held {
		rp.held[i].release()
	}
	rp.held = rp.held[:0]
}

// endReplay stops replaying. mismatch says the body departed from the
// plan, which is dropped from the store. What the replay took and did not
// hand on (a run awaiting its guard, the bytes after it) goes to the
// parser, which parses the rest of the body. A run that went out from its
// stored form before the body departed cannot be taken back: that cannot
// happen to a plan keyed on its body's identity, unless the store or the
// plan is broken, and the response is then cut, so that the client sees a
// broken transfer rather than a wrong page.
func (p *page) endReplay(mismatch bool) {
	rp := p.rp
	p.rp = nil
	if mismatch {
		rp.pl.store.drop(rp.pl)
		if rp.sent {
			p.h.log.LogAttrs(p.ctx, slog.LevelError, "esi: the stored page differs from its parse plan after a run was sent from it, response cut",
				slog.String("uri", p.req.URL.RequestURI()), slog.Int64("offset", p.parser.off))
			rp.release()
			panic(http.ErrAbortHandler)
		}
		p.h.log.LogAttrs(p.ctx, slog.LevelInfo, "esi: the page differs from its parse plan, parsed instead from the first byte that differs",
			slog.String("uri", p.req.URL.RequestURI()), slog.Int64("offset", p.parser.off))
	}
	cur := p.cur
	for _, s := range rp.held {
		p.cur = s.c
		p.parser.Feed(s.data)
	}
	p.cur = nil
	p.parser.Feed(rp.after)
	p.cur = cur
	rp.release()
}

// release gives back the buffers a replay holds.
func (rp *replay) release() {
	rp.releaseHeld()
	if rp.arena != nil {
		rp.arena.release()
		rp.arena = nil
	}
}

// finishReplay settles a replay at the end of the body: a body that ended
// before the plan did departed from it.
func (p *page) finishReplay() {
	if p.rp == nil {
		return
	}
	p.endReplay(p.rp.guarding || p.rp.si < len(p.rp.pl.steps))
}
