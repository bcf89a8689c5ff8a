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
)

// errorMarker stands where a fragment could not be fetched at all, unless
// errors are silent or the include says onerror="continue".
var errorMarker = []byte("<!-- ESI include error -->")

// fetched is a fragment request in flight or answered.
type fetched struct {
	src    string
	req    *http.Request
	info   *fragmentInfo
	frag   *Fragment
	err    error
	cancel context.CancelFunc
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

// include handles an <esi:include>. Without alt or onerror the fragment is
// fetched in its own goroutine and the parser goes on at once. With either,
// the parser waits for the fragment's status, so that the alt fragment can
// take the failed one's place; its body is then read concurrently as usual.
func (p *page) include(ev *Event) {
	s := p.out.slot()
	if p.out.failed() != nil {
		p.out.complete(s, nil)
		return
	}
	if p.depth >= p.h.opts.MaxDepth {
		p.fail(s, ev.Src, ev.Continue, fmt.Errorf("ESI nesting depth limit %d reached (esi_max_depth)", p.h.opts.MaxDepth))
		return
	}
	if n := p.includes.Add(1); n > int32(p.h.opts.MaxIncludes) {
		err := fmt.Errorf("more than %d includes for one request (esi_max_includes)", p.h.opts.MaxIncludes)
		if p.overLimit {
			p.complete(s, ev.Continue) // reported once per page
			return
		}
		p.overLimit = true
		p.fail(s, ev.Src, ev.Continue, err)
		return
	}
	if ev.Alt == "" && !ev.Continue {
		src := ev.Src
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.fill(s, p.fetch(src), false)
		}()
		return
	}
	f := p.fetch(ev.Src)
	if f.failed() && ev.Alt != "" {
		p.logFailure(f, "trying alt", slog.String("alt", ev.Alt))
		f.close()
		f = p.fetch(ev.Alt)
	}
	if f.failed() && ev.Continue {
		p.logFailure(f, `onerror="continue": nothing written`)
		f.close()
		p.out.complete(s, nil)
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.fill(s, f, ev.Continue)
	}()
}

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
	f.info = &fragmentInfo{depth: p.depth + 1, includes: p.includes}
	f.req = newFragmentRequest(context.WithValue(ctx, fragmentKey{}, f.info), p.req, u)
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
// response: its body is inlined like any other.
func (p *page) fill(s *slot, f *fetched, cont bool) {
	defer f.close()
	if f.err != nil {
		p.fail(s, f.src, cont, f.err)
		return
	}
	if f.frag.Status >= 400 {
		p.logFailure(f, "its body is inlined")
	}
	if f.frag.Body == nil || f.frag.Status == http.StatusNoContent {
		p.out.complete(s, nil)
		return
	}
	var body io.Reader = f.frag.Body
	switch enc := strings.ToLower(strings.TrimSpace(f.frag.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if errors.Is(err, io.EOF) { // an empty body, however it is labelled
			p.out.complete(s, nil)
			return
		}
		if err != nil {
			p.fail(s, f.src, cont, fmt.Errorf("inflate fragment: %w", err))
			return
		}
		body = zr
	default:
		p.fail(s, f.src, cont, fmt.Errorf("fragment has Content-Encoding %q; only gzip can be inflated for splicing", enc))
		return
	}
	var parts []seg
	var err error
	if !f.frag.Final && !f.info.claimed.Load() && p.h.processes(f.frag.Header.Get("Content-Type")) {
		parts, err = p.nested(f, body)
	} else {
		parts, err = p.h.bufs.readAll(body)
	}
	if err != nil {
		for i := range parts {
			parts[i].release()
		}
		p.fail(s, f.src, cont, fmt.Errorf("read fragment %s: %w", f.req.URL.RequestURI(), err))
		return
	}
	p.out.complete(s, parts)
}

// nested processes a fragment's ESI one level deeper, collecting its output.
func (p *page) nested(f *fetched, body io.Reader) ([]seg, error) {
	pw := &partsWriter{bufs: &p.h.bufs}
	child := newPage(f.req.Context(), p.h, f.req, p.depth+1, p.includes, newOutput(pw, nil, &p.h.bufs))
	_, err := child.readFrom(body)
	if ferr := child.finish(); err == nil {
		err = ferr
	}
	return pw.parts, err
}

// fail settles a slot whose fragment could not be had: an error log line
// and, unless silenced, the error marker.
func (p *page) fail(s *slot, src string, cont bool, err error) {
	p.h.log.LogAttrs(p.ctx, slog.LevelError, "esi: include failed",
		slog.String("uri", p.req.URL.RequestURI()), slog.String("src", src), slog.Any("error", err))
	p.complete(s, cont)
}

// complete settles a failed slot: the marker, or nothing.
func (p *page) complete(s *slot, cont bool) {
	if cont || p.h.opts.SilentErrors {
		p.out.complete(s, nil)
		return
	}
	p.out.complete(s, []seg{{data: errorMarker}})
}
