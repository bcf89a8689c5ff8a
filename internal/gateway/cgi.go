package gateway

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// HiddenHeaders are the response headers NGINX's FastCGI and uwsgi modules
// do not pass to the client by default: the CGI Status, which became the
// status line, and the X-Accel-* instructions meant for the server.
var HiddenHeaders = []string{
	"Status", "X-Accel-Expires", "X-Accel-Redirect", "X-Accel-Limit-Rate",
	"X-Accel-Buffering", "X-Accel-Charset",
}

// ErrInvalidHeader is wrapped by ReadHeaderInto's errors for a head that
// does not parse; NGINX answers 502 and logs "upstream sent invalid
// header".
var ErrInvalidHeader = errors.New("upstream sent invalid header")

// ErrHeaderTooBig is returned by ReadHeaderInto for a head over its limit.
var ErrHeaderTooBig = errors.New("upstream sent too big header")

// ProtocolError is a Wire's framing error that NGINX logs in words of its
// own rather than as an invalid header (FastCGI's version, record type
// and request id): the proxy writes Error's text as the error-log line.
// Err is the package's sentinel, for errors.Is.
type ProtocolError struct {
	Err    error
	Detail string // what follows the sentinel's text: ": 2"
}

func (e *ProtocolError) Error() string { return e.Err.Error() + e.Detail }

func (e *ProtocolError) Unwrap() error { return e.Err }

// Head is a response head as ReadHeaderInto reads it: the Response, room
// for the values of a head of a few lines, and what the parse noted. It
// is allocated by the caller, with what holds it (FastCGI's body reader),
// so that the values need no allocation of their own. A Head is filled
// once: the Response's header values are pieces of it.
type Head struct {
	Response http.Response
	// One value slot per line of a head of up to len(slots) lines: a
	// name's first value is a one-element piece of them, which a second
	// value of that name reallocates.
	slots [8]string
	// note is what the parse noted of the names; nil before a parse.
	// One pointer, not its fields, keeps FastCGI's body reader, which
	// holds the Head, in its size class (fastcgi's TestStdoutSize).
	note *headNote
}

// headNote is what a parse notes of a head's names: the names it spells
// otherwise than their keys (Spellings). A head without them, the usual
// case, points at one of two shared notes, which costs no allocation,
// and which of them says whether it is plain (Plain).
type headNote struct {
	spell []string
}

var (
	plainNote   = &headNote{}
	relayedNote = &headNote{}
)

// Plain reports that the head has no Connection field, no field whose
// name starts with "X-Accel-", which a relaying server acts on, and no
// name to send as written (Spellings): such a head (PHP's usual) is
// relayed without looking them up, and a relay needs to ask for nothing
// else.
func (h *Head) Plain() bool { return h.note == plainNote }

// Spellings returns the head's field names as the application wrote
// them where the header holds them in canonical case ("x-thing" for
// "X-Thing"), as header.LineSpellings lists them, for a writer that
// sends them so, as NGINX relays them; nil when there is none (PHP's
// "Content-type" is none: NGINX writes that field under its own name).
func (h *Head) Spellings() []string {
	if h.note == nil {
		return nil
	}
	return h.note.spell
}

// ReadHeaderInto reads a CGI response head from br into h: header lines
// ending with LF or CRLF up to an empty line. The status is the Status
// header's first three digits, else 302 when there is a Location header,
// else 200, as NGINX's FastCGI module sets it; the Status header stays in
// the header (HiddenHeaders keeps it from the client). With statusLine, a
// first line "HTTP/x.y NNN text" gives the status instead, as uwsgi
// applications may send. max bounds the head's size (0: 64 KiB).
//
// h.Response has no Body; the caller reads the body from br. Its
// ContentLength is the Content-Length header's value, or -1. The caller
// allocates h (FastCGI's with the body reader that holds it, in one
// allocation). h is overwritten but for Response.Request, which the
// caller may set first: a reader that logs what the application says
// while the head comes in finds the request there, and needs no field of
// its own for it. On an error h's content is undefined.
//
// The head is copied into one string that every name and value is a
// piece of, straight from br's buffer when that holds the whole head,
// else gathered line by line first; a name as applications write it
// (PHP's "Content-type") is looked up among the common ones before it is
// made canonical, so that a usual head costs a handful of allocations,
// not several per line.
func ReadHeaderInto(h *Head, br *bufio.Reader, statusLine bool, max int) error {
	max = h.start(max)
	var spanStack [16]fieldSpan // (zeroed on each call: kept small)
	p := headParse{resp: &h.Response, statusLine: statusLine}
	text, spans, ok, err := p.buffered(br, max, spanStack[:0])
	if err == nil && !ok {
		h.Response.StatusCode, h.Response.Status = 0, "" // (a status line's, noted on the way)
		p = headParse{resp: &h.Response, statusLine: statusLine}
		text, spans, err = p.read(br, max, spanStack[:0])
	}
	if err != nil {
		return err
	}
	return h.fill(text, spans)
}

