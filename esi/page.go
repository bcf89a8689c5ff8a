package esi

import (
	"context"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// page processes one document: the client's page or, nested, a fragment.
type page struct {
	h        *handler
	req      *http.Request // the page's request: includes resolve against it
	ctx      context.Context
	cancel   context.CancelFunc
	depth    int
	includes *atomic.Int32 // shared by every page of one client request
	out      *output
	parser   Parser
	wg       sync.WaitGroup // fragment goroutines

	cur       *chunk      // the owned chunk being parsed, nil while parsing lent bytes
	overLimit atomic.Bool // the include limit was reported for this page

	vars   variables // the request's ESI variables
	dst    *output   // where content goes: out, or an attempt's or except's own
	blocks []frame   // the open choose and try blocks and their parts

	rp     *replay       // the parse plan being replayed, nil when parsing
	rec    *planRecorder // the parse being recorded as a plan, or nil
	stitch *stitcher     // what out writes to when the page is stitched, or nil
}

// usePlan sets the page up to replay the plan of key from store, or to
// record one when there is none.
func (p *page) usePlan(store *PlanStore, key planKey) {
	pl := store.get(key)
	if pl == nil && p.h.opts.PlanShare != nil {
		pl = p.loadShared(store, key)
	}
	if pl != nil && pl.none {
		return
	}
	if pl != nil {
		store.replayed()
		p.rp = &replay{pl: pl}
		p.h.log.LogAttrs(p.ctx, slog.LevelDebug, "esi: replaying the parse plan of the page",
			slog.String("uri", p.req.URL.RequestURI()), slog.Int("steps", len(pl.steps)))
		return
	}
	p.rec = &planRecorder{store: store, key: key}
	p.parser.emit = p.record
}

// record is the parser's emit while a plan is being recorded.
func (p *page) record(ev *Event) {
	p.rec.add(ev)
	p.event(ev)
}

func newPage(ctx context.Context, h *handler, req *http.Request, depth int, includes *atomic.Int32, out *output) *page {
	p := &page{h: h, req: req, depth: depth, includes: includes, out: out, dst: out}
	p.vars.r = req
	p.ctx, p.cancel = context.WithCancel(ctx)
	p.parser.emit = p.event
	return p
}

// write parses bytes that are only lent (an http.ResponseWriter's Write).
func (p *page) write(b []byte) (int, error) {
	p.cur = nil
	p.feed(b)
	if err := p.out.failed(); err != nil {
		return 0, err
	}
	return len(b), nil
}

// writeBuffers parses the slices of bufs, which are only lent, and
// consumes them.
func (p *page) writeBuffers(bufs *net.Buffers) (int64, error) {
	var total int64
	for len(*bufs) > 0 {
		b := (*bufs)[0]
		*bufs = (*bufs)[1:]
		n, err := p.write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// readFrom parses what r yields, read into chunks the page owns, so that
// text waiting behind a pending fragment is kept without a copy. A chunk is
// filled by successive reads before the next is taken.
func (p *page) readFrom(r io.Reader) (int64, error) {
	var total int64
	c, fill := p.h.bufs.get(), 0
	defer func() { c.release() }()
	for {
		if fill == len(c.buf) {
			c.release()
			c, fill = p.h.bufs.get(), 0
		}
		n, err := r.Read(c.buf[fill:])
		if n > 0 {
			total += int64(n)
			p.cur = c
			p.feed(c.buf[fill : fill+n])
			p.cur = nil
			fill += n
		}
		if oerr := p.out.failed(); oerr != nil {
			return total, oerr
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// event carries out one parser event.
func (p *page) event(ev *Event) {
	if ev.Warning != "" {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: "+ev.Warning,
			slog.String("uri", p.req.URL.RequestURI()), slog.Int64("offset", ev.Off))
	}
	switch ev.Kind {
	case KindOpen:
		p.open(ev)
		return
	case KindClose:
		p.close()
		return
	}
	if p.skipping() {
		return // content of a branch not taken
	}
	switch ev.Kind {
	case KindText, KindPass, KindRemoved:
		p.text(ev)
	case KindVar:
		p.variable(ev)
	case KindInclude:
		p.include(ev)
	case KindRemoveOpen:
		p.dst.holdRemove()
		p.text(ev)
	case KindRemoveClose:
		p.dst.dropRemove()
	case KindRemoveUnclosed:
		p.dst.keepRemove()
	}
}

func (p *page) text(ev *Event) {
	c := p.cur
	if ev.Stable {
		c = nil
	}
	// A write error is kept by the output and reported by write/readFrom.
	_ = p.dst.text(ev.Data, c, ev.Stable)
}

// variable writes the value of a $(...) reference, escaped for HTML.
func (p *page) variable(ev *Event) {
	ref := parseVarRef(ev.Data)
	if !knownVariable(ref.name) {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: unknown variable, its value is empty",
			slog.String("uri", p.req.URL.RequestURI()), slog.String("variable", ref.name))
	}
	if v := p.vars.value(ref); v != "" {
		_ = p.dst.text([]byte(html.EscapeString(v)), nil, true)
	}
}

// finish ends the document: it settles what the parser holds, waits for
// every fragment and writes the rest.
func (p *page) finish() error {
	p.cur = nil
	p.finishReplay()
	if p.rec != nil && !p.parser.clean() {
		p.rec.failed = true // the end of this parse is not replayed
	}
	p.parser.Close()
	err := p.out.wait()
	if p.rec != nil && err == nil {
		if pl := p.rec.finish(p.parser.off); pl != nil {
			p.h.log.LogAttrs(p.ctx, slog.LevelDebug, "esi: parse plan of the page recorded",
				slog.String("uri", p.req.URL.RequestURI()), slog.Int("steps", len(pl.steps)))
			if p.h.opts.PlanShare != nil {
				p.h.saveShared(p.ctx, pl)
			}
		}
	}
	if err != nil {
		p.cancel() // nobody will read what pending fragments bring
	}
	p.wg.Wait()
	p.out.discard()
	p.cancel()
	return err
}

// abort stops a page whose producer failed: fragments are cancelled and
// nothing more is written.
func (p *page) abort(err error) {
	if p.rp != nil {
		p.rp.release()
		p.rp = nil
	}
	p.out.mu.Lock()
	p.out.setErr(err)
	p.out.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	p.out.mu.Lock()
	for p.out.writing {
		p.out.cond.Wait()
	}
	p.out.mu.Unlock()
	p.out.discard()
}
