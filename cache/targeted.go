package cache

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// DefaultTargetedHeaders is the usual target list of RFC 9213, the
// default of proxy_cache_targeted_headers: the field addressed to every CDN
// cache.
var DefaultTargetedHeaders = []string{"CDN-Cache-Control"}

// passedTargeted is the targeted field that goes on to clients after this
// cache used it: CDN-Cache-Control addresses every CDN cache on the way
// (RFC 9213 section 3), and a second CDN downstream is one of them. Any
// other name on the target list addresses this cache alone and stops here.
const passedTargeted = "Cdn-Cache-Control"

// compileTargeted canonicalises the target list, and returns with it the
// fields of the list that clients do not get: all but CDN-Cache-Control
// and those of pass.
func compileTargeted(names, pass []string) (targeted, consumed []string) {
	for _, n := range names {
		n = http.CanonicalHeaderKey(n)
		targeted = append(targeted, n)
		if n != passedTargeted && !slices.ContainsFunc(pass, func(p string) bool { return http.CanonicalHeaderKey(p) == n }) {
			consumed = append(consumed, n)
		}
	}
	return targeted, consumed
}

// consumedTargeted reports a field that clients do not get. The stored
// copy keeps it: a revalidation that merges a 304 without it must still
// find the directives the response was stored under.
func (c *Cache) consumedTargeted(k string) bool {
	for _, t := range c.consumed {
		if t == k {
			return true
		}
	}
	return false
}

// surrogateControl is the Edge Architecture field that ESI's surrogate
// mode reads too (content="ESI/1.0"): a value without a cache directive
// speaks to the ESI processor only.
const surrogateControl = "Surrogate-Control"

// targetedCacheControl returns the directives of the first field of the
// target list that the response carries with a valid, non-empty value
// (RFC 9213 section 2.1). A field that does not parse as a Structured
// Field dictionary counts as absent, and so does an empty one, and a
// Surrogate-Control without a cache directive: content="ESI/1.0" alone
// gives no lifetime and must not set Cache-Control's max-age aside.
func (c *Cache) targetedCacheControl(h http.Header) (cacheControl, bool) {
	for _, name := range c.targeted {
		lines := h[name]
		if len(lines) == 0 {
			continue
		}
		cc, ok, known := parseTargeted(strings.Join(lines, ","))
		if ok && (known || name != surrogateControl) {
			return cc, true
		}
	}
	return cacheControl{}, false
}

// parseTargeted reads a targeted field value: a dictionary in the syntax of
// RFC 8941 whose members are Cache-Control directives. Directives with a
// value of the wrong type are ignored, except max-age and s-maxage, whose
// invalid values make the lifetime invalid (stale at once), as in
// Cache-Control. known reports a member that is a cache directive, not an
// extension.
func parseTargeted(v string) (cc cacheControl, ok, known bool) {
	cc = cacheControl{maxAge: -1, sMaxAge: -1, staleWhileRevalidate: -1, staleIfError: -1}
	members, ok := parseSFDictionary(v)
	if !ok || len(members) == 0 {
		return cc, false, false
	}
	for _, m := range members {
		switch m.key {
		case "max-age":
			sfDelta(&cc.maxAge, m, &cc.invalidMaxAge)
		case "s-maxage":
			sfDelta(&cc.sMaxAge, m, &cc.invalidMaxAge)
		case "stale-while-revalidate":
			var bad bool
			sfDelta(&cc.staleWhileRevalidate, m, &bad)
		case "stale-if-error":
			var bad bool
			sfDelta(&cc.staleIfError, m, &bad)
		case "no-store":
			cc.noStore = m.isTrue()
		case "public":
			cc.public = m.isTrue()
		case "must-revalidate":
			cc.mustRevalidate = m.isTrue()
		case "proxy-revalidate":
			cc.proxyRevalidate = m.isTrue()
		case "must-understand":
			cc.mustUnderstand = m.isTrue()
		case "no-cache":
			if m.kind == sfString {
				cc.noCacheFields = append(cc.noCacheFields, splitFieldNames(m.value)...)
			} else {
				cc.noCache = m.isTrue()
			}
		case "private":
			if m.kind == sfString {
				cc.privateFields = append(cc.privateFields, splitFieldNames(m.value)...)
			} else {
				cc.private = m.isTrue()
			}
		default:
			continue
		}
		known = true
	}
	return cc, true, known
}

// sfDelta sets *d from an Integer member; another type, a negative value,
// or a second occurrence marks it invalid.
func sfDelta(d *time.Duration, m sfMember, invalid *bool) {
	if m.kind != sfInteger {
		*invalid, *d = true, 0
		return
	}
	setDelta(d, m.value, invalid)
}

// The kinds of Structured Field bare items a targeted field's members can
// hold.
const (
	sfBoolean = iota
	sfInteger
	sfOther // decimal, token, byte sequence: no directive takes them
	sfString
)

// sfMember is one dictionary member; parameters are read and dropped.
type sfMember struct {
	key   string
	kind  int
	value string // integer digits, string content, "1"/"0" for booleans
}