// ParseHeadInto is ReadHeaderInto for a head that lies in b, for a reader
// that knows where its stream's bytes are before they are read (FastCGI's
// first STDOUT record in the connection's buffer): the head is parsed
// where it lies, as ReadHeaderInto parses a head its reader's buffer
// holds, and n is how many of b's bytes it took, its end line included.
// ok is false, with nothing parsed, when b ends before the head does (or
// holds more than max bytes without its end): the caller reads it with
// ReadHeaderInto then. A line found invalid on the way is the error
// ReadHeaderInto gives for it.
func ParseHeadInto(h *Head, b []byte, statusLine bool, max int) (n int, ok bool, err error) {
	max = h.start(max)
	var spanStack [16]fieldSpan
	p := headParse{resp: &h.Response, statusLine: statusLine}
	text, spans, n, ok, err := p.inPlace(b, max, spanStack[:0])
	if err != nil || !ok {
		return 0, false, err
	}
	return n, true, h.fill(text, spans)
}

// start makes h an empty head, but for Response.Request, and returns the
// limit on the head's size that max (0: the default) stands for.
func (h *Head) start(max int) int {
	resp := &h.Response
	*resp = http.Response{Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, ContentLength: -1, Request: resp.Request}
	h.note = nil
	if max <= 0 {
		max = 64 << 10
	}
	return max
}

// fill sets h's header, status and length from the head's text and where
// its fields lie in it.
func (h *Head) fill(text string, spans []fieldSpan) error {
	resp := &h.Response
	resp.Header = make(http.Header, len(spans))
	vals := h.slots[:]
	if len(spans) > len(vals) {
		vals = make([]string, len(spans))
	}
	// The names met so far, while they are few: a name is looked for
	// among them rather than in the map.
	var keyStack [len(h.slots)]string
	keys := keyStack[:0]
	var named uint8 // which of the fields read below the head holds
	var spell []string
	for i, sp := range spans {
		// (checkLine let no white space into the name.)
		name := text[sp.start:sp.colon]
		key := canonicalKey(name)
		if key != name && !header.OwnKey(key) {
			// A piece of the head's string: no allocation but the
			// list's. PHP's Content-type, NGINX's own name, is told
			// apart by the canonical key (OwnKey), cheaper than by the
			// name as AddSpelling would.
			spell = header.AddSpelling(spell, name)
		}
		switch key {
		case "Status":
			named |= namedStatus
		case "Location":
			named |= namedLocation
		case "Content-Length":
			named |= namedLength
		case "Connection":
			named |= namedRelayed
		default:
			if strings.HasPrefix(key, "X-Accel-") {
				named |= namedRelayed
			}
		}
		value := text[sp.value:sp.end]
		if header.Seen(resp.Header, keys, key) {
			resp.Header[key] = append(resp.Header[key], value)
			continue
		}
		if len(keys) < cap(keys) {
			keys = append(keys, key)
		}
		vals[i] = value
		resp.Header[key] = vals[i : i+1 : i+1]
	}
	if spell != nil {
		// A copy of the spans: escape analysis takes what LineSpellings
		// is given to reach its list, which would move the caller's
		// spans to the heap for every head.
		spell = header.LineSpellings(spell, spanNames{text, slices.Clone(spans)}.next)
	}
	switch {
	case spell != nil:
		h.note = &headNote{spell: spell}
	case named&namedRelayed == 0:
		h.note = plainNote
	default:
		h.note = relayedNote
	}
	if resp.StatusCode == 0 {
		if err := inferStatus(resp, named); err != nil {
			return err
		}
	}
	if named&namedLength != 0 {
		v := resp.Header["Content-Length"]
		// Two lengths that disagree leave the body's end unknown: relayed,
		// either one truncates the answer or lets the client read part of
		// the next. NGINX (1.23 on) refuses the head: "upstream sent
		// duplicate header line".
		for _, o := range v[:len(v)-1] {
			if strings.TrimSpace(o) != strings.TrimSpace(v[len(v)-1]) {
				return fmt.Errorf("upstream sent duplicate header line: \"Content-Length: %s\", previous value: \"Content-Length: %s\": %w",
					v[len(v)-1], o, ErrInvalidHeader)
			}
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(v[len(v)-1]), 10, 64); err == nil && n >= 0 {
			resp.ContentLength = n
		}
	}
	return nil
}

