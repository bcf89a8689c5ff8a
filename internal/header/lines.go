package header

import (
	"net/http"
	"net/textproto"
	"strings"
	"unsafe"
)

// CutLine splits s after its first line, dropping the line's CRLF or LF.
func CutLine(s string) (line, rest string) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		line = s
	} else {
		line, rest = s[:i], s[i+1:]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// CutFieldLine is CutLine for a request header's field lines, whose
// end NGINX's parse finds as the LF after any number of CRs: it skips
// the CRs before CR LF, so "X: v\r\r\n" is "X: v". A CR elsewhere in a
// line stays, for the parse to refuse, and so does the last of a line
// of CRs alone: NGINX refuses "\r\r\n" where the empty line may come,
// it does not end the header, and it must not be taken as no line. It
// cuts the line itself rather than calling CutLine: the parse calls it
// for every field line.
func CutFieldLine(s string) (line, rest string) {
	line = s
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		line, rest = s[:i], s[i+1:]
	}
	n := len(line)
	if n > 0 && line[n-1] == '\r' {
		n--
		// The usual line ends here, after one test more than CutLine's;
		// of CRs alone, one stays (n > 1).
		for n > 1 && line[n-1] == '\r' {
			n--
		}
	}
	return line[:n], rest
}

// tokenChars marks the bytes allowed in a token (RFC 9110, section 5.6.2).
var tokenChars = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// IsToken reports whether s is an HTTP token (RFC 9110 section 5.6.2):
// a field name, a method, a list member such as a transfer coding. One
// table load a byte, four bytes a step without a branch between them:
// every response's field names pass here, and a test and branch on each
// byte cost two fifths more instructions.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	var bad uint8
	for len(s) >= 4 {
		bad |= notToken[s[0]] | notToken[s[1]] | notToken[s[2]] | notToken[s[3]]
		s = s[4:]
	}
	for i := 0; i < len(s); i++ {
		bad |= notToken[s[i]]
	}
	return bad == 0
}

// notToken is 1 for the bytes tokenChars lacks, for IsToken to or
// together.
var notToken = func() (t [256]uint8) {
	for c := range t {
		if !tokenChars[c] {
			t[c] = 1
		}
	}
	return t
}()

// CanonicalName checks that s is a token and returns it in canonical
// form (as textproto.CanonicalMIMEHeaderKey), without allocating when it
// already is, as most clients send names. Each byte costs two table
// loads (nameClass) where tests for a token byte and then for the case
// of a letter took a sixth more instructions. odd says s has a byte
// other than a letter, a digit or '-' (what ignore_invalid_headers may
// drop), which the same loads tell.
func CanonicalName(s string) (name string, ok, odd bool) {
	if commonName(s) {
		return s, true, false
	}
	if s == "" {
		return "", false, false
	}
	all, some := uint8(nameOK), uint8(0)
	upper := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		v := nameClass[0][c]
		if upper {
			v = nameClass[1][c]
		}
		all &= v
		some |= v
		upper = c == '-'
	}
	if all == 0 {
		return "", false, false
	}
	odd = some&nameOdd != 0
	if some&nameRecase == 0 {
		return s, true, odd
	}
	return textproto.CanonicalMIMEHeaderKey(s), true, odd
}

// commonName reports whether s is, byte for byte, one of the names
// nearly every client sends, in canonical case. Found by its length and
// then one comparison (the compiler compares a constant of a known length
// in a few loads), such a name skips CanonicalName's two table loads a
// byte: about 20 instructions where the loop over "User-Agent" took 100.
func commonName(s string) bool {
	switch len(s) {
	case 4:
		return s == "Host"
	case 6:
		return s == "Accept" || s == "Cookie"
	case 7:
		return s == "Referer"
	case 10:
		return s == "User-Agent" || s == "Connection"
	case 13:
		return s == "Cache-Control"
	case 15:
		return s == "Accept-Encoding" || s == "Accept-Language"
	}
	return false
}

// nameClass tells, for a byte of a header name inside a word ([0]) and
// at the start of one ([1]: first, or after '-'), 0 when it is not a
// token byte, else nameOK, with nameRecase where the canonical form
// changes its case and nameOdd where it is not a letter, a digit or '-'.
const (
	nameOK     = 1
	nameRecase = 2
	nameOdd    = 4
)

var nameClass = func() (t [2][256]uint8) {
	for c := range 256 {
		if !tokenChars[c] {
			continue
		}
		t[0][c], t[1][c] = nameOK, nameOK
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			t[0][c], t[1][c] = nameOK|nameOdd, nameOK|nameOdd
		}
		if 'A' <= c && c <= 'Z' {
			t[0][c] |= nameRecase
		}
		if 'a' <= c && c <= 'z' {
			t[1][c] |= nameRecase
		}
	}
	return t
}()

