package cache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"github.com/mosaic-edge/mosaic/vars"
)

// Defaults of NGINX's proxy_cache_lock_timeout and proxy_cache_lock_age.
const (
	DefaultLockTimeout = 5 * time.Second
	DefaultLockAge     = 5 * time.Second
)

// usesInactive is how long a min_uses count survives without requests,
// NGINX's default "inactive".
const usesInactive = 10 * time.Minute

// Cache is the caching handler of one location. It is safe for concurrent
// use.
type Cache struct {
	next  http.Handler
	store Store
	name  string

	key     func(*http.Request) string
	methods []string
	minUses int
	uses    *otter.Cache[string, *atomic.Int32]
	bypass  func(*http.Request) bool
	noCache func(*http.Request, int, http.Header) bool

	valid       map[int]time.Duration
	validAny    time.Duration
	hasValidAny bool

	lock        bool
	lockTimeout time.Duration
	lockAge     time.Duration
	useStale    UseStale
	background  bool
	revalidate  bool
	ignore      ignoreSet
	tags        []tagHeader
	keepTags    bool
	targeted    []string // canonical target list of RFC 9213
	consumed    []string // the targeted fields clients do not get
	heuristic   bool
	transformed func(contentType string) bool
	maxRanges   int

	limitRangeOffset bool
	maxRangeOffset   int64
	publishBodyID    bool
	postReuse        bool
	conditions       Conditions
	errorPage        func(http.ResponseWriter, *http.Request, int)
	subrequest       func(*http.Request) bool

	stats *Stats
	log   *errorLog
	now   func() time.Time
	bg    sync.WaitGroup // background updates in flight
}

