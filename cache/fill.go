package cache

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/connfields"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/httpdate"
	"github.com/mosaic-edge/mosaic/vars"
)

// fillParams say how a request that goes upstream is handled.
type fillParams struct {
	lk       lookup // lk.obj is the stale entry being refreshed, or nil
	status   string // $upstream_cache_status when the response passes through
	fwd      string // the Cache-Status fwd parameter
	mayStore bool
	detail   string // why the response is not stored, known up front
	// post: a POST the cache does not look up (see Cache.post); sent as
	// the client sent it, and when its response is not stored, a success
	// invalidates the key.
	post bool
	// passRange: a range request past MaxRangeOffset, or before MinUses
	// is reached, sent with its Range and If-Range and not stored.
	passRange bool
	// unlock releases the fill lock early, once it is known that nothing
	// will be stored (HandOff, an answer not stored); nil without a lock.
	unlock func()
}

// Modes of a fill, decided when the upstream's header arrives.
const (
	modePass        = iota // relay to the client, storing when allowed
	modeStale              // upstream failed: serve the stale entry instead
	modeGateway            // upstream unreachable for a must-revalidate entry: 504
	modeRevalidated        // 304 to our conditional request: serve the merged entry
)

// filler is the Fill that the handler behind the cache writes to on a
// cache fill. It tees the body to the client and to the store, and
// decides at WriteHeader what the response becomes.
type filler struct {
	c     *Cache
	p     fillParams
	w     http.ResponseWriter // the client; nil in a background update
	r     *http.Request       // the client's request
	stale *Meta               // the entry being refreshed, or nil

	reqTime      time.Time
	revalidating bool // the upstream request carries our validators
	header       http.Header
	failure      Failure // reported by the handler with Fail
	handedOff    bool    // the handler served the client itself (HandOff)
	unbuffered   bool    // the handler relays the response unbuffered (Unbuffered)
	// headed is the status that Heading told, and head what the cache
	// decided on the header it told, which WriteHeader keeps for that
	// status: the upstream's header as it came, before the handler took
	// the fields it hides from it.
	headed int
	head   decision
	// spell is the upstream's spelling of the header's names that the
	// handler told (SpellFields): the client's writer gets it when the
	// answer is relayed, and the entry keeps it for its hits.
	spell []string

	wrote    bool
	mode     int
	status   int
	sw       Writer
	meta     *Meta
	toClient bool         // the body goes to the client (not HEAD, not 304)
	ranged   *rangeWriter // cuts the client's ranges out of the body, or nil
	gone     bool         // the client stopped accepting writes
	written  int64
	declared int64 // Content-Length, or -1

	// passing is set once the response is known not to be stored; a client
	// that leaves after that cancels the upstream request.
	passing atomic.Bool
	cancel  context.CancelFunc
}

// Failure is how the handler behind the cache failed to get the origin's
// response, for proxy_cache_use_stale's error, timeout and invalid_header
// conditions.
type Failure uint32

// The failures a handler can report with Fill.Fail.
const (
	// FailError: the origin could not be reached, or the connection broke.
	FailError Failure = iota + 1
	// FailTimeout: the origin did not answer in time.
	FailTimeout
	// FailInvalidHeader: the origin's response could not be read.
	FailInvalidHeader
)

func (f Failure) condition() UseStale {
	switch f {
	case FailError:
		return StaleError
	case FailTimeout:
		return StaleTimeout
	case FailInvalidHeader:
		return StaleInvalidHeader
	}
	return 0
}

// Fill is implemented by the http.ResponseWriter that a Cache gives the
// handler behind it whenever it needs a response from it: on a miss, for
// an expired entry, on a bypass and in a background update. Whatever the
// handler is, the cache stores what it writes when the response may be
// stored; a handler that answers with an error of its own, because it
// could not get the origin's response, says so with Fail first.
type Fill interface {
	http.ResponseWriter
	// Fail tells the cache that the response about to be written is the
	// handler's own error page, not the origin's answer. Such a response
	// is never stored, and it is what proxy_cache_use_stale error, timeout
	// and invalid_header look for: with the condition allowed, the stale
	// entry is served in its place. It must be called before WriteHeader,
	// by the goroutine that writes the response.
	Fail(Failure)
}

