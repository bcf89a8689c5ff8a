package esi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/mosaic-edge/mosaic/internal/gopool"
)

// errorMarker stands where a fragment could not be fetched at all, unless
// errors are silent or the include says onerror="continue".
var errorMarker = []byte("<!-- ESI include error -->")

// fetched is a fragment request in flight or answered. The fragment
// request's context node and what it carries are kept in it: one
// allocation rather than three for each include.
type fetched struct {
	src    string
	req    *http.Request
	info   fragmentInfo
	ctx    fragmentContext
	frag   *Fragment
	err    error
	cancel context.CancelFunc
	body   boundedBody // the body as read, within esi_max_fragment_size
}

// fragmentContext is the context of a fragment request: its parent with
// the fragmentInfo under fragmentKey, as context.WithValue would make it.
type fragmentContext struct {
	context.Context
	info *fragmentInfo
}

func (c *fragmentContext) Value(key any) any {
	if key == (fragmentKey{}) {
		return c.info
	}
	return c.Context.Value(key)
}

// failed says whether alt or onerror apply: no response, or a 4xx/5xx.
func (f *fetched) failed() bool { return f.err != nil || f.frag.Status >= 400 }

func (f *fetched) close() {
	if f.frag != nil && f.frag.Body != nil {
		f.frag.Body.Close()
	}
	if f.cancel != nil {
		f.cancel()
	}
}

// incl is one <esi:include> to carry out.
type incl struct {
	src, alt string // variables substituted
	cont     bool   // onerror="continue"
	out      *output
	s        *slot
	try      *tryBlock // the try whose attempt holds the include, or nil
}

// failAttempt makes the include's failure the enclosing attempt's, unless
// onerror="continue" says a failure is nothing.
func (in incl) failAttempt() {
	if in.try != nil && !in.cont {
		in.try.failed.Store(true)
	}
}

// include handles an <esi:include>. Without alt or onerror the fragment is
// fetched in its own goroutine and the parser goes on at once. With either,
// the parser waits for the fragment's status, so that the alt fragment can
// take the failed one's place; its body is then read concurrently as usual.
// An include inside an <esi:except> waits for its try to be decided: it is
// fetched only when the except block is used.
func (p *page) include(ev *Event) {
	in := incl{cont: ev.Continue, out: p.dst}
	var refusedSrc, refusedAlt, longSrc, longAlt bool
	in.src, refusedSrc, longSrc = p.vars.substituteAttr(ev.Src)
	in.alt, refusedAlt, longAlt = p.vars.substituteAttr(ev.Alt)
	if refusedSrc || refusedAlt {
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: a variable's value in the path of an include would change its path segments: substituted as empty",
			slog.String("uri", p.req.URL.RequestURI()), slog.String("src", ev.Src), slog.String("alt", ev.Alt))
	}
	if longSrc || longAlt {
		// Left empty: an empty src fails the include (its alt tried),
		// an empty alt is none.
		p.h.log.LogAttrs(p.ctx, slog.LevelWarn, fmt.Sprintf("esi: an include's src or alt is longer than %d bytes once its variables are substituted: left empty", maxIncludeURL),
			slog.String("uri", p.req.URL.RequestURI()), slog.String("src", ev.Src), slog.String("alt", ev.Alt))
	}
	var gate *tryBlock
	in.try, gate = p.tryContext()
	in.s = in.out.slot()
	if gate == nil {
		p.run(in, false)
		return
	}
	// Queued on the try rather than waiting on a goroutine of its own: an
	// except may hold any number of includes, and esi_max_includes counts
	// only those that run.
	gate.afterDecision(func(used bool) {
		// A page that is stopped fetches nothing more.
		if !used || p.ctx.Err() != nil {
			in.out.complete(in.s, nil)
			return
		}
		p.run(in, false)
	})
}

// run carries out an include whose slot is taken; inline says it is on a
// goroutine of its own already, where it may wait.
func (p *page) run(in incl, inline bool) {
	if in.out.failed() != nil {
		in.out.complete(in.s, nil)
		return
	}
	if p.depth >= p.h.opts.MaxDepth {
		p.fail(in, fmt.Errorf("ESI nesting depth limit %d reached (esi_max_depth)", p.h.opts.MaxDepth))
		return
	}
	if n := p.includes.Add(1); n > int32(p.h.opts.MaxIncludes) {
		if !p.overLimit.CompareAndSwap(false, true) {
			in.failAttempt()
			p.complete(in) // reported once per page
			return
		}
		p.fail(in, fmt.Errorf("more than %d includes for one request (esi_max_includes)", p.h.opts.MaxIncludes))
		return
	}
	var f *fetched
	if in.alt != "" || in.cont {
		f = p.fetch(in.src)
		if f.failed() && in.alt != "" {
			p.logFailure(f, "trying alt", slog.String("alt", in.alt))
			f.close()
			f = p.fetch(in.alt)
		}
		if f.failed() && in.cont {
			p.logFailure(f, `onerror="continue": nothing written`)
			f.close()
			in.out.complete(in.s, nil)
			return
		}
	}
	if inline {
		p.fill(in, f)
		return
	}
	p.wg.Add(1)
	workers.Go(func() {
		defer p.wg.Done()
		p.fill(in, f)
	})
}

// workers run the includes of every page: a goroutine that has fetched a
// fragment has the stack for the next (internal/gopool).
var workers gopool.Pool

