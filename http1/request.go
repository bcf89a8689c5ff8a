package http1

import (
	"crypto/tls"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// requestError is a request the server refuses before any handler sees
// it; status is the response sent before the connection closes.
type requestError struct {
	status int
	msg    string
	// atEnd marks a check that NGINX makes once the header has ended,
	// after it has looked the server up again for the Host it read, or
	// for none (which, over TLS, leaves the server name's server for the
	// default server).
	atEnd bool
}

func (e *requestError) Error() string { return e.msg }

// fieldCap is how many header fields a request may have: NGINX's
// max_headers (Limits.MaxFields), which Debian's 1.22.1 has had since a
// security update. The header's bytes are bounded
// (large_client_header_buffers), but within 32 KB fit sixteen thousand
// fields of two bytes, each a map entry and a value to make. The field
// after the cap is refused with 494, NGINX's "Request Header Or Cookie
// Too Large", and the connection closed. NGINX counts a field once it has
// parsed it and kept it: not the names ignore_invalid_headers drops, which
// with the default settings are all but those of letters, digits and '-'
// (with underscores_in_headers on, names with '_' count; with
// ignore_invalid_headers off, every name the parse takes).
type fieldCap struct {
	// min is the smallest cap of the address's servers: below it no
	// server refuses, and the parse asks nothing; zero without of means
	// 1000.
	min int
	// of, when set, is Limits.FieldLimit, and tls the connection's state
	// to give it.
	of  func(host string, cs *tls.ConnectionState) FieldRule
	tls *tls.ConnectionState
}

// capOf returns the fields cap of l for a connection in state cs.
func capOf(l *Limits, cs *tls.ConnectionState) fieldCap {
	return fieldCap{min: l.MaxFields, of: l.FieldLimit, tls: cs}
}

// at returns the rule for the fields of r after a Host field (host, when
// seen) or an absolute-form target chose a server, else for those in the
// server the connection starts in. NGINX checks each line against the
// server in force when it reads it, so the lines before Host count
// against the first server's rule and the later ones against Host's.
func (c fieldCap) at(r *http.Request, host string, seen bool) FieldRule {
	if c.of == nil {
		return FieldRule{Max: c.min, Names: reqrule.HeaderNames{IgnoreInvalid: true}}
	}
	if t := r.RequestURI; t != "" && t[0] != '/' {
		// An absolute-form target chose the server at the request line,
		// and a Host field does not change it.
		if _, rest, ok := strings.Cut(t, "://"); ok {
			host, _, _ = strings.Cut(rest, "/")
			seen = true
		}
	}
	if !seen {
		host = ""
	}
	return c.of(host, c.tls)
}

// maxFields is max_headers' default, the cap of a request whose
// fieldCap names none.
const maxFields = 1000

var errTooManyFields = &requestError{status: StatusHeaderTooLarge, msg: "too many header lines"}

func badRequest(msg string) error { return &requestError{status: http.StatusBadRequest, msg: msg} }

// badHeader is badRequest for a check made once the header has ended.
func badHeader(msg string) error {
	return &requestError{status: http.StatusBadRequest, msg: msg, atEnd: true}
}

// reqMem is memory a request's parse fills instead of allocating: the
// URL of the usual origin-form target and the backing of the first
// header values. It comes with the request's exchange.
type reqMem struct {
	url  url.URL
	vals [8]string
	// oddNames says a field name has a byte other than a letter, a digit
	// or '-' (see PlainFieldNames).
	oddNames bool
}

// parseHead parses a request header block, the request line and the
// header fields without the empty line that ends them, into r. Lines end
// with CRLF or a bare LF (RFC 9112, section 2.2). Body framing is checked
// here too: r.ContentLength is the length of a length-delimited body, 0
// without a body and -1 for a chunked one. head is shared by every string
// that r keeps, so that the whole header costs one allocation; mem holds
// the URL and header values where they fit; fc caps the fields (the zero
// value with NGINX's default).
//
// A header refused leaves in r what NGINX had read of it when it refused
// it, which it answers and logs with (see Refusal): r.Header holds the
// fields before the refused line, the Host field among them as sent, and
// r.Host the host that chose the server, "" when none had.
func parseHead(head string, r *http.Request, mem *reqMem, fc fieldCap) error {
	line, rest := header.CutLine(head)
	shape, err := parseLine(line, r)
	if err != nil {
		return err
	}
	// A field line takes two bytes at least ("X" and LF, a name without
	// a colon): only a header longer than the smallest cap of them pays
	// for counting its fields.
	// The lines before the one too many are parsed, as NGINX parses them
	// before it counts that one, so that a bad line among them is
	// refused first.
	if fc.min <= 0 && fc.of == nil {
		fc.min = maxFields
	}
	tooMany := false
	if len(rest) > 2*fc.min {
		if end := fieldsEnd(rest, r, fc); end >= 0 {
			rest, tooMany = rest[:end], true
		}
	}
	odd, err := parseFields(rest, r, mem.vals[:], tooMany)
	mem.oddNames = odd
	if err != nil {
		// NGINX parses the target before the fields: a bad one was
		// refused before any field, and an absolute-form target's host
		// chose the server whatever the Host field says.
		fieldHost := r.Host
		r.Host = ""
		if parseTarget(r, shape, &mem.url) != nil {
			r.Header = nil
		} else if r.Host == "" {
			r.Host = fieldHost
		}
		return err
	}
	if err := parseTarget(r, shape, &mem.url); err != nil {
		r.Header, r.Host = nil, ""
		return err
	}
	return nil
}

// fieldsOf returns the field lines of head, which parseHead read whole:
// they follow the request line's LF.
func fieldsOf(head string) string {
	_, rest, _ := strings.Cut(head, "\n")
	return rest
}

// spacedLine returns head's request line where the parts parseHead read
// into r, joined by a space each, do not give it back: NGINX's parser
// takes several spaces between them, and its $request is the line as
// received. "" for the usual line, which the parts give.
func spacedLine(head string, r *http.Request) string {
	line, _ := header.CutLine(head)
	if len(line) == len(r.Method)+1+len(r.RequestURI)+1+len(r.Proto) {
		return ""
	}
	return line
}

// skipSpaces returns s without its leading spaces.
func skipSpaces(s string) string {
	for s != "" && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

// knownFields returns what NGINX knows of a request refused in the
// middle of its header (too large, not whole in time, cut by the client),
// head being the lines that came whole before, read with the fields cap
// fc of the connection: the fields, Host among them as sent, and the
// host that chose the server (see parseHead).
func knownFields(head string, fc fieldCap) (http.Header, string) {
	if head == "" {
		return nil, ""
	}
	var r http.Request
	if parseHead(head, &r, &reqMem{}, fc) == nil && r.Host != "" && r.URL.Host == "" {
		// Read whole, the Host field went out of the header, into r.Host.
		r.Header["Host"] = []string{r.Host}
	}
	return r.Header, r.Host
}

// parseLine parses a request line into r's method, target and protocol,
// and returns what it saw of the target for parseTarget; r.Method stays
// empty when the line is refused.
//
// As NGINX's parser, it takes several spaces where one separates the
// parts, and spaces after the version: "GET  /  HTTP/1.1 " is served,
// its version kept as written, the spaces after it included, as
// $server_protocol has them. Only spaces: a tab or another blank is
// refused, so the line splits the same for every reader that takes a
// space as the separator.
func parseLine(line string, r *http.Request) (targetShape, error) {
	method, target, ok := strings.Cut(line, " ")
	if !ok || !header.IsToken(method) {
		return targetShape{}, badRequest("invalid request line")
	}
	if target != "" && target[0] == ' ' {
		target = skipSpaces(target)
	}
	target, proto, ok := strings.Cut(target, " ")
	if !ok || target == "" {
		return targetShape{}, badRequest("invalid request line")
	}
	// NGINX refuses a target's control byte before it reads the version.
	shape, ok := scanTarget(target)
	if !ok {
		return targetShape{}, badRequest("invalid request target")
	}
	if proto != "" && proto[0] == ' ' {
		proto = skipSpaces(proto)
	}
	version := proto
	if i := strings.IndexByte(proto, ' '); i >= 0 {
		version = proto[:i]
		if skipSpaces(proto[i:]) != "" {
			// NGINX refuses what follows the version once it has read
			// the version: one it does not support is refused first.
			if _, status := parseVersion(version); status == http.StatusHTTPVersionNotSupported {
				return targetShape{}, versionError(method, target, version, status)
			}
			return targetShape{}, badRequest("invalid request line")
		}
	}
	switch version {
	case "HTTP/1.1":
		r.Proto, r.ProtoMajor, r.ProtoMinor = proto, 1, 1
	case "HTTP/1.0":
		r.Proto, r.ProtoMajor, r.ProtoMinor = proto, 1, 0
	default:
		minor, status := parseVersion(version)
		if status != 0 {
			return targetShape{}, versionError(method, target, version, status)
		}
		r.Proto, r.ProtoMajor, r.ProtoMinor = proto, 1, minor
	}
	r.Method, r.RequestURI = method, target
	return shape, nil
}

// versionError is the refusal of a request line whose version
// parseVersion refuses with status. NGINX reads the line from left to
// right: a method or a target it refuses is a 400 before the version is
// read.
func versionError(method, target, version string, status int) error {
	if status == http.StatusHTTPVersionNotSupported &&
		(reqrule.Method(method) == http.StatusBadRequest || target[0] != '/' && !lineAuthority(target)) {
		status = http.StatusBadRequest
	}
	if status == http.StatusHTTPVersionNotSupported {
		return &requestError{status: status, msg: "unsupported protocol version " + strconv.Quote(version)}
	}
	return badRequest("invalid protocol version")
}

// ParseLine parses a request line as this package's parse does, for a
// Refusal's Line read whole and valid: its method, target and version
// (r.Proto: the spaces after it kept), and the version's numbers
// (HTTP/1.01 is 1.1, HTTP/1.10 is 1.10); ok false for a line the parse
// refuses. The request made of a refused one then has the line's parts
// as its parse took them: net/http's http.ParseHTTPVersion takes one
// digit each, and a split at each space would miss the spaces NGINX
// takes between the parts.
func ParseLine(line string) (method, target, proto string, major, minor int, ok bool) {
	var r http.Request
	if _, err := parseLine(line, &r); err != nil {
		return "", "", "", 0, 0, false
	}
	return r.Method, r.RequestURI, r.Proto, r.ProtoMajor, r.ProtoMinor, true
}

// parseVersion reads a request line's version as NGINX's parser does, and
// returns its minor version, or the status that refuses it: "HTTP/", a
// major version whose first digit is 1 to 9, a dot, and a minor version
// of digits that NGINX takes while the number read so far is under 100
// (HTTP/1.01 is 1.1, HTTP/1.10 is 1.10; the line keeps the text, as
// $server_protocol does). A major version above 1 is a 505 as soon as
// its digits say so (HTTP/2.0, HTTP/10.0, HTTP/2x); anything else
// malformed is a 400 (HTTP/0.9, HTTP/1, HTTP/01.1, HTTP/1.1000).
func parseVersion(p string) (minor, status int) {
	rest, ok := strings.CutPrefix(p, "HTTP/")
	if !ok || rest == "" || rest[0] < '1' || rest[0] > '9' {
		return 0, http.StatusBadRequest
	}
	if rest[0] > '1' || len(rest) > 1 && '0' <= rest[1] && rest[1] <= '9' {
		return 0, http.StatusHTTPVersionNotSupported // 2 or more, or 1 then a digit: 10 or more
	}
	digits, ok := strings.CutPrefix(rest[1:], ".")
	if !ok || digits == "" {
		return 0, http.StatusBadRequest
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' || minor > 99 {
			return 0, http.StatusBadRequest
		}
		minor = minor*10 + int(c-'0')
	}
	return minor, 0
}

// targetShape is what one pass over a request target saw (scanTarget):
// plain says it is an origin-form target whose path url.ParseRequestURI
// takes as it is (plainTarget); query is where its '?' is, its length
// without one.
type targetShape struct {
	plain bool
	query int
}

// Classes of a target's bytes (targetBytes).
const (
	refusedByte  = 1 << iota // a control byte or a space: the target is refused
	notPlainByte             // not in plainChars: the path goes to url.ParseRequestURI
)

// targetBytes classes each byte for scanTarget: one table load a byte
// tells both what the line's check refuses and what the URL's fast path
// declines, which took a pass over the target each.
var targetBytes = func() (t [256]uint8) {
	for c := range 256 {
		if c <= ' ' || c == 0x7f {
			t[c] |= refusedByte
		}
		if !plainChars[c] {
			t[c] |= notPlainByte
		}
	}
	return t
}()

// scanTarget reports what a request target is made of in one pass; ok is
// false for a target with a control byte or a space, which NGINX refuses.
func scanTarget(t string) (s targetShape, ok bool) {
	q := strings.IndexByte(t, '?')
	if q < 0 {
		q = len(t)
	}
	var path, query uint8
	for i := 0; i < q; i++ {
		path |= targetBytes[t[i]]
	}
	for i := q; i < len(t); i++ {
		query |= targetBytes[t[i]]
	}
	if (path|query)&refusedByte != 0 {
		return targetShape{}, false
	}
	return targetShape{plain: t != "" && t[0] == '/' && path&notPlainByte == 0, query: q}, true
}

// parseFields reads the header fields into r.Header, takes Host out of
// it (into r.Host, as net/http does) and settles the body's framing. The
// values of the first names go in vals. odd says a name has a byte other
// than a letter, a digit or '-'. Refused, it leaves in r.Header
// the fields before the refused line, Host as sent among them, and in
// r.Host the first Host field when it was valid: NGINX chooses the
// server as soon as it reads a valid Host, and refuses a second one, an
// invalid one or any later bad line in the server the first chose.
// tooMany says rest ends before a field that is one too many (fieldsEnd):
// the lines before it parsed, the request is refused with 494.
func parseFields(rest string, r *http.Request, vals []string, tooMany bool) (odd bool, err error) {
	n := strings.Count(rest, "\n") + 1
	h := make(http.Header, n)
	if n > len(vals) {
		vals = make([]string, n) // one backing array for the usual one value per name
	}
	var host, cl, te string
	hosts := 0
	hasCL, hasTE, hasConn := false, false, false
	// The names met so far, while they are few: whether a line repeats
	// one is found by comparing with them, not by a lookup in the map,
	// which hashes the name and misses for nearly every line.
	var nameStack [8]string
	names := nameStack[:0]
	defer func() {
		if err == nil {
			return
		}
		r.Header, r.Host = h, ""
		if hosts > 0 {
			h["Host"] = []string{host}
			if validHost(host) || nginxHost(host) {
				r.Host = host
			}
		}
	}()
	for rest != "" {
		var line string
		line, rest = header.CutFieldLine(rest)
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return odd, badRequest("obsolete header line folding")
		}
		rawName, rawValue := nameValue(line)
		name, ok, oddName := header.CanonicalName(rawName)
		if !ok {
			// A name that is not a token is one NGINX refuses only when it
			// is empty or holds a space, a control byte or DEL; with other
			// bytes ('@', '"', '/', a byte above 0x7f) it is an invalid
			// name, dropped by ignore_invalid_headers (on by default) and
			// passed as sent without it. It is kept as sent, and marked
			// odd so that the server's name filter applies.
			if !nginxName(rawName) {
				return odd, badRequest("invalid header line")
			}
			name, oddName = rawName, true
		}
		odd = odd || oddName
		// A value is taken as NGINX takes it: the spaces around it
		// dropped, its tabs kept (RFC 9110's OWS would drop them too), so
		// that $http_*, a proxied line and a FastCGI parameter hold what
		// NGINX's would. The fields that frame the request and choose its
		// server then hold their tabs, as in NGINX: "Content-Length:\t5"
		// is invalid (400), "chunked\t" a coding it does not know (501);
		// taking them as OWS would read a body that a front end reading
		// them as NGINX does sends as the next request.
		value := trimSpaces(rawValue)
		if !validValue(value) {
			return odd, badRequest("invalid header value")
		}
		switch name {
		case "Host":
			// NGINX refuses a second Host, and an invalid one, at its line.
			if hosts > 0 {
				return odd, badRequest("more than one Host header")
			}
			host, hosts = value, 1
			// The host bytes' test first (inlined, the usual Host);
			// the server's reqrule.Host makes NGINX's other checks. An
			// empty Host ("Host:", or "Host" without a colon) NGINX
			// refuses at its line, in HTTP/1.0 too, where no Host at all
			// is served.
			if !validHost(host) && !nginxHost(host) || host == "" {
				return odd, badRequest("invalid Host header")
			}
			continue
		case "Content-Length":
			cl, hasCL = value, true
		case "Transfer-Encoding":
			te, hasTE = value, true
		case "Connection":
			hasConn = true
		}
		if header.Seen(h, names, name) {
			if header.Unique(name) {
				return odd, badRequest("duplicate " + name + " header")
			}
			h[name] = append(h[name], value)
			continue
		}
		if len(names) < cap(names) {
			names = append(names, name)
		}
		vals[0] = value
		h[name] = vals[:1:1]
		vals = vals[1:]
	}
	if tooMany {
		return odd, errTooManyFields
	}
	r.Header = h
	if hosts == 0 && r.ProtoMinor > 0 {
		return odd, badHeader("missing Host header")
	}
	r.Host = host

	// In NGINX's order, which decides the status when several apply: an
	// invalid Content-Length, then Transfer-Encoding in HTTP/1.0, a coding
	// other than chunked (501), and only then chunked with Content-Length.
	r.ContentLength = 0
	if hasCL {
		n, ok := parseLength(cl)
		if !ok {
			return odd, badHeader("invalid Content-Length")
		}
		r.ContentLength = n
	}
	if hasTE {
		if r.ProtoMinor == 0 {
			return odd, badHeader("Transfer-Encoding in an HTTP/1.0 request")
		}
		if !strings.EqualFold(te, "chunked") {
			return odd, &requestError{status: http.StatusNotImplemented, msg: "unsupported Transfer-Encoding", atEnd: true}
		}
		if hasCL {
			return odd, badHeader("both Content-Length and Transfer-Encoding")
		}
		delete(h, "Transfer-Encoding")
		r.TransferEncoding = []string{"chunked"}
		r.ContentLength = -1
	}
	// Without a Connection field (most requests) the version decides,
	// and the map need not be searched for one.
	r.Close = r.ProtoMinor == 0
	if hasConn {
		r.Close = shouldClose(r)
	}
	return odd, nil
}