// ReportFailure calls Fail on the Fill that w is, or that w wraps (found
// through Unwrap methods, as http.ResponseController finds a writer's
// features), and reports whether there was one. Outside a cache fill it
// does nothing and reports false.
func ReportFailure(w http.ResponseWriter, f Failure) bool {
	x, ok := header.Under[Fill](w)
	if ok {
		x.Fail(f)
	}
	return ok
}

// Fail records the handler's failure; see Fill.
func (f *filler) Fail(reason Failure) { f.failure = reason }

// Unbuffered tells the Fill that w is, or that w wraps, that the
// response about to be written is relayed unbuffered (NGINX's
// proxy_buffering off, or an upstream's "X-Accel-Buffering: no"): it
// goes to the client and is not stored, as NGINX's cache stores no
// unbuffered answer. It must be called before WriteHeader, and reports
// whether w was a Fill.
func Unbuffered(w http.ResponseWriter) bool {
	x, ok := header.Under[*filler](w)
	if ok {
		x.unbuffered = true
	}
	return ok
}

// Heading tells the Fill that w is, or that w wraps, the status and
// header of the answer that the handler will write, as soon as it has
// them and before it reads the body, which it may hold back until its
// buffer fills or the body ends (the proxy's buffered relay). An answer
// that the header says will not be stored (Cache-Control private or
// no-store, Set-Cookie, Vary: *, X-Accel-Expires: 0, a status without a
// lifetime, a true no-cache predicate) lets the fill lock go at once,
// as NGINX's ngx_http_upstream_send_response frees the cache entry
// when it sends the header, before the body: the other requests for the
// key go on now, not when a slow upstream's body has filled the buffer.
// What is stored is decided on that header, not on the one written,
// from which the handler may have hidden fields (proxy_hide_header), as
// NGINX decides on the upstream's. It reports whether w was a Fill.
func Heading(w http.ResponseWriter, status int, h http.Header) bool {
	x, ok := header.Under[*filler](w)
	if ok {
		x.heading(status, h)
	}
	return ok
}

func (f *filler) heading(status int, h http.Header) {
	if f.wrote || !f.p.mayStore || f.failure != 0 || status < 200 {
		// Written already, nothing to store anyway (the lock went before
		// the fill), or the handler's own error page.
		return
	}
	now := f.c.now()
	if f.staleMode(status, 0, now) != modePass {
		// The stale entry is served or merged: WriteHeader sees to it.
		return
	}
	// NGINX decides on the upstream's header as it reads it, before
	// proxy_hide_header takes fields from what the client gets: a hidden
	// "Cache-Control: private" still keeps the answer out of the cache.
	// WriteHeader keeps this verdict, so that an answer whose lock went
	// here is not stored after all.
	f.headed, f.head = status, f.c.decide(f.r, status, h, f.reqTime, now)
	if !f.head.store && f.p.unlock != nil {
		f.p.unlock()
	}
}

// HandOff lets the handler behind a cache give up the fill for an answer
// that is not the origin's response to store, as an upstream's
// X-Accel-Redirect is: when w is (or wraps) the cache's Fill, and nothing
// was written to it, nothing is stored, the fields the handler set in w's
// header go on to the client's writer, and serve is called with that
// writer and the client's own request (not the one the cache sent on,
// which may be a GET for a HEAD, without the client's range and
// conditionals); in a background update, which has no client, serve is
// not called. It reports whether w was a Fill; outside a fill the caller
// serves with w and its own request.
func HandOff(w http.ResponseWriter, serve func(http.ResponseWriter, *http.Request)) bool {
	x, ok := header.Under[*filler](w)
	if ok {
		x.handOff(serve)
	}
	return ok
}