// Lines walks the field lines of an HTTP/1.x request as the client sent
// them, in their order and with their names' case, as NGINX passes a
// request's header to an upstream (its headers_in list), against the
// request's header map as it is now: the parse made the map from these
// lines, but the server and modules may have changed it since (names
// NGINX ignores taken out, a subrequest's copy without the body's
// fields, a field added), and what the map says wins.
//
// The text is kept rather than a list of the lines: the parse's list
// would grow every request's memory, which the collector pays for on
// every request, where walking the text again costs only the requests
// that pass their header on (an upstream's).
type Lines struct {
	text string // what is left to walk
	all  string // the whole text, for Rest
	h    http.Header
	// found counts the names of h that lines gave; rep, the lines met
	// so far of each name that took the slower way (several values in
	// h, or a value a module changed), the few there usually are; repAt
	// indexes rep once it is long, which a client's header of thousands
	// of such names makes it: no walk over it for each line.
	found int
	rep   []repeated
	repAt map[string]int
	// hostLater: a Host line is given as not in h without a lookup
	// (SkipHostLookup); hostSkipped, one was.
	hostLater, hostSkipped bool
}

// SkipHostLookup has Next give a line named Host, as sent, as one h does
// not hold, without looking it up: the parse never puts Host in the map,
// so the lookup is a miss (a hash of the name) on nearly every request.
// A module may have put it there since, with a value of its own; after
// the walk HostMissed tells, and the caller walks again without this.
func (l *Lines) SkipHostLookup() { l.hostLater = true }

// HostMissed reports, once Next has returned every line, whether a Host
// line went without its lookup (SkipHostLookup) while h holds Host: the
// line's value then was not h's. h is asked only when the lines did not
// give all its other names (GaveAll), which a Host in h would make them
// not do. (found is trusted only where rep is nil, as in GaveAll.)
func (l *Lines) HostMissed() bool {
	if !l.hostSkipped || l.GaveAll() {
		return false
	}
	_, in := l.h["Host"]
	return in
}

type repeated struct {
	key string
	n   int
}

// NewLines walks text, the lines after the request line (each ending
// with CRLF or LF, the empty line that ends the header left out, as the
// parse accepted them), against h, the request's header now.
func NewLines(text string, h http.Header) Lines {
	return Lines{text: text, all: text, h: h}
}

// Next returns the next line: its name as the client sent it, its
// canonical name (h's key) and its value. With mapped, the value is h's,
// the one at the line's place among its name's lines; without, h has no
// such name now (a field the parse keeps out of the map, Host and a
// chunked Transfer-Encoding, or one taken out since) and the value is
// the line's: the caller decides whether it goes. ok is false after the
// last line. The lines of a name beyond the values h holds for it now
// are left out: the first line of a name gives its first value.
func (l *Lines) Next() (name, key, value string, mapped, ok bool) {
	for l.text != "" {
		start := len(l.all) - len(l.text) // where the line starts
		// The parse accepted the text: each line is a name, then a
		// colon and a value, or, as NGINX takes a line without a colon,
		// the name alone, whose value is empty.
		var line string
		line, l.text = CutFieldLine(l.text)
		name, value, _ = strings.Cut(line, ":")
		if name == "" {
			break
		}
		value = TrimOWS(value)
		// Most clients send names in canonical case, which the map's
		// keys are: the name is looked up as sent first, and put in
		// canonical case only when it is not found so.
		key = name
		if l.hostLater && name == "Host" {
			l.hostSkipped = true
			return name, key, value, false, true
		}
		vv, in := l.h[key]
		if !in && name != "Host" { // every request's Host, never in the map as parsed
			if key, ok, _ = CanonicalName(name); !ok {
				// A name that is no token is a map key as sent, where
				// the parse keeps it (NGINX's invalid names): not in
				// the map now, the server's filter dropped it.
				continue
			}
			if key != name {
				vv, in = l.h[key]
			}
		}
		if !in {
			return name, key, value, false, true
		}
		i := l.repIndex(key) // len(l.rep): none there, as in the usual request
		if i == len(l.rep) && len(vv) == 1 && sameText(vv[0], value) {
			// The usual line: its name once in the map, with the value
			// the parse made of this very line. Equal text is not
			// enough: two lines of one value, made one by a module
			// (the cache's Accept-Encoding), would both pass.
			l.found++
			return name, key, vv[0], true, true
		}
		// A name of several lines, or whose value a module changed
		// (several lines joined into one, as ESI joins Cookie lines):
		// which of its values is this line's.
		if i == len(l.rep) {
			prev := 0
			if len(vv) == 1 && l.gaveBefore(key, vv[0], start) {
				prev = 1 // a line before this one took the way above, uncounted
			}
			l.addRep(key, prev)
			if prev == 0 {
				l.found++
			}
		}
		n := l.rep[i].n
		l.rep[i].n++
		if n < len(vv) {
			return name, key, vv[n], true, true
		}
		// h holds fewer values than the client sent lines.
	}
	l.text = ""
	return "", "", "", false, false
}