// fieldsEnd returns the offset in head of the first field line past the
// cap fc gives (see fieldCap), or -1 when there is none. NGINX counts a
// line once it has parsed it well, and not one that
// ignore_invalid_headers drops; and it checks each line against the
// server in force when it reads it, so the rule changes once a Host field
// has chosen another server. Counting in parseFields' loop instead cost
// every request 5% more instructions (register pressure), for headers of
// ten lines; parseHead calls it only for a header long enough to hold
// more fields than the smallest cap.
func fieldsEnd(head string, r *http.Request, fc fieldCap) int {
	rule := fc.at(r, "", false)
	count, seen := 0, false
	for rest := head; rest != ""; {
		start := len(head) - len(rest)
		var line string
		line, rest = header.CutFieldLine(rest)
		rawName, rawValue := nameValue(line)
		name, ok, odd := header.CanonicalName(rawName)
		if !ok && !nginxName(rawName) || !validValue(trimSpaces(rawValue)) {
			continue // the parse refuses the line
		}
		if (!ok || odd) && !rule.Names.Keeps(rawName) {
			continue
		}
		if count++; count > rule.Max {
			return start
		}
		if name == "Host" && !seen {
			// The parse refuses a second Host, or an invalid one, at its
			// line: only the first can choose the server, for the lines
			// after it.
			seen = true
			rule = fc.at(r, trimSpaces(rawValue), true)
		}
	}
	return -1
}