func (m sfMember) isTrue() bool { return m.kind == sfBoolean && m.value == "1" }

// parseSFDictionary parses an RFC 8941 dictionary (section 4.2.2),
// reporting false on any syntax error. A later member with the same key
// replaces an earlier one, as the RFC says. Inner lists are read (no
// directive takes one: they count as values of the wrong type).
func parseSFDictionary(s string) ([]sfMember, bool) {
	p := sfParser{s: s}
	p.skip(" \t")
	var out []sfMember
	for p.i < len(p.s) {
		key, ok := p.key()
		if !ok {
			return nil, false
		}
		m := sfMember{key: key, kind: sfBoolean, value: "1"}
		if p.peek() == '=' {
			p.i++
			if p.peek() == '(' {
				m.kind, m.value, ok = sfOther, "", p.innerList()
			} else {
				m.kind, m.value, ok = p.bareItem()
			}
			if !ok {
				return nil, false
			}
		}
		if !p.params() {
			return nil, false
		}
		replaced := false
		for j := range out {
			if out[j].key == key {
				out[j], replaced = m, true
			}
		}
		if !replaced {
			out = append(out, m)
		}
		p.skip(" \t")
		if p.i == len(p.s) {
			return out, true
		}
		if p.peek() != ',' {
			return nil, false
		}
		p.i++
		p.skip(" \t")
		if p.i == len(p.s) {
			return nil, false // a trailing comma
		}
	}
	return out, true
}

type sfParser struct {
	s string
	i int
}

func (p *sfParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *sfParser) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// key reads lcalpha / "*" followed by lcalpha, digits, "_", "-", ".", "*".
func (p *sfParser) key() (string, bool) {
	start := p.i
	if c := p.peek(); !(c >= 'a' && c <= 'z') && c != '*' {
		return "", false
	}
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '*') {
			break
		}
	}
	return p.s[start:p.i], true
}

// innerList reads and drops "(item;params item ...)", without the
// parameters of the list itself, which the caller reads.
func (p *sfParser) innerList() bool {
	p.i++ // (
	for {
		p.skip(" ")
		if p.peek() == ')' {
			p.i++
			return true
		}
		if _, _, ok := p.bareItem(); !ok || !p.params() {
			return false
		}
		if c := p.peek(); c != ' ' && c != ')' {
			return false
		}
	}
}

// params reads and drops ";key[=item]" parameters.
func (p *sfParser) params() bool {
	for p.peek() == ';' {
		p.i++
		p.skip(" ")
		if _, ok := p.key(); !ok {
			return false
		}
		if p.peek() == '=' {
			p.i++
			if _, _, ok := p.bareItem(); !ok {
				return false
			}
		}
	}
	return true
}

// bareItem reads an integer, decimal, string, token, byte sequence or
// boolean.
func (p *sfParser) bareItem() (int, string, bool) {
	c := p.peek()
	switch {
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '"':
		return p.str()
	case c == '?':
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '0' || p.s[p.i+1] == '1') {
			v := p.s[p.i+1 : p.i+2]
			p.i += 2
			return sfBoolean, v, true
		}
		return 0, "", false
	case c == ':':
		end := strings.IndexByte(p.s[p.i+1:], ':')
		if end < 0 {
			return 0, "", false
		}
		for _, b := range []byte(p.s[p.i+1 : p.i+1+end]) {
			if !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=') {
				return 0, "", false
			}
		}
		p.i += end + 2
		return sfOther, "", true
	case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '*':
		start := p.i
		for p.i++; p.i < len(p.s); p.i++ {
			b := p.s[p.i]
			if b <= ' ' || b >= 0x7f || strings.IndexByte(`"(),;<=>?@[\]{}`, b) >= 0 {
				break
			}
		}
		return sfOther, p.s[start:p.i], true
	}
	return 0, "", false
}

// number reads an Integer (at most 15 digits) or a Decimal (at most 12
// integer and 3 fraction digits).
func (p *sfParser) number() (int, string, bool) {
	start := p.i
	neg := p.peek() == '-'
	if neg {
		p.i++
	}
	digits := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	n := p.i - digits
	if n == 0 {
		return 0, "", false
	}
	if p.peek() != '.' {
		if n > 15 {
			return 0, "", false
		}
		return sfInteger, p.s[start:p.i], true
	}
	if n > 12 {
		return 0, "", false
	}
	p.i++
	frac := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	if f := p.i - frac; f == 0 || f > 3 {
		return 0, "", false
	}
	return sfOther, p.s[start:p.i], true
}

// str reads a String: printable ASCII, with \" and \\ escapes.
func (p *sfParser) str() (int, string, bool) {
	var b strings.Builder
	for p.i++; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case c == '\\':
			p.i++
			if p.i == len(p.s) || (p.s[p.i] != '"' && p.s[p.i] != '\\') {
				return 0, "", false
			}
			b.WriteByte(p.s[p.i])
		case c == '"':
			p.i++
			return sfString, b.String(), true
		case c < 0x20 || c >= 0x7f:
			return 0, "", false
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", false
}