// New returns the caching handler for next configured by opts. next
// produces the responses the cache stores, the origin's answers: a
// reverse proxy, or any handler. It is called with a Fill as its
// ResponseWriter, with a GET for a HEAD and without the client's
// conditionals and Range, and it also serves the background updates
// (BackgroundUpdate, stale-while-revalidate), which outlive the client's
// request: next must not depend on state that ends with the request.
func New(next http.Handler, opts Options) (*Cache, error) {
	if next == nil {
		return nil, errors.New("cache: nil next handler")
	}
	if opts.Store == nil {
		return nil, errors.New("cache: Options.Store is required")
	}
	c := &Cache{
		next: next, store: opts.Store, name: opts.Name,
		key: opts.Key, minUses: max(opts.MinUses, 1),
		bypass: opts.Bypass, noCache: opts.NoCache,
		lock: opts.Lock, lockTimeout: opts.LockTimeout, lockAge: opts.LockAge,
		useStale: opts.UseStale, background: opts.BackgroundUpdate, revalidate: opts.Revalidate,
		tags: compileTagHeaders(opts.TagHeaders), keepTags: opts.KeepTagHeaders,
		heuristic: opts.Heuristic, transformed: opts.Transformed, maxRanges: opts.MaxRanges, limitRangeOffset: opts.LimitRangeOffset, maxRangeOffset: opts.MaxRangeOffset, publishBodyID: opts.PublishBodyID, postReuse: opts.PostReuse, conditions: opts.Conditions, errorPage: opts.Error, subrequest: opts.Subrequest, stats: opts.Stats, now: time.Now,
	}
	if c.name == "" {
		c.name = "mosaic"
	}
	if c.key == nil {
		c.key = defaultKey
	}
	c.targeted, c.consumed = compileTargeted(opts.TargetedHeaders, opts.PassTargeted)
	c.methods = []string{http.MethodGet, http.MethodHead}
	for _, m := range opts.Methods {
		if m = strings.ToUpper(m); !c.cacheableMethod(m) {
			c.methods = append(c.methods, m)
		}
	}
	if c.lockTimeout == 0 {
		c.lockTimeout = DefaultLockTimeout
	}
	if c.lockAge <= 0 {
		c.lockAge = DefaultLockAge
	}
	var err error
	if c.valid, c.validAny, c.hasValidAny, err = compileValid(opts.Valid); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if c.ignore, err = parseIgnore(opts.IgnoreHeaders); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	if c.stats == nil {
		c.stats = new(Stats)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	c.log = newErrorLog(logger, c.stats)
	if c.minUses > 1 {
		c.uses, err = otter.New(&otter.Options[string, *atomic.Int32]{
			MaximumSize:      100_000,
			ExpiryCalculator: otter.ExpiryAccessing[string, *atomic.Int32](usesInactive),
		})
		if err != nil {
			return nil, fmt.Errorf("cache: min_uses table: %w", err)
		}
	}
	return c, nil
}

// Stats returns the handler's counters.
func (c *Cache) Stats() *Stats { return c.stats }

// defaultKey is $scheme$host$request_uri.
func defaultKey(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	uri := r.RequestURI
	if uri == "" || r.URL.Scheme != "" {
		uri = r.URL.RequestURI()
	}
	return scheme + r.Host + uri
}

func (c *Cache) cacheableMethod(m string) bool {
	for _, x := range c.methods {
		if x == m {
			return true
		}
	}
	return false
}

// lookup is what the store holds for a request.
type lookup struct {
	primary string // the request's cache key
	key     string // where its response lives: primary or a variant key
	marker  *Meta  // the Vary marker under primary, if any
	obj     Object // nil on a miss
	gen     uint64 // store generation read before the lookup
}

func (c *Cache) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if len(r.Header["Upgrade"]) > 0 {
		c.next.ServeHTTP(w, r) // a tunnel, never a cacheable response
		return
	}
	if !c.cacheableMethod(r.Method) {
		if r.Method == http.MethodPost && c.postReuse {
			c.post(w, r)
			return
		}
		if unsafeMethod(r.Method) {
			c.invalidating(w, r)
			return
		}
		c.next.ServeHTTP(w, r)
		return
	}
	ctx := r.Context()
	primary := c.key(r)
	if c.bypass != nil && c.bypass(r) {
		lk, err := c.lookupMarker(ctx, primary, r)
		if err != nil {
			c.log.store("lookup", primary, err)
		}
		if lk.obj != nil {
			lk.obj.Close()
			lk.obj = nil
		}
		c.forward(w, r, fillParams{lk: lk, status: StatusBypass, fwd: "bypass", mayStore: err == nil})
		return
	}

	lk, err := c.lookup(ctx, primary, r)
	if err != nil {
		c.log.store("lookup", primary, err)
		c.forward(w, r, fillParams{lk: lk, status: StatusMiss, fwd: "miss", detail: "store-unavailable"})
		return
	}
	now := c.now()
	if lk.obj == nil {
		if onlyIfCached(r) {
			c.gatewayTimeout(w, r, StatusMiss)
			return
		}
		c.miss(w, r, lk)
		return
	}
	defer lk.obj.Close()
	m := lk.obj.Meta()
	if !m.NoCache && now.Before(m.FreshUntil) {
		c.serveStored(w, r, lk.obj, m, now, StatusHit, c.cacheStatusHit(m, now, statusDetail(lk.obj), false))
		return
	}
	if onlyIfCached(r) {
		c.gatewayTimeout(w, r, StatusExpired)
		return
	}
	c.expired(w, r, lk, now)
}

// lookup finds the stored response for the request under primary, through
// its Vary marker when there is one. Entries of an older generation count
// as absent.
func (c *Cache) lookup(ctx context.Context, primary string, r *http.Request) (lookup, error) {
	lk, err := c.lookupMarker(ctx, primary, r)
	if err != nil || lk.marker == nil {
		return lk, err
	}
	lk.obj, err = c.get(ctx, lk.key, lk.gen)
	return lk, err
}

// lookupMarker reads the generation and the entry under primary. When
// that entry is a Vary marker it sets the variant key and leaves obj nil.
func (c *Cache) lookupMarker(ctx context.Context, primary string, r *http.Request) (lookup, error) {
	lk := lookup{primary: primary, key: primary}
	gen, err := c.store.Generation(ctx)
	if err != nil {
		return lk, fmt.Errorf("reading generation: %w", err)
	}
	lk.gen = gen
	obj, err := c.get(ctx, primary, gen)
	if err != nil || obj == nil {
		return lk, err
	}
	if m := obj.Meta(); m.isVaryMarker() {
		lk.marker = m
		lk.key = variantKey(primary, m.VaryEpoch, m.Vary, r)
		obj.Close()
		return lk, nil
	}
	lk.obj = obj
	return lk, nil
}