// nameValue splits a field line at its first colon into the name and the
// value as sent. A line without a colon is, as NGINX's header parse takes
// it, a name with an empty value: "X-A" is "X-A:". The name's bytes are
// then checked as any name's (a space or a control byte refuses the
// line), and the empty value can frame nothing: an empty Content-Length
// or Host is refused and an empty Transfer-Encoding is a coding NGINX
// does not know (501), as with the colon.
func nameValue(line string) (name, value string) {
	if colon := strings.IndexByte(line, ':'); colon >= 0 {
		return line[:colon], line[colon+1:]
	}
	return line, ""
}

// nginxName reports whether NGINX's header parse takes s as a field
// name, valid or not: it is not empty and holds no byte up to a space nor
// DEL.
func nginxName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// trimSpaces drops the spaces around a field value, and only spaces, as
// NGINX's header parse does (tabs are part of the value there).
//
// Its loops are skipSpaces' and its own: a call to skipSpaces would cost
// it its inlining into parseFields, 5% of a header's parse.
func trimSpaces(s string) string {
	for s != "" && s[0] == ' ' {
		s = s[1:]
	}
	for s != "" && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// parseLength parses a Content-Length value as strconv.ParseUint(s, 10,
// 63) does: decimal digits only, no sign, at most 2^63-1. Up to 18
// digits cannot overflow and are summed in a loop, a fifth of
// ParseUint's instructions for the usual few digits (which every
// response with a length pays again, its handler having formatted the
// number as text); longer values take ParseUint, which checks overflow.
func parseLength(s string) (int64, bool) {
	if len(s) > 18 {
		n, err := strconv.ParseUint(s, 10, 63)
		return int64(n), err == nil
	}
	return header.Digits(s)
}

// parseTarget parses the request target into r.URL, which is u for the
// usual origin-form target. An absolute-form target, and a CONNECT
// request's authority, names the host itself, which wins over the Host
// header (RFC 9112, sections 3.2.2 and 3.2.3).
func parseTarget(r *http.Request, shape targetShape, u *url.URL) error {
	if r.Method == http.MethodConnect && !strings.HasPrefix(r.RequestURI, "/") {
		if !validAuthority(r.RequestURI) {
			return badRequest("invalid request target")
		}
		r.URL = &url.URL{Host: r.RequestURI}
		r.Host = r.RequestURI
		return nil
	}
	if plainTarget(r.RequestURI, shape, u) {
		r.URL = u
		return nil
	}
	if t := r.RequestURI; t[0] != '/' && strings.Contains(t, "://") && !lineAuthority(t) {
		return badRequest("invalid host in request line")
	}
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return badRequest("invalid request target")
	}
	r.URL = u
	if u.Host != "" {
		if !validHost(u.Host) {
			return badRequest("invalid request target")
		}
		if r.Host != "" {
			// The target's host wins; the Host field, kept in the header,
			// stays $http_host, as NGINX keeps it.
			r.Header["Host"] = []string{r.Host}
		}
		r.Host = u.Host
	}
	return nil
}