// spanNames are the field names of a head's text where its spans say.
type spanNames struct {
	text  string
	spans []fieldSpan
}

// next is a header.FieldNames of the names: at is the index of the next
// span.
func (n spanNames) next(at int) (name string, end int, ok bool) {
	if at >= len(n.spans) {
		return "", at, false
	}
	sp := n.spans[at]
	return n.text[sp.start:sp.colon], at + 1, true
}

// headParse is the state of one head's parse. Its methods append where
// the fields lie in the head's text to spans, given and returned, not
// kept in it: a slice stored through the pointer would move the caller's
// room for them to the heap.
type headParse struct {
	resp       *http.Response
	statusLine bool
	begun      bool // a line has been read
}

// buffered parses the head out of br's buffer when that holds all of it,
// as php-fpm's usual head comes, in one record: its lines are checked and
// noted where they lie, and copied once, into the head's string, with no
// line read on its own. ok is false when the buffer ends before the head
// does (or holds more than max bytes without its end); nothing is read
// then, and p is to be started again for the reading path (read). A line
// found invalid on the way is the same error that reading it would give:
// every line before it is checked in the same way.
func (p *headParse) buffered(br *bufio.Reader, max int, spans []fieldSpan) (text string, _ []fieldSpan, ok bool, err error) {
	if _, err := br.Peek(1); err != nil {
		return "", nil, false, err // (what reading the first line would return)
	}
	b, _ := br.Peek(br.Buffered())
	text, spans, n, ok, err := p.inPlace(b, max, spans)
	if err != nil || !ok {
		return "", nil, false, err
	}
	_, err = br.Discard(n)
	return text, spans, true, err
}

// inPlace is buffered's parse of the bytes b: n is the head's length with
// its end line, ok false when b does not hold its end within max bytes.
func (p *headParse) inPlace(b []byte, max int, spans []fieldSpan) (text string, _ []fieldSpan, n int, ok bool, err error) {
	if len(b) > max {
		b = b[:max]
	}
	for start := 0; ; {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			return "", nil, 0, false, nil
		}
		line, err := trimLineEnd(b[start : start+i])
		if err != nil {
			return "", nil, 0, false, err
		}
		next := start + i + 1
		if len(line) == 0 {
			// The string ends with the last field's value: the line ends
			// after it would only make it larger (PHP's usual head, 64
			// bytes so, would take 80).
			end := 0
			if len(spans) > 0 {
				end = int(spans[len(spans)-1].end)
			}
			return string(b[:end]), spans, next, true, nil
		}
		if spans, _, err = p.line(line, start, spans); err != nil {
			return "", nil, 0, false, err
		}
		start = next
	}
}

// read reads the head line by line from br, for a head that br's buffer
// does not hold whole. The lines, without their ends, are gathered one
// after the other, each checked as it comes so that a bad line fails
// before the rest of the head is waited for; the head's text is them.
func (p *headParse) read(br *bufio.Reader, max int, spans []fieldSpan) (string, []fieldSpan, error) {
	var stack [1024]byte
	head := stack[:0]
	total := 0
	for {
		start := len(head)
		var err error
		head, total, err = readLine(br, head, total, max)
		if err != nil {
			return "", nil, err
		}
		line := head[start:]
		if len(line) == 0 {
			return string(head), spans, nil
		}
		var keep bool
		if spans, keep, err = p.line(line, start, spans); err != nil {
			return "", nil, err
		}
		if !keep {
			head = head[:start]
		}
	}
}

// line takes one line of the head, without its end, which starts at
// start in the head's text: a status line (with statusLine, the first)
// sets the status, a field line is checked and where its name and value
// lie noted. keep is false for a line that is no field, which the head's
// text need not hold.
func (p *headParse) line(line []byte, start int, spans []fieldSpan) (_ []fieldSpan, keep bool, err error) {
	first := !p.begun
	p.begun = true
	if first && p.statusLine && bytes.HasPrefix(line, []byte("HTTP/")) {
		code, text, ok := parseStatusLine(line)
		if ok && code < 100 {
			// NGINX would send it; net/http cannot write such a status.
			return nil, false, invalidLine(line)
		}
		if ok {
			p.resp.StatusCode, p.resp.Status = code, text
			return spans, false, nil
		}
		// NGINX reads a first line that is no status line as a field,
		// and skips a field line starting "HTTP/" (below).
	}
	if bytes.HasPrefix(line, []byte("HTTP/")) {
		// A status line among the fields (IIS repeats its own): NGINX
		// skips the line.
		return spans, false, nil
	}
	colon, err := checkLine(line)
	if err != nil {
		return nil, false, err
	}
	return append(spans, valueSpan(line, start, colon)), true, nil
}