func (f *filler) handOff(serve func(http.ResponseWriter, *http.Request)) {
	if f.wrote {
		return
	}
	f.wrote, f.handedOff = true, true
	f.passing.Store(true)
	if f.p.unlock != nil {
		// The requests waiting for this fill need not wait for the
		// redirected answer: nothing will be stored.
		f.p.unlock()
	}
	if f.w == nil {
		return
	}
	if f.p.status != "" {
		f.c.publish(f.r, f.p.status)
	}
	h := f.w.Header()
	for k, vv := range f.header {
		h[k] = append(h[k], vv...)
	}
	serve(f.w, f.r)
}

// forward sends the request upstream and relays the answer, storing it
// when it may.
func (c *Cache) forward(w http.ResponseWriter, r *http.Request, p fillParams) {
	c.checkRange(r, &p)
	f := c.newFiller(w, r, p)
	ur := c.upstreamRequest(r, f, context.WithoutCancel(r.Context()))
	// The client leaving must not abort a response that is being stored,
	// since other requests wait for it; it does abort one merely relayed.
	stop := context.AfterFunc(r.Context(), func() {
		if f.passing.Load() {
			f.cancel()
		}
	})
	defer stop()
	f.run(ur)
}

func (c *Cache) newFiller(w http.ResponseWriter, r *http.Request, p fillParams) *filler {
	f := &filler{c: c, p: p, w: w, r: r, header: make(http.Header), declared: -1}
	if p.lk.obj != nil {
		f.stale = p.lk.obj.Meta()
	}
	return f
}

// upstreamRequest is r as the cache sends it upstream: a GET for a HEAD,
// without the client's conditionals and range (the cache wants the whole
// response), Accept-Encoding normalised, and with the stored entry's
// validators when revalidating. A POST (Cache.post) keeps its method and
// conditionals, which are the client's business; its Accept-Encoding is
// normalised too, since the normalised set is what the variant key of a
// stored answer records: the origin must have chosen its coding from
// that set, not from codings the key leaves out.
func (c *Cache) upstreamRequest(r *http.Request, f *filler, base context.Context) *http.Request {
	// The proxy writes the upstream's Proxy-Connection, TE and Upgrade
	// here for an HTTP/2 client too: NGINX stores the upstream's header
	// as it came, so that a later HTTP/1.x hit gets them whoever filled
	// the entry; the filler keeps them back from the HTTP/2 client itself
	// (WriteHeader).
	ctx, cancel := context.WithCancel(connfields.Keep(base))
	f.cancel = cancel
	ur := r.Clone(ctx)
	f.reqTime = c.now()
	h := ur.Header
	if ae := normalizeAcceptEncoding(h["Accept-Encoding"]); ae != "" {
		h["Accept-Encoding"] = []string{ae}
	} else {
		delete(h, "Accept-Encoding")
	}
	if f.p.post {
		return ur
	}
	if ur.Method == http.MethodHead {
		ur.Method = http.MethodGet
	}
	for _, k := range [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"} {
		if f.p.passRange && (k == "Range" || k == "If-Range") {
			continue // the upstream answers the range itself
		}
		delete(h, k)
	}
	if s := f.stale; s != nil && c.revalidate {
		if v := s.Header["Etag"]; len(v) > 0 {
			h["If-None-Match"] = v[:1:1]
			f.revalidating = true
		}
		// NGINX sends $upstream_cache_last_modified: the time it read
		// from the entry's (last) Last-Modified with ngx_parse_http_time
		// (httpdate.Conditional: a date without "GMT" is one), written
		// again as an IMF-fixdate, and none where it read no time.
		if v := s.Header["Last-Modified"]; len(v) > 0 {
			if t, ok := httpdate.Conditional(v[len(v)-1]); ok {
				h["If-Modified-Since"] = []string{header.FormatDate(time.Unix(t, 0))}
				f.revalidating = true
			}
		}
		if f.revalidating {
			ur = ur.WithContext(header.WithRevalidation(ur.Context()))
		}
	}
	return ur
}