// get is Store.Get that turns "not found", a corrupt entry and an entry of
// an older generation into a nil Object.
func (c *Cache) get(ctx context.Context, key string, gen uint64) (Object, error) {
	obj, err := c.store.Get(ctx, key)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case errors.Is(err, ErrCorrupt):
		c.log.store("read", key, err)
		return nil, nil
	case err != nil:
		return nil, err
	}
	if obj.Meta().Generation < gen {
		obj.Close()
		return nil, nil
	}
	return obj, nil
}

// miss handles a request with nothing stored: coalesced behind the fill
// lock when proxy_cache_lock is on, then sent upstream.
func (c *Cache) miss(w http.ResponseWriter, r *http.Request, lk lookup) {
	p := fillParams{lk: lk, status: StatusMiss, fwd: "miss", mayStore: true}
	if lk.marker != nil {
		p.fwd = "vary-miss"
	}
	c.checkRange(r, &p) // before the lock: such a fill stores nothing
	if !c.used(lk.primary) {
		// As NGINX's proxy does for a request it will not store, the
		// client's range goes upstream.
		p.mayStore, p.passRange, p.detail = false, true, "min-uses"
	}
	if c.lock && p.mayStore {
		// As NGINX's waiters, a request waits at most lock_timeout in all,
		// however many holders come and go: a lock released with no entry
		// (the holder's response was not stored, or its instance died and
		// its lease lapsed) is taken by one waiter, and the others wait for
		// that one instead of all going upstream at once.
		// The lock is the variant's once the resource is known to vary (a
		// lookup after a wait may find it has come to), as NGINX reopens
		// the entry under the variant's key: misses for other variants are
		// filled at the same time, not behind each other.
		deadline := time.Now().Add(c.lockTimeout)
		for p.mayStore {
			locked := p.lk.key
			release, ok, err := c.store.TryLock(r.Context(), locked, c.lockAge)
			if err != nil {
				c.log.store("lock", locked, err)
				break
			}
			if ok {
				p.unlock = sync.OnceFunc(release)
				defer p.unlock()
				// The lookup that missed came before the lock: a holder
				// may have stored and released in between, and its entry
				// is served, not fetched again. (NGINX looks and locks at
				// once, under the zone's mutex; a store cannot.)
				if c.serveFilled(w, r, &p) {
					return
				}
				if p.lk.key != locked && time.Now().Before(deadline) {
					// The look found that the resource has come to vary:
					// the fill is the variant's, so is the lock, as
					// NGINX reopens the entry under the variant's key
					// and locks that. Held, the key's lock would leave
					// the variant's free (a second fill of it) and hold
					// back the other variants' misses.
					p.unlock()
					p.unlock = nil
					continue
				}
				break
			}
			if c.waitAndServe(w, r, p.lk.key, &p, deadline) {
				return
			}
		}
	}
	c.forward(w, r, p)
}

// waitAndServe waits for the fill lock of key, until deadline at most,
// and serves what the holder stored. It reports false when the request
// must still go upstream, with p updated: after the deadline the response
// is not stored (NGINX's rule).
func (c *Cache) waitAndServe(w http.ResponseWriter, r *http.Request, key string, p *fillParams, deadline time.Time) bool {
	ctx := r.Context()
	wctx, cancel := context.WithDeadline(ctx, deadline)
	err := c.store.Wait(wctx, key)
	cancel()
	if ctx.Err() != nil {
		return true // the client is gone; nobody to answer
	}
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			c.log.store("lock wait", key, err)
		}
		p.mayStore, p.detail = false, "lock-timeout"
		return false
	}
	return c.serveFilled(w, r, p)
}

