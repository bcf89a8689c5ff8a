package esi

import (
	"log/slog"
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
	failed          atomic.Bool   // an include in the attempt failed
	decided         chan struct{} // closed once useExcept is known
	useExcept       bool
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
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.settleTry(f.try)
		}()
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

func (p *page) newTry() *tryBlock {
	return &tryBlock{
		parent:  p.dst,
		s:       p.dst.slot(),
		attempt: newCollector(&p.h.bufs),
		except:  newCollector(&p.h.bufs),
		decided: make(chan struct{}),
	}
}

// tryContext returns, for an include at the current place, the try whose
// attempt its failure fails (the innermost attempt around it) and the
// tries whose except blocks hold it, outermost first: it is carried out
// only if each of those excepts is used.
func (p *page) tryContext() (fails *tryBlock, gates []*tryBlock) {
	for i := len(p.blocks) - 1; i >= 0; i-- {
		f := p.blocks[i]
		switch {
		case f.try == nil:
		case f.elem == ElemAttempt && fails == nil:
			fails = f.try
		case f.elem == ElemExcept:
			gates = append([]*tryBlock{f.try}, gates...)
		}
	}
	return fails, gates
}

// exceptUsed waits for each try to be decided and reports whether every
// one of them uses its except block. A page that is stopped uses none.
func (p *page) exceptUsed(tries []*tryBlock) bool {
	for _, t := range tries {
		select {
		case <-t.decided:
		case <-p.ctx.Done():
			return false
		}
		if !t.useExcept {
			return false
		}
	}
	return true
}

// settleTry waits for the attempt's fragments, decides, and fills the try's
// slot with the attempt or, when one of its includes failed, the except.
func (p *page) settleTry(t *tryBlock) {
	keep := t.attempt.gather()
	t.useExcept = t.failed.Load()
	close(t.decided)
	drop := t.except.gather()
	if t.useExcept {
		keep, drop = drop, keep
		p.h.log.LogAttrs(p.ctx, slog.LevelInfo, "esi: an include of <esi:attempt> failed, <esi:except> used instead",
			slog.String("uri", p.req.URL.RequestURI()))
	}
	for i := range drop {
		drop[i].release()
	}
	t.attempt.discard()
	t.except.discard()
	t.parent.complete(t.s, keep)
}