// readLine appends one line without its end to dst, failing beyond max
// bytes in all.
func readLine(br *bufio.Reader, dst []byte, total, max int) ([]byte, int, error) {
	start := len(dst)
	for {
		frag, err := br.ReadSlice('\n')
		total += len(frag)
		if total > max {
			return nil, total, ErrHeaderTooBig
		}
		dst = append(dst, frag...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return nil, total, err
		}
	}
	line, err := trimLineEnd(dst[start : len(dst)-1])
	return dst[:start+len(line)], total, err
}

// trimLineEnd returns line, without its LF, less the CRs that end it.
// NGINX ends a line at its first CR when only CRs follow ("X: 1\r\r\n"),
// but not the empty line that ends the head: "\r\r\n" is invalid.
func trimLineEnd(line []byte) ([]byte, error) {
	n := len(line)
	for n > 0 && line[n-1] == '\r' {
		n--
	}
	if n == 0 && len(line) > 1 {
		return nil, invalidLine(line)
	}
	return line[:n], nil
}

// checkLine checks a "Name: value" line and returns the index of its
// colon, or its length when it has none. As NGINX reads an upstream's
// header, a line without a colon is a name with an empty value, and a
// NUL, a bare CR, a line starting with white space and a name with a
// space in it are invalid.
func checkLine(line []byte) (int, error) {
	// A name with a space, a control or DEL in it ("Status : 404") is
	// refused, as NGINX refuses it since 1.21.1: which field it means is
	// anyone's guess. That also refuses a line starting with white space,
	// and a NUL or a CR in the name: the rest is searched for those after.
	colon := nameEnd(line)
	if colon == 0 || colon < len(line) && line[colon] != ':' {
		return 0, invalidLine(line)
	}
	if rest := line[colon:]; bytes.IndexByte(rest, 0) >= 0 || bytes.IndexByte(rest, '\r') >= 0 {
		return 0, invalidLine(line)
	}
	return colon, nil
}

// nameEnd returns where line's name ends: the first byte that is its
// colon or one no name may have (a control, a space, DEL), else
// len(line). Eight bytes are tested at a time, in a word, for the three
// (SWAR: a byte below a bound, or one equal to a value, sets its top bit
// in the word's arithmetic; a borrow may set the bits of the bytes above
// a found one as well, so the lowest bit set is the first byte found):
// a walk over the bytes with three tests each, or a table of them four
// at a time, cost two to three times the instructions on every line of
// every answer, whose names are short.
func nameEnd(line []byte) int {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		colon, del := x^(':'*ones), x^(0x7f*ones)
		found := ((x - 0x21*ones) &^ x) | ((colon - ones) &^ colon) | ((del - ones) &^ del)
		if found &= tops; found != 0 {
			return i + bits.TrailingZeros64(found)>>3
		}
	}
	for ; i < len(line); i++ {
		if c := line[i]; c <= ' ' || c == 0x7f || c == ':' {
			return i
		}
	}
	return i
}

// fieldSpan is where a field line lies in the head: its name from start
// to colon, its value, without the white space around it, from value to
// end.
type fieldSpan struct{ start, colon, value, end int32 }

// valueSpan is the span of line, which starts at start in the head and
// has its colon at colon (its length when none).
func valueSpan(line []byte, start, colon int) fieldSpan {
	v, end := colon+1, len(line)
	if v > end {
		v = end
	}
	for v < end && (line[v] == ' ' || line[v] == '\t') {
		v++
	}
	for end > v && (line[end-1] == ' ' || line[end-1] == '\t') {
		end--
	}
	return fieldSpan{int32(start), int32(start + colon), int32(start + v), int32(start + end)}
}

// The fields of a head that ReadHeaderInto reads after parsing it, noted
// as the lines come so that a head without them (PHP's usual) is not
// searched for them.
const (
	namedStatus uint8 = 1 << iota
	namedLocation
	namedLength
	namedRelayed // Connection or X-Accel-*: Head.Plain
)

