package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// decision is what the cache makes of an upstream response: whether to
// store it, and its freshness when it does.
type decision struct {
	store  bool
	reason string // why not, for the Cache-Status detail parameter

	freshUntil     time.Time
	initialAge     time.Duration
	swr, sie       time.Duration
	mustRevalidate bool
	noCache        bool
	// strip are header fields to leave out of the stored copy
	// (no-cache="F", private="F", an ignored Set-Cookie).
	strip []string
	vary  []string
}

// decide applies, in NGINX's order, X-Accel-Expires, then Cache-Control
// and Expires, then proxy_cache_valid, with RFC 9111's rules for what a
// shared cache may store.
func (c *Cache) decide(r *http.Request, status int, h http.Header, reqTime, respTime time.Time) decision {
	var d decision
	// A 206 is stored as NGINX stores it, by the lifetime it is given
	// (proxy_cache_valid 206): only a key that names the range keeps it
	// apart from the rest of the representation, as the slice module's
	// "$slice_range" does; a request without "Range" set for the
	// upstream gets no 206 in the first place.
	if status < 200 || status == http.StatusNotModified {
		d.reason = "status"
		return d
	}
	if requestNoStore(r) {
		d.reason = "request-no-store"
		return d
	}

	// RFC 9111 section 4.2.3: the age the response already had on arrival,
	// from the origin's Date (date_value; the time of arrival when it has
	// none) and the Age it came with. The time of arrival is taken in the
	// whole seconds Date has: a Date of the same second is no age, not the
	// fraction of a second the origin's clock had run on.
	date, ok := fieldDate(h["Date"])
	if !ok {
		date = respTime
	}
	apparent := max(respTime.Truncate(time.Second).Sub(date), 0)
	d.initialAge = max(apparent, addSat(ageValue(h), respTime.Sub(reqTime)))

	explicit := false // a lifetime came from the response itself
	var lifetime time.Duration
	absolute := false // freshUntil set directly, Age not counted (X-Accel-Expires)

	if c.ignore&ignoreXAccelExpires == 0 {
		if v := strings.TrimSpace(h.Get("X-Accel-Expires")); v != "" {
			if at, ok := strings.CutPrefix(v, "@"); ok {
				// NGINX reads T with ngx_atoi, to which a sign is not a
				// number, and takes 0 for no time at all.
				if n, err := strconv.ParseInt(at, 10, 64); err == nil && n > 0 && at[0] != '+' {
					d.freshUntil, explicit, absolute = time.Unix(n, 0).Add(time.Second), true, true
				}
			} else if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && v[0] != '+' {
				// As for @T, a sign makes ngx_atoi refuse the number.
				if n == 0 {
					d.reason = "x-accel-expires"
					return d
				}
				d.freshUntil, explicit, absolute = wholeSeconds(respTime, seconds(n)), true, true
			}
		}
	}

	// RFC 9213: a targeted field (CDN-Cache-Control) replaces
	// Cache-Control and Expires for this cache.
	cc, targeted := c.targetedCacheControl(h)
	if !targeted {
		cc = cacheControl{maxAge: -1, sMaxAge: -1}
		if c.ignore&ignoreCacheControl == 0 {
			cc = parseCacheControl(h)
		}
	}
	// As in NGINX, X-Accel-Expires is the origin speaking to this cache
	// alone: when it sets a lifetime, Cache-Control is left to clients.
	if !absolute && (targeted || c.ignore&ignoreCacheControl == 0) {
		switch {
		case cc.mustUnderstand && !understoodStatus(status):
			d.reason = "must-understand"
			return d
		case cc.noStore && !cc.mustUnderstand:
			// RFC 9111 section 5.2.2.3: must-understand with a status
			// this cache implements overrides no-store.
			d.reason = "no-store"
			return d
		case cc.private:
			d.reason = "private"
			return d
		}
		d.strip = append(d.strip, cc.noCacheFields...)
		d.strip = append(d.strip, cc.privateFields...)
		d.mustRevalidate = cc.mustRevalidate || cc.proxyRevalidate || cc.sMaxAge >= 0
		d.noCache = cc.noCache
		d.swr, d.sie = max(cc.staleWhileRevalidate, 0), max(cc.staleIfError, 0)
		switch {
		case cc.invalidMaxAge, cc.noCache:
			explicit = true // stale at once
		case cc.sMaxAge >= 0:
			lifetime, explicit = cc.sMaxAge, true
		case cc.maxAge >= 0:
			lifetime, explicit = cc.maxAge, true
		}
	}

	// RFC 9111 section 3.5: a response to an authorized request is shared
	// only when the origin says so.
	if len(r.Header["Authorization"]) > 0 && !cc.public && !cc.mustRevalidate && cc.sMaxAge < 0 {
		d.reason = "authorization"
		return d
	}

	if !explicit && !targeted && c.ignore&ignoreExpires == 0 {
		if vv := h["Expires"]; len(vv) > 0 {
			explicit = true
			// An invalid Expires, or several, means already expired
			// (RFC 9111 section 5.3); one older than Date, too.
			if t, ok := fieldDate(vv); ok {
				lifetime = max(t.Sub(date), 0)
			}
		}
	}

	// RFC 9110 section 9.3.3: a POST response is reusable (by a GET of the
	// same URI) only with an explicit lifetime and a Content-Location
	// naming that URI. Only a lifetime the response gives and that leaves
	// it fresh on arrival counts: no-cache, an invalid max-age or an
	// Expires already past would store a POST answer for every GET to
	// revalidate, and X-Accel-Expires or proxy_cache_valid are no
	// statement that the answer is the resource's.
	reusable := explicit && !absolute && !d.noCache && lifetime > d.initialAge
	if r.Method == http.MethodPost && !c.cacheableMethod(r.Method) && (!reusable || !contentLocationIsTarget(r, h)) {
		d.reason = "method"
		return d
	}

	if len(h["Set-Cookie"]) > 0 {
		if c.ignore&ignoreSetCookie == 0 {
			d.reason = "set-cookie"
			return d
		}
		// NGINX would share the cookie with every client; the cache keeps
		// the response but not the cookie.
		d.strip = append(d.strip, "Set-Cookie")
	}

	if c.ignore&ignoreVary == 0 {
		var star bool
		if d.vary, star = parseVary(h); star {
			d.reason = "vary-star"
			return d
		}
		if varyTooLong(h) {
			d.reason = "vary-too-long"
			return d
		}
	}

	if !explicit {
		// proxy_cache_valid is the operator's lifetime and comes first;
		// the heuristic is for what it leaves out.
		ttl, ok := c.validFor(status)
		switch {
		case ok && ttl > 0:
			d.freshUntil, absolute = wholeSeconds(respTime, ttl), true
		case !ok && c.heuristic && (heuristicStatus(status) || cc.public):
			if lifetime, ok = heuristicLifetime(h, date); !ok {
				d.reason = "no-lifetime"
				return d
			}
		default:
			d.reason = "no-lifetime"
			return d
		}
	}
	if !absolute {
		d.freshUntil = respTime.Add(lifetime - d.initialAge)
	}

	// A response that is stale on arrival, or no-cache, is only worth
	// keeping when it can be revalidated; it is then validated before
	// every use.
	// An X-Accel-Expires time already past (the only absolute lifetime
	// that can be) is the exception: NGINX stores the response expired,
	// so the next request finds it EXPIRED, and it may be served stale.
	if d.noCache || (!absolute && !d.freshUntil.After(respTime)) {
		if !c.revalidate || (len(h["Etag"]) == 0 && len(h["Last-Modified"]) == 0) {
			d.reason = "stale-on-arrival"
			if d.noCache {
				d.reason = "no-cache"
			}
			return d
		}
		d.noCache = true
	}

	if c.noCache != nil && c.noCache(r, status, h) {
		d.reason = "no-cache-predicate"
		return d
	}
	d.store = true
	return d
}