// serveFilled looks the entry up again after a wait for (or the taking
// of) the fill lock, and serves it if a holder stored it fresh. It
// reports false when the request must still go upstream, with p updated.
func (c *Cache) serveFilled(w http.ResponseWriter, r *http.Request, p *fillParams) bool {
	lk, err := c.lookup(r.Context(), p.lk.primary, r)
	if err != nil {
		c.log.store("lookup", p.lk.primary, err)
		p.mayStore, p.detail = false, "store-unavailable"
		return false
	}
	p.lk = lk
	if lk.obj == nil {
		return false
	}
	m := lk.obj.Meta()
	now := c.now()
	if !m.NoCache && now.Before(m.FreshUntil) {
		// Deferred: serveStored ends a body it cannot finish with a panic
		// (http.ErrAbortHandler), and the object's file must close then too.
		defer lk.obj.Close()
		c.serveStored(w, r, lk.obj, m, now, StatusHit, c.cacheStatusHit(m, now, statusDetail(lk.obj), true))
		return true
	}
	// Still stale after the update: refresh it ourselves, unlocked.
	p.lk.obj.Close()
	p.lk.obj = nil
	return false
}

// expired handles a stale (or validate-always) entry: serve it while
// someone updates it, update it in the background, or revalidate it now.
func (c *Cache) expired(w http.ResponseWriter, r *http.Request, lk lookup, now time.Time) {
	m := lk.obj.Meta()
	updatingOK := c.staleAllowed(m, StaleUpdating, now)
	release, ok, err := c.store.TryLock(r.Context(), lk.key, c.lockAge)
	if err != nil {
		c.log.store("lock", lk.key, err)
		release, ok = func() {}, true
	}
	if !ok {
		if updatingOK {
			c.serveStored(w, r, lk.obj, m, now, StatusUpdating, c.cacheStatusHit(m, now, "updating", false))
			return
		}
		// proxy_cache_lock holds back the requests for a new entry only:
		// NGINX sends the others for an entry being updated upstream at
		// once, and stores what they get.
		c.forward(w, r, fillParams{lk: lk, status: StatusExpired, fwd: "stale", mayStore: true})
		return
	}
	// The fill lets the lock go as soon as it knows its answer will not
	// be stored, as NGINX frees the entry's updating mark then
	// (ngx_http_file_cache_free): later requests go upstream, or start
	// another background update, rather than being served the stale
	// entry as "updating" until the unstored answer ends.
	release = sync.OnceFunc(release)
	if updatingOK && (c.background || now.Before(m.FreshUntil.Add(m.StaleWhileRevalidate))) {
		c.startBackground(r, lk, release)
		c.serveStored(w, r, lk.obj, m, now, StatusStale, c.cacheStatusHit(m, now, "background-update", false))
		return
	}
	defer release()
	c.forward(w, r, fillParams{lk: lk, status: StatusExpired, fwd: "stale", mayStore: true, unlock: release})
}

// used counts a request for key towards proxy_cache_min_uses and reports
// whether the key has now been asked for often enough to be stored.
func (c *Cache) used(key string) bool {
	if c.uses == nil {
		return true
	}
	n, ok := c.uses.GetIfPresent(key)
	if !ok {
		n, _ = c.uses.SetIfAbsent(key, new(atomic.Int32))
	}
	return int(n.Add(1)) >= c.minUses
}

// onlyIfCached reports Cache-Control: only-if-cached on the request.
func onlyIfCached(r *http.Request) bool {
	if len(r.Header["Cache-Control"]) == 0 {
		return false
	}
	return parseCacheControl(r.Header).onlyIfCached
}

// gatewayTimeout answers 504, as RFC 9111 requires when a response cannot
// be had without the origin and the origin may not be asked (only-if-cached)
// or cannot be reached for a must-revalidate entry.
func (c *Cache) gatewayTimeout(w http.ResponseWriter, r *http.Request, status string) {
	c.publish(r, status)
	h := w.Header()
	h["Cache-Status"] = []string{c.cacheStatusForward("miss", 0, false, "gateway-timeout")}
	h["Content-Type"] = []string{"text/plain; charset=utf-8"}
	w.WriteHeader(http.StatusGatewayTimeout)
	_, _ = w.Write([]byte("504 Gateway Timeout\n"))
}

// publish reports the cache status as $upstream_cache_status and counts it.
func (c *Cache) publish(r *http.Request, status string) {
	vars.FromContext(r.Context()).Set("upstream_cache_status", status)
	c.stats.count(status)
}