// lineAuthority reports whether an absolute-form target starts as NGINX's
// request-line parser takes it: a scheme (a letter, then letters, digits,
// '+', '-', '.'), "://", a host of letters, digits, '.' and '-' or an
// IPv6 literal in brackets, and an optional ':' and decimal port, up to
// the path, the query or the end. A Host field may hold more
// (ngx_http_validate_host takes '_', '%', '@'); the line may not, so
// "http://a_b/", "http://a%41/" and "http://u@a/" are 400 in NGINX, and
// a server must not be chosen by a name NGINX would have refused.
func lineAuthority(t string) bool {
	i := strings.Index(t, "://")
	if i <= 0 || !isLetter(t[0]) {
		return false
	}
	for j := 1; j < i; j++ {
		if c := t[j]; !isLetter(c) && !isDigit(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	a := t[i+3:]
	if end := strings.IndexAny(a, "/?"); end >= 0 {
		a = a[:end]
	}
	host, port := a, ""
	if strings.HasPrefix(a, "[") {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return false
		}
		for j := 1; j < end; j++ {
			if c := a[j]; !isLetter(c) && !isDigit(c) && !strings.ContainsRune(":.-_~!$&'()*+,;=", rune(c)) {
				return false
			}
		}
		host, port = "", a[end+1:]
	} else if j := strings.IndexByte(a, ':'); j >= 0 {
		host, port = a[:j], a[j:]
	}
	for j := 0; j < len(host); j++ {
		if c := host[j]; !isLetter(c) && !isDigit(c) && c != '.' && c != '-' {
			return false
		}
	}
	if port == "" {
		return true
	}
	return port[0] == ':' && strings.Trim(port[1:], "0123456789") == ""
}

func isLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// validAuthority reports whether s is a CONNECT request's target, the
// endpoint of a tunnel: a host name, an IPv4 address or an IPv6 address
// in brackets, and a port (RFC 9112, section 3.2.3). Percent-encoding has
// no use there (net/http's URL parser refuses it, or decodes an IPv6
// zone's "%25").
func validAuthority(s string) bool {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || port == "" || strings.Trim(port, "0123456789") != "" ||
		!validHost(s) || strings.IndexByte(s, '%') >= 0 {
		return false
	}
	if s[0] == '[' {
		addr, err := netip.ParseAddr(host)
		return err == nil && addr.Is6()
	}
	return !strings.ContainsAny(host, "[]")
}

// plainChars marks the bytes a path may hold for url.ParseRequestURI to
// take it as it is: no percent-encoding to undo, nothing it would escape
// again (so no RawPath).
var plainChars = func() (t [256]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/$&+,:;=@" {
		t[c] = true
	}
	return t
}()