// wholeSeconds is when an entry valid for d from t (X-Accel-Expires N,
// proxy_cache_valid) goes stale on NGINX's clock, which counts whole
// seconds: valid_sec = ngx_time() + N, and the entry is stale only once
// valid_sec < ngx_time(), so it is fresh through the whole second in
// which it runs out: between N and N+1 seconds in all. (X-Accel-Expires
// @T is fresh through second T alike.) A lifetime that is not whole
// seconds, which only the Go API can give, is kept as it is.
func wholeSeconds(t time.Time, d time.Duration) time.Time {
	if d%time.Second != 0 {
		return t.Add(d)
	}
	return t.Truncate(time.Second).Add(addSat(d, time.Second))
}

// validFor is the proxy_cache_valid time for a status.
func (c *Cache) validFor(status int) (time.Duration, bool) {
	if ttl, ok := c.valid[status]; ok {
		return ttl, true
	}
	return c.validAny, c.hasValidAny
}

// requestNoStore reports Cache-Control: no-store on the request, which
// RFC 9111 section 5.2.1.5 forbids storing the response of.
func requestNoStore(r *http.Request) bool {
	for _, line := range r.Header["Cache-Control"] {
		for line != "" {
			var item string
			item, line = nextListItem(line)
			if strings.EqualFold(item, "no-store") {
				return true
			}
		}
	}
	return false
}

// staleAllowed reports whether a stale entry may be served under the
// given condition: never for must-revalidate or no-cache entries, else
// when proxy_cache_use_stale lists it or an RFC 5861 window is open.
func (c *Cache) staleAllowed(m *Meta, cond UseStale, now time.Time) bool {
	if m.MustRevalidate || m.NoCache || cond == 0 {
		return false
	}
	if c.useStale&cond != 0 {
		return true
	}
	switch {
	case cond == StaleUpdating:
		return now.Before(m.FreshUntil.Add(m.StaleWhileRevalidate))
	case cond&staleIfErrorConditions != 0:
		return now.Before(m.FreshUntil.Add(m.StaleIfError))
	}
	return false
}
