package esi

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// maxVarRef bounds a $(...) reference: a longer candidate is text. It also
// bounds what the parser holds while a reference straddles two reads.
const maxVarRef = 1 << 10

// varScan recognises a variable reference one byte at a time, so that a
// reference split across reads is found exactly as an unsplit one:
//
//	"$(" name ["{" key "}"] ["|" default] ")"
//
// name is letters, digits and '_'; key is any printable bytes but the
// delimiters {}()<>$|'" and spaces; default is 'quoted' (any bytes but "'"
// and '<') or a bare word of the key's bytes. A '<' always breaks a
// reference, so one can never hide a tag.
type varScan struct {
	st varState
	n  int // bytes accepted so far
}

type varState uint8

const (
	vDollar varState = iota
	vParen
	vNameFirst
	vName
	vKey
	vAfterKey
	vDefault
	vQuoted
	vAfterQuoted
	vBare
)

// scan feeds b to the recogniser. tagDone: the reference ends after the
// returned count; tagBroken: the byte at the returned index does not fit,
// and the bytes before it are text; tagMore: all of b fitted.
func (s *varScan) scan(b []byte) (int, tagResult) {
	for i, c := range b {
		if s.n >= maxVarRef || c == '<' {
			return i, tagBroken
		}
		ok, done := s.step(c)
		if !ok {
			return i, tagBroken
		}
		s.n++
		if done {
			return i + 1, tagDone
		}
	}
	return len(b), tagMore
}

// step moves the state by one byte and says whether it fitted and whether
// it ended the reference.
func (s *varScan) step(c byte) (ok, done bool) {
	switch s.st {
	case vDollar:
		s.st = vParen
		return c == '$', false
	case vParen:
		s.st = vNameFirst
		return c == '(', false
	case vNameFirst:
		s.st = vName
		return isNameByte(c), false
	case vName:
		switch {
		case isNameByte(c):
		case c == '{':
			s.st = vKey
		default:
			return s.afterKey(c)
		}
		return true, false
	case vKey:
		switch {
		case c == '}':
			s.st = vAfterKey
		case !isBareByte(c):
			return false, false
		}
		return true, false
	case vAfterKey:
		return s.afterKey(c)
	case vDefault:
		switch {
		case c == '\'':
			s.st = vQuoted
		case c == ')':
			return true, true
		case isBareByte(c):
			s.st = vBare
		default:
			return false, false
		}
		return true, false
	case vQuoted:
		if c == '\'' {
			s.st = vAfterQuoted
		}
		return true, false
	case vAfterQuoted:
		return c == ')', c == ')'
	default: // vBare
		if c == ')' {
			return true, true
		}
		return isBareByte(c), false
	}
}

func (s *varScan) afterKey(c byte) (ok, done bool) {
	switch c {
	case ')':
		return true, true
	case '|':
		s.st = vDefault
		return true, false
	}
	return false, false
}

func isNameByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// isBareByte: the bytes of a key or an unquoted default.
func isBareByte(c byte) bool {
	if c <= ' ' || c == 0x7f {
		return false
	}
	switch c {
	case '{', '}', '(', ')', '<', '>', '$', '|', '\'', '"':
		return false
	}
	return true
}

// varRef is a parsed reference.
type varRef struct {
	name, key  string
	def        string
	hasKey     bool
	hasDefault bool
}

// parseVarRef splits a reference that varScan accepted.
func parseVarRef(b []byte) varRef {
	var r varRef
	b = b[2 : len(b)-1] // "$(" ... ")"
	n := 0
	for n < len(b) && isNameByte(b[n]) {
		n++
	}
	r.name, b = string(b[:n]), b[n:]
	if len(b) > 0 && b[0] == '{' {
		end := bytes.IndexByte(b, '}')
		r.key, r.hasKey, b = string(b[1:end]), true, b[end+1:]
	}
	if len(b) > 0 && b[0] == '|' {
		r.hasDefault = true
		def := b[1:]
		if len(def) >= 2 && def[0] == '\'' {
			def = def[1 : len(def)-1]
		}
		r.def = string(def)
	}
	return r
}

// variables answers the ESI variables of one request. It caches what it
// parses: it is used by the parsing goroutine only.
type variables struct {
	r       *http.Request
	query   url.Values
	cookies []*http.Cookie
	parsedQ bool
	parsedC bool
}