// canonicalKey is textproto.CanonicalMIMEHeaderKey(name). Common
// response header names, canonical or in their usual other spellings
// (PHP's "Content-type"), are answered from a table, without a walk over
// their bytes or the allocation of a new string; another name that is
// canonical already (a letter after '-' or at the start upper-case, the
// others lower) is name itself, as textproto returns it.
func canonicalKey(name string) string {
	if k, ok := knownKeys.find(name); ok {
		return k
	}
	upper := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			return textproto.CanonicalMIMEHeaderKey(name)
		}
		upper = c == '-'
	}
	return name
}

// knownKeys maps common response header names, in their canonical, their
// lower-case and their only-first-letter-capital forms, to the canonical
// form.
var knownKeys = func() *nameTable {
	t := new(nameTable)
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Content-Disposition",
		"Content-Language", "Content-Security-Policy", "Location", "Status", "Set-Cookie", "Cache-Control",
		"Expires", "Pragma", "Last-Modified", "Etag", "Vary", "Link", "X-Powered-By", "X-Frame-Options",
		"X-Content-Type-Options", "X-Robots-Tag", "X-Pingback", "Referrer-Policy", "Strict-Transport-Security",
		"Access-Control-Allow-Origin", "X-Accel-Buffering", "X-Accel-Redirect", "X-Accel-Expires",
		"X-Accel-Limit-Rate", "X-Accel-Charset"} {
		lower := strings.ToLower(k)
		for _, s := range []string{k, lower, strings.ToUpper(lower[:1]) + lower[1:]} {
			t.add(s, textproto.CanonicalMIMEHeaderKey(s))
		}
	}
	return t
}()

// inferStatus sets the status of a head without a status line; named
// says which of Status and Location it holds.
func inferStatus(resp *http.Response, named uint8) error {
	if named&namedStatus != 0 {
		s := resp.Header["Status"][0]
		code := 0
		for i := 0; i < 3; i++ {
			if i >= len(s) || s[i] < '0' || s[i] > '9' {
				return fmt.Errorf("upstream sent invalid status %q: %w", s, ErrInvalidHeader)
			}
			code = code*10 + int(s[i]-'0')
		}
		if code < 100 {
			// NGINX would send it; net/http cannot write such a status.
			return fmt.Errorf("upstream sent invalid status %q: %w", s, ErrInvalidHeader)
		}
		// The field's value is the status line as NGINX sends it on,
		// phrase or none ("302" goes out as "HTTP/1.1 302").
		resp.StatusCode, resp.Status = code, s
		return nil
	}
	if named&namedLocation != 0 {
		resp.StatusCode, resp.Status = http.StatusFound, "302 Moved Temporarily"
		return nil
	}
	resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
	return nil
}

// parseStatusLine reads a status line as NGINX's upstream parser does:
// "HTTP/", a major version (not starting with 0, below 1000), ".", a minor
// one (below 1000), a space, then three digits (spaces before and among
// them skipped), then the end, or a space or a dot (IIS's "403.1") and any
// text without a CR. It returns the code and the status text ("201
// Created").
func parseStatusLine(line []byte) (code int, text string, ok bool) {
	p := line[len("HTTP/"):]
	version := func(first byte) bool {
		if len(p) == 0 || p[0] < first || p[0] > '9' {
			return false
		}
		n := int(p[0] - '0')
		for p = p[1:]; len(p) > 0 && p[0] >= '0' && p[0] <= '9'; p = p[1:] {
			if n > 99 {
				return false
			}
			n = n*10 + int(p[0]-'0')
		}
		return true
	}
	if !version('1') || len(p) == 0 || p[0] != '.' {
		return 0, "", false
	}
	p = p[1:]
	if !version('0') || len(p) == 0 || p[0] != ' ' {
		return 0, "", false
	}
	for digits := 0; digits < 3; p = p[1:] {
		switch {
		case len(p) == 0:
			return 0, "", false
		case p[0] >= '0' && p[0] <= '9':
			code = code*10 + int(p[0]-'0')
			digits++
		case p[0] != ' ':
			return 0, "", false
		}
	}
	if len(p) > 0 && p[0] != ' ' && p[0] != '.' || bytes.IndexByte(p, '\r') >= 0 {
		return 0, "", false
	}
	if len(p) == 0 {
		return code, strconv.Itoa(code) + " " + http.StatusText(code), true
	}
	return code, strconv.Itoa(code) + string(p), true
}

// invalidLine is the error of a line that does not parse. It quotes a
// copy: the line lives in a buffer that must not escape to the heap.
func invalidLine(line []byte) error {
	return fmt.Errorf("%w: %q", ErrInvalidHeader, string(line))
}
