package cache

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Options configure one cached location. Each field is one proxy_cache_*
// directive (see README.md for the table); the zero value of every field
// but Store is NGINX's default.
type Options struct {
	// Store is the zone (proxy_cache NAME, defined by proxy_cache_path).
	Store Store
	// Name names the cache in the Cache-Status header (RFC 9211); "" means
	// "mosaic".
	Name string

	// Key is proxy_cache_key. nil means $scheme$host$request_uri, the
	// default of NGINX with the client's Host in place of $proxy_host.
	Key func(r *http.Request) string
	// Methods is proxy_cache_methods; nil means GET and HEAD. HEAD is always
	// looked up under the GET key and filled with a GET, as NGINX's default
	// proxy_cache_convert_head on does.
	Methods []string
	// MinUses is proxy_cache_min_uses: a response is stored once its key has
	// been asked for this many times (counted in this process). 0 means 1.
	MinUses int
	// Bypass is proxy_cache_bypass: when it reports true the response is
	// not taken from the cache, but it may be stored.
	Bypass func(r *http.Request) bool
	// NoCache is proxy_no_cache: when it reports true the response is not
	// stored. It sees the upstream's status and header.
	NoCache func(r *http.Request, status int, header http.Header) bool
	// Valid is the list of proxy_cache_valid directives, in order.
	Valid []Valid

	// Lock is proxy_cache_lock, LockTimeout proxy_cache_lock_timeout and
	// LockAge proxy_cache_lock_age (both 5s when 0). A negative LockTimeout
	// sends a request that finds the lock held upstream at once, its
	// response not stored (NGINX's "proxy_cache_lock_timeout 0").
	Lock        bool
	LockTimeout time.Duration
	LockAge     time.Duration

	// UseStale is proxy_cache_use_stale (see ParseUseStale).
	UseStale UseStale
	// BackgroundUpdate is proxy_cache_background_update.
	BackgroundUpdate bool
	// Revalidate is proxy_cache_revalidate: expired entries with an ETag or
	// Last-Modified are refreshed with a conditional request.
	Revalidate bool
	// IgnoreHeaders is proxy_ignore_headers: any of X-Accel-Expires,
	// Expires, Cache-Control, Set-Cookie and Vary (case-insensitive).
	IgnoreHeaders []string

	// TargetedHeaders is the target list of RFC 9213
	// (proxy_cache_targeted_headers): the first of these fields that a
	// response carries with a valid value decides its caching in place of
	// Cache-Control and Expires. Every name but CDN-Cache-Control is
	// removed from what clients get. nil reads none, as NGINX; the server's
	// directive defaults to DefaultTargetedHeaders (CDN-Cache-Control).
	TargetedHeaders []string
	// Heuristic is proxy_cache_heuristic: a response without an explicit
	// lifetime or a proxy_cache_valid time, with Last-Modified and a
	// heuristically cacheable status, is fresh for a tenth of the time since
	// it was last modified, at most HeuristicMax (RFC 9111 section 4.2.2).
	// false is NGINX's behaviour (the server's directive defaults to on).
	Heuristic bool
	// Transformed reports whether a filter around the cache rebuilds the
	// body of a response of this Content-Type (SSI): the stored
	// response's byte offsets then describe none of what the client
	// gets, so a Range request is answered with the whole response, as
	// static.Options.Transformed does for files; nor does such a response
	// name its stored body (PublishBodyID). nil: no type is.
	Transformed func(contentType string) bool
	// PassTargeted names fields of TargetedHeaders that go on to the
	// handler around the cache although this cache used them: a filter
	// that reads them and removes them itself (ESI's surrogate mode reads
	// Surrogate-Control). CDN-Cache-Control always goes on.
	PassTargeted []string
	// PostReuse is proxy_cache_post_reuse: a POST response with a positive
	// explicit lifetime and a Content-Location naming the request's URI is
	// stored for the GETs of that URI (RFC 9110 section 9.3.3). It costs
	// each POST a store round trip; false (NGINX's behaviour) sends a POST
	// upstream untouched, and its success only invalidates the URI.
	PostReuse bool
	// MaxRanges limits the ranges a stored response answers (max_ranges),
	// as static.Options.MaxRanges does for files: 0 means no limit, a
	// request with more than n > 0 ranges gets the whole response, and a
	// negative value turns ranges off.
	MaxRanges int
	// LimitRangeOffset turns MaxRangeOffset on
	// (proxy_cache_max_range_offset): a range request that the cache
	// does not answer from a stored response, and whose first range
	// starts at MaxRangeOffset or past it (or counts from the end), goes
	// upstream with its Range and If-Range, and the response is not
	// stored. With MaxRangeOffset 0 every range request is such.
	LimitRangeOffset bool
	MaxRangeOffset   int64
	// PublishBodyID names the body of each stored response served, in the
	// request variable BodyIDVar, for a processor after the cache that
	// keys what it derives from a body on it (ESI's parse plans), unless
	// its type is Transformed. Off, a hit does no such work.
	PublishBodyID bool
	// TagHeaders name the response fields whose values are purge tags; nil
	// means Surrogate-Key (space-separated) and Cache-Tag
	// (comma-separated). KeepTagHeaders passes them to clients, which do
	// not see them otherwise.
	TagHeaders     []string
	KeepTagHeaders bool

	// Conditions is how a 200 that the cache serves (a hit, a stale or
	// revalidated entry, or the answer that fills it) answers the
	// client's If-None-Match, If-Modified-Since, If-Match and
	// If-Unmodified-Since. The zero value, ConditionsRFC, is RFC 9111's
	// cache: If-None-Match decides alone, else If-Modified-Since against
	// Last-Modified or Date, and no 412. The others are NGINX's
	// not-modified filter, with if_modified_since exact, before or off.
	Conditions Conditions
	// Subrequest reports a request that the server issued for another
	// (an include, auth_request): NGINX's filter answers the main
	// request only, and under the NGINX Conditions a subrequest's are
	// not answered. nil: no request is one.
	Subrequest func(r *http.Request) bool
	// Error writes the 412 of NGINX's conditions (the place for
	// error_page), with an empty response header, and the 416 of a
	// refused range, with the stored header and its Content-Range. nil
	// writes NGINX's small HTML page for the 412, a short text for the
	// 416.
	Error func(w http.ResponseWriter, r *http.Request, status int)

	// Stats receives the counters; several handlers of one zone may share
	// one. nil gives the handler its own.
	Stats *Stats
	// Logger receives store errors (rate-limited); nil means slog.Default().
	Logger *slog.Logger
}