// run calls the upstream handler and completes the fill. A panic of the
// upstream handler (http.ErrAbortHandler after a body broke off) discards
// what was being stored and goes on up to net/http, unless the client was
// to get the stale entry instead.
func (f *filler) run(ur *http.Request) {
	defer f.cancel()
	completed := false
	defer func() {
		if completed {
			return
		}
		v := recover()
		if f.finish(true) {
			return
		}
		if v != nil {
			panic(v)
		}
	}()
	f.c.next.ServeHTTP(f, ur)
	completed = true
	f.finish(false)
}

func (f *filler) Header() http.Header { return f.header }

// SpellFields notes the upstream's spelling of the header's names
// (header.Speller), for the client's writer if the answer goes to the
// client as it came, and for the entry if it is stored: a hit sends the
// names as the upstream wrote them, as NGINX sends the head it stored.
// The spelling of a 304 that revalidates an entry goes nowhere: NGINX
// sends the stored head, and the entry keeps its own.
func (f *filler) SpellFields(names []string) { f.spell = names }

// Unwrap lets http.ResponseController reach the client's writer (for
// EnableFullDuplex and deadlines).
func (f *filler) Unwrap() http.ResponseWriter { return f.w }

func (f *filler) Flush() {
	if f.mode == modePass && f.toClient && !f.gone && f.w != nil {
		if fl, ok := f.w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

func (f *filler) WriteHeader(status int) {
	if f.wrote {
		return
	}
	if status < 200 {
		// An interim response (103 Early Hints, 102) goes to the client as
		// it comes, with the fields it carries, and is never stored; a
		// background update has no client to tell.
		if f.w != nil && status != http.StatusSwitchingProtocols {
			header.WriteInterim(f.w, status, f.header)
		}
		return
	}
	f.wrote = true
	f.status = status
	c := f.c
	now := c.now()
	failure := f.failure
	ensureDate(f.header, now)

	if f.mode = f.staleMode(status, failure, now); f.mode != modePass {
		return
	}

	stored, detail := false, f.p.detail
	// cacheable is NGINX's u->cacheable when its range filter reads it: a
	// fill it cuts the client's range from. Its proxy sends a request it
	// may not store (past max_range_offset, min_uses not reached) with the
	// client's Range, and relays the answer; a response that its header
	// makes uncacheable is sent whole. It learns that a response has no
	// lifetime, or that proxy_no_cache refuses it, only after the filter.
	cacheable := false
	if failure != 0 {
		detail = "upstream-failure"
	} else if f.p.mayStore {
		d := f.head
		if f.headed != status {
			d = c.decide(f.r, status, f.header, f.reqTime, now)
		}
		cacheable = d.store || d.reason == "no-lifetime" || d.reason == "no-cache-predicate"
		if d.store && f.unbuffered {
			// NGINX's range and not-modified filters still see the
			// response as cacheable (u->cacheable), as its header goes
			// out before the unbuffered path frees the cache entry.
			detail = "unbuffered"
		} else if d.store {
			stored = f.startStore(d, now)
			if !stored {
				detail = "store-unavailable"
			}
		} else if detail == "" {
			detail = d.reason
		}
	}
	if !stored {
		f.passing.Store(true)
		if f.r.Context().Err() != nil {
			f.cancel()
		}
		if f.p.unlock != nil {
			// NGINX frees the entry, and with it the lock, as it sends
			// the header of an answer it will not store
			// (ngx_http_upstream_send_response): the waiters go on now,
			// not when this answer ends, which a slow client or an
			// endless stream would put off to the lock timeout.
			f.p.unlock()
		}
	}
	if cl := f.header.Get("Content-Length"); cl != "" {
		if n, err := strconv.ParseInt(cl, 10, 64); err == nil && n >= 0 {
			f.declared = n
		}
	}
	if f.w == nil {
		return
	}
	if f.p.status != "" {
		c.publish(f.r, f.p.status)
	}
	h := f.w.Header()
	h2 := f.r.ProtoMajor == 2
	for k, vv := range f.header {
		if k == "X-Accel-Expires" || (!c.keepTags && c.isTagHeader(k)) || c.consumedTargeted(k) ||
			h2 && h2DroppedField(k) {
			continue
		}
		h[k] = vv
	}
	header.SpellFields(f.w, f.spell)
	h["Cache-Status"] = append(h["Cache-Status"], c.cacheStatusForward(f.p.fwd, status, stored, detail))
	clientStatus := status
	f.toClient = f.r.Method != http.MethodHead
	// NGINX's filter answers the conditions on a response its cache may
	// store, as it knows that when the header arrives (cacheable); one it
	// will not passes through, as it would with no cache.
	cond := 0
	if status == http.StatusOK && (cacheable || c.conditions == ConditionsRFC) {
		cond = c.conditional(f.r, f.header, now)
	}
	if cond == http.StatusPreconditionFailed && f.sw != nil {
		// NGINX's filter finalizes the request with its 412, and the
		// upstream module stores nothing: the next request is a miss.
		// Those waiting for this fill take the lock as if it failed.
		f.sw.Abort()
		f.sw = nil
		f.passing.Store(true)
		if f.p.unlock != nil {
			f.p.unlock()
		}
	}
	if cond != 0 {
		f.toClient = false
		c.answerCondition(f.w, f.r, cond)
		return
	} else if status == http.StatusOK && f.declared >= 0 && cacheable {
		// The client's Range is answered from the complete response the
		// cache asked for, as it streams by.
		if ranges, verdict := c.clientRanges(f.r, f.header, f.declared, true); verdict != byterange.Whole {
			header.RangeOf200(f.w, h.Get("Last-Modified"), h.Get("Content-Type"))
			if f.ranged = setRangeHeader(f.r.Context(), h, ranges, f.declared, f.w); f.ranged == nil {
				f.toClient = false
				c.refuseRange(f.w, f.r)
				return
			}
			clientStatus = http.StatusPartialContent
		}
	}
	if cacheable || stored {
		c.acceptRanges(h, clientStatus, f.declared, len(f.header["Accept-Ranges"]) > 0)
	}
	f.w.WriteHeader(clientStatus)
}

// staleMode is what becomes of the refresh of a stale entry that gets
// status (modePass outside a refresh, or when the answer is relayed).
func (f *filler) staleMode(status int, failure Failure, now time.Time) int {
	s := f.stale
	if s == nil {
		return modePass
	}
	cond := failure.condition() | statusStale(status)
	switch {
	case cond != 0 && f.c.staleAllowed(s, cond, now):
		return modeStale
	case failure != 0 && (s.MustRevalidate || s.NoCache):
		return modeGateway
	case status == http.StatusNotModified && f.revalidating:
		return modeRevalidated
	}
	return modePass
}

// startStore opens the store entry for a response that may be stored.
func (f *filler) startStore(d decision, now time.Time) bool {
	c := f.c
	key, epoch := f.p.lk.primary, ""
	if len(d.vary) > 0 {
		if m := f.p.lk.marker; m != nil && slices.Equal(m.Vary, d.vary) {
			epoch = m.VaryEpoch
		} else {
			epoch = newEpoch()
		}
		key = variantKey(f.p.lk.primary, epoch, d.vary, f.r)
	}
	sw, err := c.store.Put(f.r.Context(), key)
	if err != nil {
		c.log.store("put", key, err)
		return false
	}
	f.sw = sw
	f.meta = &Meta{
		Key:                  key,
		Status:               f.status,
		Header:               c.storedHeader(f.header, d.strip),
		RequestTime:          f.reqTime,
		ResponseTime:         now,
		InitialAge:           d.initialAge,
		FreshUntil:           d.freshUntil,
		StaleWhileRevalidate: d.swr,
		StaleIfError:         d.sie,
		MustRevalidate:       d.mustRevalidate,
		NoCache:              d.noCache,
		Tags:                 c.extractTags(f.header),
		Generation:           f.p.lk.gen,
		BodyID:               newBodyID(),
		Vary:                 d.vary,
		VaryEpoch:            epoch,
		Spell:                f.spell,
	}
	return true
}

func (f *filler) Write(p []byte) (int, error) {
	if !f.wrote {
		f.WriteHeader(http.StatusOK)
	}
	if f.mode != modePass {
		return len(p), nil // the upstream's body is not what the client gets
	}
	f.written += int64(len(p))
	if f.sw != nil {
		if _, err := f.sw.Write(p); err != nil {
			f.c.log.store("write", f.meta.Key, err)
			f.sw.Abort()
			f.sw = nil
		}
	}
	if !f.toClient || f.w == nil {
		return len(p), nil // HEAD, a 304 to the client, or a background update
	}
	if f.gone {
		if f.sw == nil {
			return 0, errClientGone
		}
		return len(p), nil
	}
	var out io.Writer = f.w
	if f.ranged != nil {
		out = f.ranged
	}
	if n, err := out.Write(p); err != nil {
		if f.sw == nil {
			return n, err
		}
		// Keep reading for the store; the client is not written again.
		f.gone = true
	}
	return len(p), nil
}

var errClientGone = errors.New("cache: client went away")

// finish completes the fill after the upstream handler returned (or
// panicked). It reports whether the client got a complete answer from the
// cache, which makes an upstream panic harmless.
func (f *filler) finish(panicked bool) bool {
	if f.handedOff {
		return false // a panic of the handed-off serving goes on up
	}
	if !f.wrote && !panicked {
		f.WriteHeader(http.StatusOK)
	}
	c := f.c
	ctx := context.WithoutCancel(f.r.Context())
	stored := false
	if f.sw != nil {
		complete := !panicked && (f.declared < 0 || f.written == f.declared)
		if complete {
			stored = f.commit(ctx)
		} else {
			f.sw.Abort()
		}
		f.sw = nil
	}
	if f.p.post && !stored && f.failure == 0 && f.status >= 200 && f.status < 400 {
		c.invalidate(ctx, f.p.lk.primary)
	}
	switch {
	case f.mode == modeStale:
		if f.w != nil {
			now := c.now()
			c.serveStored(f.w, f.r, f.p.lk.obj, f.stale, now, StatusStale, c.cacheStatusHit(f.stale, now, "upstream-failure", false))
		}
		return true
	case f.mode == modeGateway:
		if f.w != nil {
			c.gatewayTimeout(f.w, f.r, f.p.status)
		}
		return true
	case f.mode == modeRevalidated && !panicked:
		f.revalidated(ctx)
		return true
	case f.mode == modePass && f.wrote && !f.toClient && f.w != nil:
		return true // the client's answer had no body; it is complete
	}
	return false
}

// commit stores the completed response, and the Vary marker that leads to
// it when it is a variant. It reports whether the response was stored.
func (f *filler) commit(ctx context.Context) bool {
	c, m := f.c, f.meta
	m.Size = f.written
	if bodyAllowed(m.Status) && f.declared >= 0 {
		// A response that came without a length is stored without one,
		// for the hits to go out as the miss did (serve).
		m.Header["Content-Length"] = []string{strconv.FormatInt(f.written, 10)}
	}
	if err := f.sw.Commit(ctx, m); err != nil {
		c.log.store("commit", m.Key, err)
		return false
	}
	c.stats.stored.Add(1)
	if len(m.Vary) == 0 {
		return true
	}
	if err := f.storeMarker(ctx, m); err != nil {
		// The variant is stored but cannot be found: as good as not.
		c.log.store("commit marker", f.p.lk.primary, err)
		return false
	}
	return true
}

// storeMarker writes the Vary marker that leads to the variant m, stored
// or just revalidated, unless the marker the lookup found already covers
// it. A store that expires entries by their lifetimes (Redis, see
// retention) must keep the marker as long as any of its variants, or a
// variant that may still be served, stale or revalidated, cannot be
// found: the marker takes the later freshness and the longer stale
// windows of the marker it replaces and of m.
func (f *filler) storeMarker(ctx context.Context, m *Meta) error {
	marker := &Meta{
		Key: f.p.lk.primary, RequestTime: m.RequestTime, ResponseTime: m.ResponseTime,
		FreshUntil: m.FreshUntil, StaleWhileRevalidate: m.StaleWhileRevalidate, StaleIfError: m.StaleIfError,
		Generation: m.Generation, Vary: m.Vary, VaryEpoch: m.VaryEpoch,
	}
	if old := f.p.lk.marker; old != nil && old.VaryEpoch == m.VaryEpoch {
		if !old.FreshUntil.Before(m.FreshUntil) && old.StaleWhileRevalidate >= m.StaleWhileRevalidate && old.StaleIfError >= m.StaleIfError {
			return nil
		}
		if old.FreshUntil.After(marker.FreshUntil) {
			marker.FreshUntil = old.FreshUntil
		}
		marker.StaleWhileRevalidate = max(marker.StaleWhileRevalidate, old.StaleWhileRevalidate)
		marker.StaleIfError = max(marker.StaleIfError, old.StaleIfError)
	}
	sw, err := f.c.store.Put(ctx, marker.Key)
	if err != nil {
		return err
	}
	return sw.Commit(ctx, marker)
}

// revalidated merges the 304's header into the stored entry (RFC 9111
// section 4.3.4), stores the result and serves it.
func (f *filler) revalidated(ctx context.Context) {
	c, old := f.c, f.stale
	now := c.now()
	merged := make(http.Header, len(old.Header)+len(f.header))
	for k, vv := range old.Header {
		merged[k] = vv
	}
	for k, vv := range f.header {
		switch k {
		case "Content-Length", "Content-Range", "Transfer-Encoding":
			continue
		}
		// An empty entry is no field: the proxy's mark against sniffing a
		// Content-Type (the 304 has none), which would remove the stored
		// one.
		if len(vv) == 0 {
			continue
		}
		merged[k] = vv
	}
	m := *old
	d := c.decide(f.r, old.Status, merged, f.reqTime, now)
	if d.store {
		m.Header = c.storedHeader(merged, d.strip)
		m.RequestTime, m.ResponseTime, m.InitialAge = f.reqTime, now, d.initialAge
		m.FreshUntil, m.StaleWhileRevalidate, m.StaleIfError = d.freshUntil, d.swr, d.sie
		m.MustRevalidate, m.NoCache = d.mustRevalidate, d.noCache
		m.Tags = c.extractTags(merged)
		if err := c.store.Update(ctx, &m); err != nil {
			c.log.store("update", m.Key, err)
		} else if len(m.Vary) > 0 {
			// The marker must live as long as the refreshed variant.
			if err := f.storeMarker(ctx, &m); err != nil {
				c.log.store("commit marker", f.p.lk.primary, err)
			}
		}
	} else {
		if err := c.store.Delete(ctx, m.Key); err != nil {
			c.log.store("delete", m.Key, err)
		}
		m.Header = c.storedHeader(merged, d.strip)
	}
	if f.w != nil {
		c.serveStored(f.w, f.r, f.p.lk.obj, &m, now, StatusRevalidated, c.cacheStatusForward("stale", http.StatusNotModified, d.store, ""))
	}
}

// startBackground refreshes the entry of lk after the client has been
// served, holding the fill lock until done, or until its answer is known
// not to be stored (proxy_cache_background_update); release must be safe
// to call twice.
func (c *Cache) startBackground(r *http.Request, lk lookup, release func()) {
	meta := lk.obj.Meta()
	f := c.newFiller(nil, r, fillParams{lk: lookup{primary: lk.primary, key: lk.key, marker: lk.marker, gen: lk.gen}, status: StatusExpired, mayStore: true, unlock: release})
	f.stale = meta
	// The background request reports into no request's variables and
	// reads no client body.
	base := vars.NewContext(context.WithoutCancel(r.Context()), nil)
	ur := c.upstreamRequest(r, f, base)
	ur.Body = http.NoBody
	ur.ContentLength = 0
	f.r = ur
	c.bg.Add(1)
	go func() {
		defer c.bg.Done()
		defer release()
		defer func() {
			if v := recover(); v != nil && v != http.ErrAbortHandler {
				c.log.logger.Error("cache background update failed", "key", lk.key, "panic", v)
			}
		}()
		f.run(ur)
	}()
}

// storedHeader copies the upstream header as it is kept: without
// the hop-by-hop fields NGINX's upstream module keeps back from the
// client (Connection, Keep-Alive, Transfer-Encoding; Trailer, which the
// proxy keeps back too), Age (recomputed on every hit), X-Accel-Expires,
// Cache-Status, the tag fields unless kept, and the fields in strip; every
// slice is full so that appends by later handlers copy. Proxy-Connection,
// TE and Upgrade are kept: NGINX stores the upstream's header as it came
// and a hit passes them as its miss did (HTTP/2 clients excepted, see
// h2Dropped).
//
// The values are copied, all into one array: the handler's slices may be
// pieces of what produced them (FastCGI's body reader keeps an answer's
// values beside the request it served and the upstream connection's
// reader), which an entry that lives for days must not hold.
func (c *Cache) storedHeader(h http.Header, strip []string) http.Header {
	out := make(http.Header, len(h))
	n := 0
	for _, vv := range h {
		n += len(vv)
	}
	vals := make([]string, 0, n)
	for k, vv := range h {
		switch k {
		case "Connection", "Keep-Alive", "Trailer", "Transfer-Encoding",
			"Age", "X-Accel-Expires", "Cache-Status":
			continue
		}
		if !c.keepTags && c.isTagHeader(k) {
			continue
		}
		if vv == nil {
			out[k] = nil // (copyHeader's mark: no type, none sniffed)
			continue
		}
		start := len(vals)
		vals = append(vals, vv...)
		out[k] = vals[start:len(vals):len(vals)]
	}
	for _, k := range strip {
		delete(out, k)
	}
	if conn := h["Connection"]; len(conn) > 0 {
		for _, line := range conn {
			for tok := range strings.SplitSeq(line, ",") {
				delete(out, http.CanonicalHeaderKey(strings.TrimSpace(tok)))
			}
		}
	}
	return out
}

func (c *Cache) isTagHeader(k string) bool {
	for _, t := range c.tags {
		if t.name == k {
			return true
		}
	}
	return false
}

// extractTags collects the purge tags of a response.
func (c *Cache) extractTags(h http.Header) []string {
	var tags []string
	for _, t := range c.tags {
		for _, line := range h[t.name] {
			for tag := range strings.FieldsFuncSeq(line, func(r rune) bool {
				return r == ' ' || r == '\t' || (t.comma && r == ',')
			}) {
				if !slices.Contains(tags, tag) {
					tags = append(tags, tag)
				}
			}
		}
	}
	return tags
}

// bodyAllowed reports whether a response with this status has a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// checkRange applies MaxRangeOffset to a fill that may store (a bypass
// aside, which NGINX stores whatever the range): a range request whose
// first range starts at the offset or past it, or is a suffix range, goes
// upstream with its Range and its response is not stored.
func (c *Cache) checkRange(r *http.Request, p *fillParams) {
	if !c.limitRangeOffset || !p.mayStore || p.post || p.status == StatusBypass {
		return
	}
	if v := r.Header["Range"]; len(v) > 0 && rangeBeyond(v[0], c.maxRangeOffset) {
		p.mayStore, p.passRange, p.detail = false, true, "range-offset"
	}
}

// rangeBeyond reads a Range value as NGINX's proxy_cache_max_range_offset
// does: only the start of its first range counts; a suffix range ("-500")
// is past any offset, and with max 0 every byte range is.
func rangeBeyond(v string, max int64) bool {
	if max == 0 {
		return true
	}
	spec, ok := byterange.Spec(v)
	if !ok {
		return false
	}
	spec = strings.TrimLeft(spec, " ")
	if strings.HasPrefix(spec, "-") {
		return true
	}
	var start int64
	for i := 0; i < len(spec) && '0' <= spec[i] && spec[i] <= '9'; i++ {
		if start > (math.MaxInt64-9)/10 {
			return true
		}
		start = start*10 + int64(spec[i]-'0')
	}
	return start >= max
}