// fetch resolves src and performs the fragment request up to its status.
func (p *page) fetch(src string) *fetched {
	f := &fetched{src: src}
	u, err := resolve(p.req, src)
	if err != nil {
		f.err = err
		return f
	}
	ctx := p.ctx
	if p.h.opts.FragmentTimeout > 0 {
		ctx, f.cancel = context.WithTimeout(ctx, p.h.opts.FragmentTimeout)
	}
	f.info.depth, f.info.includes = p.depth+1, p.includes
	f.ctx = fragmentContext{Context: ctx, info: &f.info}
	f.req = newFragmentRequest(&f.ctx, p.req, u)
	f.frag, f.err = p.h.callFetch(p.req, f.req)
	switch {
	case f.err != nil:
		f.err = fmt.Errorf("fetch %s: %w", u.RequestURI(), f.err)
	case f.frag == nil:
		f.err = fmt.Errorf("fetch %s: no fragment returned", u.RequestURI())
	}
	return f
}

// callFetch runs the Fetcher, turning a panic into an error: it runs on
// goroutines of its own, where a panic would take the whole server down.
func (h *handler) callFetch(parent, req *http.Request) (frag *Fragment, err error) {
	defer func() {
		if v := recover(); v != nil {
			frag, err = nil, fmt.Errorf("fetch panicked: %v", v)
		}
	}()
	return h.opts.Fetcher.Fetch(parent, req)
}

func (p *page) logFailure(f *fetched, what string, attrs ...slog.Attr) {
	attrs = append(attrs, slog.String("uri", p.req.URL.RequestURI()), slog.String("src", f.src))
	if f.err != nil {
		attrs = append(attrs, slog.Any("error", f.err))
		p.h.log.LogAttrs(p.ctx, slog.LevelError, "esi: include failed, "+what, attrs...)
		return
	}
	attrs = append(attrs, slog.Int("status", f.frag.Status))
	p.h.log.LogAttrs(p.ctx, slog.LevelWarn, "esi: fragment answered with an error status, "+what, attrs...)
}

// fill reads a fragment's body into its slot: inflated when gzipped,
// processed when it is ESI nobody processed yet. An error status is still a
// response: its body is inlined like any other. f nil: the fragment is
// fetched here first.
func (p *page) fill(in incl, f *fetched) {
	if f == nil {
		f = p.fetch(in.src)
	}
	defer f.close()
	if f.err != nil {
		p.fail(in, f.err)
		return
	}
	if f.frag.Status >= 400 {
		p.logFailure(f, "its body is inlined")
		in.failAttempt()
	}
	if f.frag.Body == nil || f.frag.Status == http.StatusNoContent {
		in.out.complete(in.s, nil)
		return
	}
	var body io.Reader = f.frag.Body
	switch enc := strings.ToLower(strings.TrimSpace(f.frag.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if errors.Is(err, io.EOF) { // an empty body, however it is labelled
			in.out.complete(in.s, nil)
			return
		}
		if err != nil {
			p.fail(in, fmt.Errorf("inflate fragment: %w", err))
			return
		}
		body = zr
	default:
		p.fail(in, fmt.Errorf("fragment has Content-Encoding %q; only gzip can be inflated for splicing", enc))
		return
	}
	f.body = boundedBody{r: body, left: p.h.opts.MaxFragmentSize, max: p.h.opts.MaxFragmentSize}
	body = &f.body
	var parts []seg
	var err error
	if !f.frag.Final && !f.info.claimed.Load() && p.h.processes(f.frag.Header.Get("Content-Type")) &&
		(!p.h.opts.Surrogate || asksForESI(f.frag.Header.Values("Surrogate-Control"))) {
		parts, err = p.nested(f, body)
	} else {
		parts, err = p.h.bufs.readAll(body)
	}
	if err == nil {
		// A Fetcher may end a body that the fragment's timeout cut short
		// as if it were whole (the server's subrequest, whose proxied
		// request returns quietly once cancelled): a fragment whose
		// context ended before its end was read is not known to be
		// complete, and fails.
		err = f.req.Context().Err()
	}
	if err != nil {
		for i := range parts {
			parts[i].release()
		}
		p.fail(in, fmt.Errorf("read fragment %s: %w", f.req.URL.RequestURI(), err))
		return
	}
	in.out.complete(in.s, parts)
}

// nested processes a fragment's ESI one level deeper, collecting its output.
func (p *page) nested(f *fetched, body io.Reader) ([]seg, error) {
	pw := &partsWriter{bufs: &p.h.bufs}
	child := newPage(f.req.Context(), p.h, f.req, p.depth+1, p.includes, newOutput(pw, nil, &p.h.bufs, p.h.opts.MaxHeldSize))
	_, err := child.readFrom(body)
	if ferr := child.finish(); err == nil {
		err = ferr
	}
	return pw.parts, err
}

// fail settles a slot whose fragment could not be had: an error log line
// and, unless silenced, the error marker.
func (p *page) fail(in incl, err error) {
	p.h.log.LogAttrs(p.ctx, slog.LevelError, "esi: include failed",
		slog.String("uri", p.req.URL.RequestURI()), slog.String("src", in.src), slog.Any("error", err))
	in.failAttempt()
	p.complete(in)
}

// complete settles a failed slot: the marker, or nothing.
func (p *page) complete(in incl) {
	if in.cont || p.h.opts.SilentErrors {
		in.out.complete(in.s, nil)
		return
	}
	in.out.complete(in.s, []seg{{data: errorMarker}})
}

// boundedBody reads a fragment's body up to max bytes, then fails: the
// body is held in memory until its place in the page is written.
type boundedBody struct {
	r         io.Reader
	left, max int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		if n, err := b.r.Read(one[:]); n == 0 {
			return 0, err
		}
		return 0, fmt.Errorf("fragment longer than %d bytes (esi_max_fragment_size)", b.max)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}