// Conditions selects how the cache answers conditional requests; see
// Options.Conditions.
type Conditions uint8

const (
	// ConditionsRFC evaluates If-None-Match, or failing that
	// If-Modified-Since, as RFC 9111 section 4.3.2 has a cache do.
	ConditionsRFC Conditions = iota
	// ConditionsNGINX evaluates them as NGINX's not-modified filter
	// does on a response from its cache: If-Unmodified-Since and
	// If-Match (412), then a 304 only when each of If-Modified-Since
	// (equal to Last-Modified: if_modified_since exact) and
	// If-None-Match present holds.
	ConditionsNGINX
	// ConditionsNGINXBefore is ConditionsNGINX with if_modified_since
	// before: a Last-Modified at or before If-Modified-Since holds.
	ConditionsNGINXBefore
	// ConditionsNGINXOff is ConditionsNGINX with if_modified_since off:
	// an If-Modified-Since never holds.
	ConditionsNGINXOff
)

// Valid is one proxy_cache_valid directive: responses with one of Codes
// (nil means 200, 301 and 302) or, with Any, any status are fresh for TTL
// when the upstream gives no lifetime of its own. A TTL of 0 means "not
// cached".
type Valid struct {
	Codes []int
	Any   bool
	TTL   time.Duration
}

// UseStale is the set of proxy_cache_use_stale conditions under which a
// stale entry is served.
type UseStale uint16

// The proxy_cache_use_stale parameters.
const (
	StaleError UseStale = 1 << iota
	StaleTimeout
	StaleInvalidHeader
	StaleUpdating
	StaleHTTP500
	StaleHTTP502
	StaleHTTP503
	StaleHTTP504
	StaleHTTP403
	StaleHTTP404
	StaleHTTP429
)

var useStaleWords = map[string]UseStale{
	"error": StaleError, "timeout": StaleTimeout, "invalid_header": StaleInvalidHeader,
	"updating": StaleUpdating, "http_500": StaleHTTP500, "http_502": StaleHTTP502,
	"http_503": StaleHTTP503, "http_504": StaleHTTP504, "http_403": StaleHTTP403,
	"http_404": StaleHTTP404, "http_429": StaleHTTP429,
}