// knownVariable reports the names of ESI 1.0.
func knownVariable(name string) bool {
	switch name {
	case "HTTP_COOKIE", "QUERY_STRING", "HTTP_HOST", "HTTP_REFERER", "HTTP_USER_AGENT", "HTTP_ACCEPT_LANGUAGE":
		return true
	}
	return false
}

// value returns the value of a reference, its default when the value is
// empty, raw (unescaped).
func (v *variables) value(ref varRef) string {
	s := v.lookup(ref)
	if s == "" && ref.hasDefault {
		return ref.def
	}
	return s
}

func (v *variables) lookup(ref varRef) string {
	h := v.r.Header
	switch ref.name {
	case "HTTP_HOST":
		return v.r.Host
	case "HTTP_REFERER":
		return h.Get("Referer")
	case "HTTP_COOKIE":
		if !ref.hasKey {
			return strings.Join(h.Values("Cookie"), "; ")
		}
		if !v.parsedC {
			v.cookies, v.parsedC = v.r.Cookies(), true
		}
		for _, c := range v.cookies {
			if c.Name == ref.key {
				return c.Value
			}
		}
		return ""
	case "QUERY_STRING":
		if !ref.hasKey {
			return v.r.URL.RawQuery
		}
		if !v.parsedQ {
			// A malformed pair is skipped; the others stand.
			v.query, _ = url.ParseQuery(v.r.URL.RawQuery)
			v.parsedQ = true
		}
		return v.query.Get(ref.key)
	case "HTTP_USER_AGENT":
		ua := h.Get("User-Agent")
		if !ref.hasKey || ua == "" {
			return ua
		}
		return userAgent(ua, ref.key)
	case "HTTP_ACCEPT_LANGUAGE":
		al := strings.Join(h.Values("Accept-Language"), ",")
		if !ref.hasKey || al == "" {
			return al
		}
		if acceptsLanguage(al, ref.key) {
			return "true"
		}
		return "false"
	}
	return ""
}

// userAgent classifies a User-Agent the ESI 1.0 way: browser is MSIE,
// MOZILLA or OTHER; os is WIN, MAC, UNIX or OTHER; version is the
// browser's version number. Another key yields nothing.
func userAgent(ua, key string) string {
	msie := strings.Index(ua, "MSIE ")
	switch key {
	case "browser":
		switch {
		case msie >= 0 || strings.Contains(ua, "Trident/"):
			return "MSIE"
		case strings.HasPrefix(ua, "Mozilla/"):
			return "MOZILLA"
		}
		return "OTHER"
	case "os":
		switch {
		case strings.Contains(ua, "Windows") || strings.Contains(ua, "Win32") || strings.Contains(ua, "Win64"):
			return "WIN"
		case strings.Contains(ua, "Macintosh") || strings.Contains(ua, "Mac OS") || strings.Contains(ua, "Mac_PowerPC"):
			return "MAC"
		case strings.Contains(ua, "X11") || strings.Contains(ua, "Linux") || strings.Contains(ua, "BSD") ||
			strings.Contains(ua, "SunOS") || strings.Contains(ua, "Unix"):
			return "UNIX"
		}
		return "OTHER"
	case "version":
		switch {
		case msie >= 0:
			return leadingVersion(ua[msie+len("MSIE "):])
		case strings.Contains(ua, "Trident/"):
			if i := strings.Index(ua, "rv:"); i >= 0 {
				return leadingVersion(ua[i+len("rv:"):])
			}
			return ""
		}
		if _, rest, ok := strings.Cut(ua, "/"); ok {
			return leadingVersion(rest)
		}
	}
	return ""
}

// leadingVersion returns the digits and dots that s starts with.
func leadingVersion(s string) string {
	n := 0
	for n < len(s) && (s[n] >= '0' && s[n] <= '9' || s[n] == '.') {
		n++
	}
	return s[:n]
}

// acceptsLanguage reports whether an Accept-Language value names lang (or
// a subtag of it: "en" is accepted by "en-GB") with a non-zero weight.
// The wildcard "*" names no language in particular and does not count.
func acceptsLanguage(header, lang string) bool {
	for item := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(item, ";")
		tag = strings.TrimSpace(tag)
		if zeroWeight(params) {
			continue
		}
		if strings.EqualFold(tag, lang) ||
			len(tag) > len(lang) && tag[len(lang)] == '-' && strings.EqualFold(tag[:len(lang)], lang) {
			return true
		}
	}
	return false
}