// sameText reports whether a and b are the same bytes in memory, not
// only equal: a value of the map is a line's own when the parse made it
// of that line. An empty value is no line's own.
func sameText(a, b string) bool {
	return len(a) == len(b) && len(a) > 0 && unsafe.StringData(a) == unsafe.StringData(b)
}

// repIndex is the place of key in rep, len(rep) when not there.
func (l *Lines) repIndex(key string) int {
	if l.repAt != nil {
		if i, ok := l.repAt[key]; ok {
			return i
		}
		return len(l.rep)
	}
	i := 0
	for i < len(l.rep) && l.rep[i].key != key {
		i++
	}
	return i
}

// repShort is how long rep grows before repAt indexes it.
const repShort = 8

func (l *Lines) addRep(key string, n int) {
	l.rep = append(l.rep, repeated{key: key, n: n})
	if l.repAt == nil && len(l.rep) > repShort {
		l.repAt = make(map[string]int, 2*len(l.rep))
		for i, r := range l.rep {
			l.repAt[r.key] = i
		}
	} else if l.repAt != nil {
		l.repAt[key] = len(l.rep) - 1
	}
}

// gaveBefore reports whether v, the one value h holds for key, lies in
// a line of key in the text before end (where the line being walked
// starts): with key not yet in rep, that line took the fast way of
// Next, uncounted. The line is found from where v lies in the text,
// without a walk over the lines before.
func (l *Lines) gaveBefore(key, v string, end int) bool {
	if v == "" {
		return false // an empty value never takes the fast way
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(l.all)))
	at := uintptr(unsafe.Pointer(unsafe.StringData(v))) - base // wraps round when v lies before the text
	if at >= uintptr(end) {
		return false // not the text's, or of the line being walked or after
	}
	start := strings.LastIndexByte(l.all[:at], '\n') + 1
	name, _, _ := strings.Cut(l.all[start:at], ":")
	k, ok := l.keyOf(name)
	return ok && k == key
}

// keyOf is the key of h that Next looks up for a line named name: the
// name as sent where h holds it so (a module may write a key raw, beside
// its canonical spelling), else its canonical form; ok is false for a
// name that is neither, no token. The slower ways (gaveBefore, rest) ask
// it, so that they count the very keys Next gave: by the canonical form
// alone, a raw key found by a line would be given again after the lines,
// and the canonical key never.
func (l *Lines) keyOf(name string) (key string, ok bool) {
	if _, in := l.h[name]; in {
		return name, true
	}
	key, ok, _ = CanonicalName(name)
	return key, ok
}

// Rest appends to fields what h holds that the lines did not give, once
// Next has returned them all: the fields a module added, sorted by name,
// and the values appended to a name the client sent (each such name
// with its values after its last line's). A key a line did not find
// is added, though another spelling of its name was sent (h["x-foo"]
// beside X-Foo): each value of each key goes once. Nothing, when h is
// as the parse made it, which is found without a walk over the map.
func (l *Lines) Rest(fields []Field) []Field {
	if l.GaveAll() {
		return fields // no name repeated, none added: the usual request
	}
	return l.rest(fields)
}

// GaveAll reports, once Next has returned every line, whether the lines
// gave every key of h, each from one line with its one value: the keys
// Next returned mapped are then all of h's. Without rep, every count in
// found is a line whose key's one value is that line's very text, so no
// key counts twice, and found reaching len(h) leaves none out. A name
// repeated, a value changed or a key of no values takes rep; a key the
// lines do not give (one a module added, a canonical key beside the
// spelling as sent that a line found) leaves found short.
func (l *Lines) GaveAll() bool { return l.rep == nil && l.found >= len(l.h) }

func (l *Lines) rest(fields []Field) []Field {
	more := false
	for _, r := range l.rep {
		if r.n < len(l.h[r.key]) {
			more = true
		}
	}
	if !more && l.found >= len(l.h) {
		return fields
	}
	sent := map[string]bool{}
	for rest := l.all; rest != ""; {
		var line string
		line, rest = CutFieldLine(rest)
		// A line without a colon is a name too, as Next takes it.
		name, _, _ := strings.Cut(line, ":")
		if key, ok := l.keyOf(name); ok {
			sent[key] = true
		}
	}
	start := len(fields)
	for k, vv := range l.h {
		if !sent[k] {
			fields = append(fields, Field{Name: k, Values: vv})
		}
	}
	SortFields(fields[start:])
	for _, r := range l.rep {
		if vv := l.h[r.key]; r.n < len(vv) {
			fields = append(fields, Field{Name: r.key, Values: vv[r.n:]})
		}
	}
	return fields
}
