package esi

import (
	"log/slog"
	"sync"
	"sync/atomic"
)

// frame is an open block of a page: a choose or a try, or one of their
// parts. The parser guarantees proper nesting: when and otherwise sit in a
// choose, attempt and except in a try, and every block is closed.
type frame struct {
	elem Elem
	// skip: the content of this block is dropped (a branch not taken, the
	// text of a choose or try outside its parts, anything inside a block
	// that is itself dropped).
	skip bool
	// outer: for a choose or a try, whether the block as a whole is
	// dropped; its parts then are too.
	outer  bool
	chosen bool      // choose: a branch was taken
	try    *tryBlock // try, attempt, except: the try's state, nil when dropped
	prev   *output   // attempt, except: where content went before
}

// tryBlock is an <esi:try> being assembled. Its attempt and its except are
// each collected in an output of their own (by reference, not copied);
// when the try is closed and the attempt's fragments are all in, one of
// the two fills the try's slot.
type tryBlock struct {
	parent          *output
	s               *slot
	attempt, except *output
	failed          atomic.Bool // an include in the attempt failed

	mu        sync.Mutex
	decided   bool // useExcept is known
	useExcept bool
	// waiting: what the except holds (its includes, and the settling of
	// the tries in it) waits here for the decision, in document order.
	waiting []func(used bool)
}

// afterDecision runs f with whether t's except is used, once that is
// known.
func (t *tryBlock) afterDecision(f func(used bool)) {
	t.mu.Lock()
	if !t.decided {
		t.waiting = append(t.waiting, f)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	f(t.useExcept)
}

// decide makes known whether t's except is used, and runs what waited for
// it.
func (t *tryBlock) decide(useExcept bool) {
	t.mu.Lock()
	t.decided, t.useExcept = true, useExcept
	waiting := t.waiting
	t.waiting = nil
	t.mu.Unlock()
	for _, f := range waiting {
		f(useExcept)
	}
}

func (p *page) skipping() bool {
	return len(p.blocks) > 0 && p.blocks[len(p.blocks)-1].skip
}

// open enters a block.
func (p *page) open(ev *Event) {
	dropped := p.skipping()
	f := frame{elem: ev.Elem, skip: true, outer: dropped}
	var parent *frame
	if len(p.blocks) > 0 {
		parent = &p.blocks[len(p.blocks)-1]
	}
	switch ev.Elem {
	case ElemChoose:
	case ElemWhen:
		f.skip = parent.outer || parent.chosen || !p.test(ev)
		parent.chosen = parent.chosen || !f.skip
	case ElemOtherwise:
		f.skip = parent.outer || parent.chosen
		parent.chosen = true
	case ElemTry:
		if !dropped {
			f.try = p.newTry()
		}
	case ElemAttempt, ElemExcept:
		f.skip, f.try = parent.outer, parent.try
		if f.try != nil {
			f.prev = p.dst
			p.dst = f.try.attempt
			if ev.Elem == ElemExcept {
				p.dst = f.try.except
			}
		}
	}
	p.blocks = append(p.blocks, f)
}

// close leaves the innermost block.
func (p *page) close() {
	f := p.blocks[len(p.blocks)-1]
	p.blocks = p.blocks[:len(p.blocks)-1]
	switch {
	case f.prev != nil:
		p.dst = f.prev
	case f.elem == ElemTry && f.try != nil:
		t := f.try
		t.parent.reserve(t.s, t.attempt, t.except)
		settle := func(live bool) {
			if !live {
				p.settleTry(t, false)
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.settleTry(t, true)
			}()
		}
		// A try in an except is settled once that except is known to be
		// used, so that nothing waits on a goroutine for it meanwhile.
		if _, gate := p.tryContext(); gate != nil {
			gate.afterDecision(settle)
			return
		}
		settle(true)
	}
}

// test evaluates an <esi:when> test; a test that does not parse is false.
func (p *page) test(ev *Event) bool {
	ok, err := evalTest(ev.Test, func(ref []byte) string { return p.vars.value(parseVarRef(ref)) })
	if err != nil {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: malformed test of <esi:when>, taken as false",
			slog.String("uri", p.req.URL.RequestURI()), slog.Int64("offset", ev.Off),
			slog.String("test", ev.Test), slog.Any("error", err))
	}
	return ok
}

// newTry opens a try. Its attempt and its except are each held whole until
// the try is settled, bounded by esi_max_held_size: an attempt that grows
// past it fails (its except is used), an except that does is dropped.
func (p *page) newTry() *tryBlock {
	t := &tryBlock{parent: p.dst, s: p.dst.slot()}
	bound := p.h.opts.MaxHeldSize
	t.attempt = newCollector(&p.h.bufs, bound, func() {
		t.failed.Store(true)
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: <esi:attempt> larger than esi_max_held_size, failed",
			slog.String("uri", p.req.URL.RequestURI()), slog.Int("max_held_size", bound))
	})
	t.except = newCollector(&p.h.bufs, bound, func() {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: <esi:except> larger than esi_max_held_size, dropped",
			slog.String("uri", p.req.URL.RequestURI()), slog.Int("max_held_size", bound))
	})
	return t
}

// tryContext returns, for an include or a try at the current place, the
// try whose attempt its failure fails (the innermost attempt around it)
// and the try of the innermost except around it: it is carried out only
// if that except is used. A try in an except is itself settled only once
// its except is used, so that this is true of every except around it.
func (p *page) tryContext() (fails, gate *tryBlock) {
	for i := len(p.blocks) - 1; i >= 0; i-- {
		f := p.blocks[i]
		switch {
		case f.try == nil:
		case f.elem == ElemAttempt && fails == nil:
			fails = f.try
		case f.elem == ElemExcept && gate == nil:
			gate = f.try
		}
	}
	return fails, gate
}

// settleTry waits for the attempt's fragments, decides, and fills the try's
// slot with the attempt or, when one of its includes failed, the except.
// A try that is not live stands in an except that is not used: it writes
// nothing, and nothing of its except is fetched.
func (p *page) settleTry(t *tryBlock, live bool) {
	keep := t.attempt.gather()
	useExcept := live && t.failed.Load()
	t.decide(useExcept)
	drop := t.except.gather()
	if useExcept {
		keep, drop = drop, keep
		p.h.log.LogAttrs(p.ctx, slog.LevelInfo, "esi: an include of <esi:attempt> failed, <esi:except> used instead",
			slog.String("uri", p.req.URL.RequestURI()))
	}
	if !live {
		drop, keep = append(drop, keep...), nil
	}
	for i := range drop {
		drop[i].release()
	}
	t.attempt.discard()
	t.except.discard()
	t.parent.completeHeld(t.s, keep)
}