// zeroWeight reports a "q=0" (or 0.0, 0.00, 0.000) among the parameters.
func zeroWeight(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			v = strings.TrimRight(strings.TrimSpace(v), "0")
			return v == "0" || v == "0." || v == ""
		}
	}
	return false
}

// substituteAttr replaces the well-formed references in an include's src
// or alt; anything else is copied as it is. Each value is percent-encoded
// but for the unreserved bytes of RFC 3986, so it cannot add a query
// parameter or a fragment. In the path (before the first '?' of s) the
// server decodes the value again before it resolves dot segments: a value
// that holds '/' or '\', or is "." or "..", could climb to another
// location, and is substituted as empty; refused reports that. A result
// longer than maxIncludeURL is no URL: it comes back empty, with long set.
func (v *variables) substituteAttr(s string) (out string, refused, long bool) {
	if !strings.Contains(s, "$(") {
		return s, false, false
	}
	var sb strings.Builder
	var auth authority
	inQuery := false
	from := 0 // the text since the previous reference starts here
	for i := 0; ; {
		k := strings.Index(s[i:], "$(")
		if k < 0 {
			sb.WriteString(s[from:])
			if sb.Len() > maxIncludeURL {
				return "", refused, true
			}
			return sb.String(), refused, false
		}
		i += k
		var vs varScan
		n, res := vs.scan([]byte(s[i:min(len(s), i+maxVarRef+1)]))
		if res != tagDone {
			i++
			continue
		}
		sb.WriteString(s[from:i])
		inQuery = inQuery || strings.Contains(s[from:i], "?")
		val := v.value(parseVarRef([]byte(s[i : i+n])))
		i += n
		from = i
		if !inQuery && (val == "." || val == ".." || strings.ContainsAny(val, "/\\")) {
			refused = true
			continue
		}
		// In the authority ("http://$(HTTP_HOST)/..."), the ':' of a port
		// and the brackets of an IPv6 literal stay: escaped, they make the
		// URL invalid, so that a Host with a port could never be
		// included. The authority is then still checked to be the
		// request's own (resolve).
		host := auth.at(sb.String())
		for j := 0; j < len(val); j++ {
			c := val[j]
			if isUnreserved(c) || host && (c == ':' || c == '[' || c == ']') {
				sb.WriteByte(c)
				continue
			}
			const hex = "0123456789ABCDEF"
			sb.WriteByte('%')
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&15])
		}
		if sb.Len() > maxIncludeURL {
			return "", refused, true
		}
	}
}

// maxIncludeURL bounds an include's src or alt once its variables are
// substituted. Values come from the client (a cookie, a header), and a
// tag may repeat them: each include of a page would otherwise hold a URL
// of megabytes (1,100 references to a 4 KiB cookie make 4.5 MB), all of
// them at once in the queue of a try's except. NGINX takes no client
// request line longer than its large_client_header_buffers, 8 KiB by
// default, either.
const maxIncludeURL = 8 << 10

// authority tells, of an include's URL as it is built, whether what
// follows lies in its authority: the URL starts with "//" or "scheme://",
// then no byte that ends the authority. The URL only grows, and each call
// looks at the bytes added since the last only: looking at the whole URL
// for each reference cost the square of its length, which values from the
// client make megabytes.
type authority struct {
	seen  int  // bytes of the URL looked at
	start int  // where the authority starts, 0 until "//" is found
	ended bool // the URL has no authority, or the authority has ended
}

// at reports whether what follows url, which extends the url of the last
// call, lies in its authority.
func (a *authority) at(url string) bool {
	if a.ended {
		return false
	}
	if a.start == 0 {
		from := max(0, a.seen-1) // a "//" across the two calls' bytes
		k := strings.Index(url[from:], "//")
		if k < 0 {
			a.seen = len(url)
			return false
		}
		k += from
		a.start, a.seen = k+2, k+2
		a.ended = !isSchemePrefix(url[:k])
	}
	a.ended = a.ended || strings.ContainsAny(url[a.seen:], "/?#")
	a.seen = len(url)
	return !a.ended
}

// isSchemePrefix reports whether scheme, what comes before the first "//"
// of a URL, is empty or a scheme and its ':'.
func isSchemePrefix(scheme string) bool {
	if scheme == "" {
		return true
	}
	name, colon := strings.CutSuffix(scheme, ":")
	if !colon || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

func isUnreserved(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