// ParseUseStale turns the arguments of proxy_cache_use_stale into a set.
// "off", alone or beside other words, is the empty set. As NGINX's
// bitmask values, the words ignore case.
func ParseUseStale(args []string) (UseStale, error) {
	var u UseStale
	off := false
	for _, a := range args {
		// "off" is one of the bitmask's values in NGINX, which it lets
		// stand beside the others and which turns them all off.
		if strings.EqualFold(a, "off") {
			off = true
			continue
		}
		f, ok := useStaleWords[strings.ToLower(a)]
		if !ok {
			return 0, fmt.Errorf("invalid value %q in proxy_cache_use_stale", a)
		}
		u |= f
	}
	if off {
		return 0, nil
	}
	return u, nil
}

// statusStale maps an upstream status to its use_stale condition.
func statusStale(status int) UseStale {
	switch status {
	case 500:
		return StaleHTTP500
	case 502:
		return StaleHTTP502
	case 503:
		return StaleHTTP503
	case 504:
		return StaleHTTP504
	case 403:
		return StaleHTTP403
	case 404:
		return StaleHTTP404
	case 429:
		return StaleHTTP429
	}
	return 0
}

// staleIfErrorConditions are the failures for which RFC 5861's
// stale-if-error allows a stale response: errors and 5xx statuses.
const staleIfErrorConditions = StaleError | StaleTimeout | StaleInvalidHeader |
	StaleHTTP500 | StaleHTTP502 | StaleHTTP503 | StaleHTTP504

// ignore flags for proxy_ignore_headers.
type ignoreSet uint8

const (
	ignoreXAccelExpires ignoreSet = 1 << iota
	ignoreExpires
	ignoreCacheControl
	ignoreSetCookie
	ignoreVary
)

// CheckIgnoreHeaders reports the first name that Options.IgnoreHeaders
// does not accept, as New would; a configuration checks its
// proxy_ignore_headers with it when it reads the directive.
func CheckIgnoreHeaders(names []string) error {
	_, err := parseIgnore(names)
	return err
}

func parseIgnore(names []string) (ignoreSet, error) {
	var s ignoreSet
	for _, n := range names {
		switch strings.ToLower(n) {
		case "x-accel-expires":
			s |= ignoreXAccelExpires
		case "expires":
			s |= ignoreExpires
		case "cache-control":
			s |= ignoreCacheControl
		case "set-cookie":
			s |= ignoreSetCookie
		case "vary":
			s |= ignoreVary
		case "x-accel-redirect", "x-accel-limit-rate", "x-accel-buffering", "x-accel-charset":
			// NGINX accepts these; they concern the proxy, not the cache.
		default:
			return 0, fmt.Errorf("invalid value %q in proxy_ignore_headers", n)
		}
	}
	return s, nil
}

// tagHeader is one configured tag field and how its values split.
type tagHeader struct {
	name  string
	comma bool
}

func compileTagHeaders(names []string) []tagHeader {
	if names == nil {
		return []tagHeader{{name: "Surrogate-Key"}, {name: "Cache-Tag", comma: true}}
	}
	out := make([]tagHeader, 0, len(names))
	for _, n := range names {
		c := http.CanonicalHeaderKey(n)
		out = append(out, tagHeader{name: c, comma: c != "Surrogate-Key"})
	}
	return out
}

// compileValid flattens the proxy_cache_valid list into a lookup by status
// plus the "any" duration, keeping NGINX's rule that the first directive
// naming a status, or "any", wins.
func compileValid(rules []Valid) (map[int]time.Duration, time.Duration, bool, error) {
	byStatus := map[int]time.Duration{}
	var anyTTL time.Duration
	hasAny := false
	for _, v := range rules {
		if v.TTL < 0 {
			return nil, 0, false, fmt.Errorf("negative time in proxy_cache_valid")
		}
		if v.Any {
			if !hasAny {
				anyTTL, hasAny = v.TTL, true
			}
			continue
		}
		codes := v.Codes
		if codes == nil {
			codes = []int{200, 301, 302}
		}
		for _, c := range codes {
			if c < 100 || c > 599 {
				return nil, 0, false, fmt.Errorf("invalid status %d in proxy_cache_valid", c)
			}
			// NGINX walks the directives in order and "any" matches
			// every status: a code named after it is never reached.
			if _, ok := byStatus[c]; !ok && !hasAny {
				byStatus[c] = v.TTL
			}
		}
	}
	return byStatus, anyTTL, hasAny, nil
}