// plainTarget parses the usual origin-form target, a plain path and a
// query, into u as url.ParseRequestURI would, with less work, from what
// scanTarget saw of t. It reports false, leaving u alone, for any other
// target.
func plainTarget(t string, shape targetShape, u *url.URL) bool {
	if !shape.plain {
		return false
	}
	path, query, hasQuery := t[:shape.query], "", shape.query < len(t)
	if hasQuery {
		query = t[shape.query+1:]
	}
	*u = url.URL{Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
	return true
}

// shouldClose reports whether the client asked for the connection to
// close after this request: when it said "close", and in HTTP/1.0 unless
// it asked to keep the connection alive.
func shouldClose(r *http.Request) bool {
	v := r.Header["Connection"]
	return header.HasToken(v, "close") || r.ProtoMinor == 0 && !header.HasToken(v, "keep-alive")
}

// validValue refuses the bytes NGINX refuses in a field value
// (ngx_http_parse_header_line): NUL, and a CR or LF inside it, with which
// a value would smuggle a line to whatever the request is passed on to.
// Other control bytes and DEL pass, as NGINX serves them (a browser's
// Cookie may hold a DEL). Eight bytes at a time are tested for any byte
// below 0x20 in a few word operations (the values are most of a
// request's bytes: a browser's User-Agent and Cookie); a word with one
// leaves the rest to the byte loop, which tells the refused ones apart.
func validValue(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for len(s) >= 8 {
		x := load8(s)
		// Nonzero exactly when some byte is below 0x20 (a borrow only
		// starts at such a byte, and a byte from 0x80 up has its high
		// bit cleared by ^x).
		if (x-0x20*ones)&^x&highs != 0 {
			break
		}
		s = s[8:]
	}
	var bad uint8
	for i := 0; i < len(s); i++ {
		bad |= ctlBytes[s[i]]
	}
	return bad == 0
}

// load8 is s's first eight bytes, the first the lowest (one load): the
// value tests look at a header's bytes eight at a time.
func load8(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// ctlBytes marks the bytes validValue refuses: one table load a byte, in
// place of three tests.
var ctlBytes = func() (t [256]uint8) {
	t[0], t['\r'], t['\n'] = 1, 1, 1
	return t
}()

// hostChars marks the bytes of a host and port (RFC 3986, section 3.2.2),
// the set net/http accepts in Host: a name's unreserved characters,
// sub-delims and percent-encoding, an IPv6 literal's brackets and colons,
// and the port's colon. Not '@', '#' or '/', with which a URL made from
// the Host (a redirect, a cache key) names another host, as
// "http://a.example@b.example/" does; nor bytes above 0x7f: a name that is
// not ASCII is sent as punycode.
var hostChars = func() (t [256]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=%:[]" {
		t[c] = true
	}
	return t
}()

// nginxHost reports whether NGINX takes s as a Host field
// (ngx_http_validate_host): it refuses two dots in a row, a '/', a space,
// a control byte or DEL, and a host that is empty once its port and one
// trailing dot are cut; every other byte passes ('@', '#', a byte above
// 0x7f), as it passes on to $host, a proxied line and a redirect. The
// port is what follows the first ':' outside an IPv6 literal's brackets.
func nginxHost(s string) bool {
	if strings.Contains(s, "..") {
		return false
	}
	hostLen := len(s)
	literal, inPort := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !hostLook[c] {
			continue // most bytes of most names: one load
		}
		switch c {
		case ':':
			if !literal && !inPort {
				hostLen, inPort = i, true
			}
		case '[':
			literal = literal || i == 0
		case ']':
			if literal && !inPort {
				hostLen, inPort = i+1, true
			}
		default: // '/', space, controls, DEL
			return false
		}
	}
	// One trailing dot goes, where it is the last dot of all (NGINX
	// keeps the last dot's place, the port's included).
	if hostLen > 0 && s[hostLen-1] == '.' && strings.LastIndexByte(s, '.') == hostLen-1 {
		hostLen--
	}
	return hostLen > 0
}

// hostLook marks the bytes nginxHost looks at: ':', '[', ']' and the
// refused ones ('/', space, controls, DEL).
var hostLook = func() (t [256]bool) {
	for c := range t {
		t[c] = c <= ' ' || c == 0x7f || strings.IndexByte("/:[]", byte(c)) >= 0
	}
	return t
}()

// validHost reports whether s holds only the bytes of a host and port. A
// Host field with others is refused with 400 (RFC 9112, section 3.2).
func validHost(s string) bool {
	for i := 0; i < len(s); i++ {
		if !hostChars[s[i]] {
			return false
		}
	}
	return true
}
