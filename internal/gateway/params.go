package gateway

import (
	"net/http"
	"strings"
	"sync"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// Param is one configured parameter (fastcgi_param, uwsgi_param). Value,
// when set, computes it for each request; without, Literal is the value.
// With IfNotEmpty an empty value is not sent. A Hide parameter is never
// sent: it only keeps back the header lines its HTTP_* name stands for.
type Param struct {
	Name       string
	Value      func(r *http.Request, st *vars.State) string // st: r's variables, nil outside the server
	Literal    string
	IfNotEmpty bool
	Hide       bool
	// Template, when set, is the template that Value evaluates, of
	// several pieces ("$document_root$fastcgi_script_name"): an
	// Encoder writes its pieces one by one instead of joining them
	// into a string first.
	Template *vars.Template
}

// Var is a parameter as sent: a name and its value.
type Var struct {
	Name, Value string
}

// Params are the parameters of a location: the configured ones, in order,
// then, with PassHeaders (fastcgi_pass_request_headers on, NGINX's
// default), every request header line as HTTP_NAME. A configured
// parameter named HTTP_* takes the place of the header lines of that name,
// as in NGINX, so that "fastcgi_param HTTP_PROXY \"\"" (a Hide parameter)
// keeps a client's Proxy header from the application.
type Params struct {
	list        []Param
	passHeaders bool
	set         map[string]struct{} // the configured HTTP_* names
}

// NewParams builds the parameters of a location.
func NewParams(list []Param, passHeaders bool) *Params {
	p := &Params{list: list, passHeaders: passHeaders}
	for _, pa := range list {
		if strings.HasPrefix(pa.Name, "HTTP_") {
			if p.set == nil {
				p.set = map[string]struct{}{}
			}
			p.set[pa.Name] = struct{}{}
		}
	}
	return p
}

// Append evaluates the parameters for r and appends them to dst. Header
// lines are sent in the client's order (appendHeaders), each line of a
// repeated header as its own parameter, as NGINX 1.22 sends every line.
func (p *Params) Append(dst []Var, r *http.Request) []Var {
	st := vars.FromContext(r.Context()) // looked up once, not by every value
	for i := range p.list {
		pa := &p.list[i]
		if pa.Hide {
			continue
		}
		v := pa.Literal
		if pa.Value != nil {
			v = pa.Value(r, st)
		}
		if v == "" && pa.IfNotEmpty {
			continue
		}
		dst = append(dst, Var{pa.Name, v})
	}
	dst, _ = appendHeaders(p, dst, r, st, appendVar)
	return dst
}

func appendVar(dst []Var, key, value string) []Var {
	return append(dst, Var{HeaderParamName(key), value})
}

// PairEncoding is a protocol's writing of a parameter, such as FastCGI's
// name-value pairs: Pair writes a name and its value, Head what comes
// before a value n bytes long, the value's bytes to follow. Short, when
// above 0, says that Head writes the length of a value of at most Short
// bytes as one byte, the one right before the name, and that its other
// bytes do not depend on that length: an Encoder then writes a computed
// parameter's head once, when it is made, and on each request copies it
// and sets that byte, where Pair would encode both lengths and copy the
// name apart (one copy a parameter fewer, on every request).
//
// The heads of the common header lines' parameters (lineHeads) are made
// once for the encoding, on its first Encoder, not once a location: an
// 8 KiB table each, the same for every location of the protocol.
type PairEncoding struct {
	Pair  func(dst []byte, name, value string) []byte
	Head  func(dst []byte, name string, n int) []byte
	Short int

	headsOnce sync.Once
	heads     *nameTable
}

// lineHeads is e's table of lineHeads, made on first use.
func (e *PairEncoding) lineHeads() *nameTable {
	e.headsOnce.Do(func() { e.heads = lineHeads(e) })
	return e.heads
}

// Encoder returns Append for a protocol's encoding of parameters: each
// parameter written straight into dst, without the Vars in between. The
// parameters whose value is fixed in the configuration are encoded here,
// once, and copied on each request; a parameter of several pieces
// (Param.Template) is written piece by piece after its head. Where the
// request has a State and the location passes its header lines on, the
// lines are written first and moved after the configured parameters
// once those are written (vars.Absent: what the lines' walk found
// missing from the header map spares three variables a lookup each).
func (p *Params) Encoder(e *PairEncoding) func(dst []byte, r *http.Request) []byte {
	var steps []encStep
	for i := range p.list {
		pa := &p.list[i]
		switch {
		case pa.Hide, pa.Value == nil && pa.Literal == "" && pa.IfNotEmpty:
			continue // never sent
		case pa.Value != nil:
			s := encStep{param: pa, short: -1, ifNotEmpty: pa.IfNotEmpty}
			if pa.Template == nil {
				s.value = pa.Value
			}
			if e.Short > 0 {
				s.encoded = e.Head(nil, pa.Name, 0)
				s.back = len(pa.Name) + 1
				s.short = e.Short
			}
			steps = append(steps, s)
		case len(steps) > 0 && steps[len(steps)-1].param == nil:
			last := &steps[len(steps)-1]
			last.encoded = e.Pair(last.encoded, pa.Name, pa.Literal)
		default:
			steps = append(steps, encStep{encoded: e.Pair(nil, pa.Name, pa.Literal)})
		}
	}
	addLine := func(dst []byte, key, value string) []byte {
		return e.Pair(dst, HeaderParamName(key), value)
	}
	if e.Short > 0 {
		heads := e.lineHeads()
		addLine = func(dst []byte, key, value string) []byte {
			if len(value) <= e.Short {
				if head, ok := heads.find(key); ok {
					dst = append(dst, head...)
					dst[len(dst)-len(key)-len("HTTP_")-1] = byte(len(value))
					return append(dst, value...)
				}
			}
			return e.Pair(dst, HeaderParamName(key), value)
		}
	}
	configured := func(dst []byte, r *http.Request, st *vars.State) []byte {
		for i := range steps {
			s := &steps[i]
			if s.value != nil {
				v := s.value(r, st)
				if v == "" && s.ifNotEmpty {
					continue
				}
				if d, ok := s.shortHead(dst, len(v)); ok {
					dst = append(d, v...)
				} else {
					dst = e.Pair(dst, s.param.Name, v)
				}
				continue
			}
			if s.param == nil {
				dst = append(dst, s.encoded...)
				continue
			}
			dst = s.appendPieces(dst, r, st, e)
		}
		return dst
	}
	return func(dst []byte, r *http.Request) []byte {
		st := vars.FromContext(r.Context())
		if st == nil || !p.passHeaders {
			dst = configured(dst, r, st)
			d, _ := appendHeaders(p, dst, r, st, addLine)
			return d
		}
		// The header lines go first, so that the configured values read
		// what their walk found missing from the map (vars.Absent:
		// $content_type, $content_length, $remote_user, which most
		// requests lack, each a lookup that hashes the name), and are
		// then moved after them, where NGINX sends them.
		start := len(dst)
		dst, absent := appendHeaders(p, dst, r, st, addLine)
		n := len(dst) - start
		// Restored by a defer: the State outlives a value's panic (the
		// access log of an aborted request is written as it unwinds,
		// a cache fill's recover serves the stale entry), where a set
		// Absent would answer for a map it may no longer describe. An
		// open-coded defer: 18 instructions a request (fastcgi README).
		defer restoreAbsent(st, st.Absent)
		st.Absent = absent
		return rotate(configured(dst, r, st), start, n)
	}
}

// restoreAbsent is the Encoder's deferred restore of st.Absent: a
// function of its own, not a closure, costs the defer fewer
// instructions.
func restoreAbsent(st *vars.State, prev vars.Absent) { st.Absent = prev }

// rotate moves the n bytes at start in dst after the rest of dst: a copy
// of them appended, the bytes from start+n on moved to start, the end
// cut.
func rotate(dst []byte, start, n int) []byte {
	if n == 0 || start+n == len(dst) {
		return dst
	}
	dst = append(dst, dst[start:start+n]...)
	copy(dst[start:], dst[start+n:])
	return dst[:len(dst)-n]
}

// lineHeads are the heads of commonHeaders' parameters in e, which has a
// Short length, made as an Encoder's computed parameters' are (a value
// length of 0, the byte to set before the parameter's name), by the
// header key: a header line of a common name then costs one lookup of
// its key and two copies, where its parameter's name was looked up in
// paramNames and the pair written by e.Pair through a func value, both
// lengths and the name apart, on every line of every request.
func lineHeads(e *PairEncoding) *nameTable {
	t := new(nameTable)
	for _, h := range commonHeaders {
		t.add(h, string(e.Head(nil, headerParamName(h), 0)))
	}
	return t
}

// appendPieces writes s's parameter, whose value is its Template's
// pieces, with its head and the pieces after it.
func (s *encStep) appendPieces(dst []byte, r *http.Request, st *vars.State, e *PairEncoding) []byte {
	var buf [8]string
	pieces := s.param.Template.AppendValues(r, st, buf[:0])
	n := 0
	for _, v := range pieces {
		n += len(v)
	}
	if n == 0 && s.ifNotEmpty {
		return dst
	}
	if d, ok := s.shortHead(dst, n); ok {
		dst = d
	} else {
		dst = e.Head(dst, s.param.Name, n)
	}
	for _, v := range pieces {
		dst = append(dst, v...)
	}
	return dst
}

// shortHead writes the head made with s for a value n bytes long, its
// length set, and true; false when the length does not fit its byte
// (s.short) or s has no head made. Small enough to be inlined: a call a
// parameter was about all that the head made once saved.
func (s *encStep) shortHead(dst []byte, n int) ([]byte, bool) {
	if n > s.short {
		return dst, false
	}
	dst = append(dst, s.encoded...)
	dst[len(dst)-s.back] = byte(n)
	return dst, true
}

// encStep is one step of an Encoder: a parameter computed per request,
// with its head for a short value (PairEncoding.Short) in encoded, the
// value's length back bytes before its end, or (param nil) consecutive
// fixed ones, encoded. A computed one's value function (value, nil for a
// Template's pieces), its IfNotEmpty and the longest value its head
// takes (short, -1 for none made) are copied out of the Param, so that
// the loop over the steps reads them from the step it holds.
type encStep struct {
	param      *Param
	value      func(r *http.Request, st *vars.State) string
	encoded    []byte
	back       int
	short      int
	ifNotEmpty bool
}

// appendHeaders appends the request's header lines with add, which is
// given each line's header key (its parameter's name is add's to make,
// HeaderParamName), to go after the configured parameters, unless the
// location passes none: in the order and, for each line of a repeated
// name, at the place the client sent them, as NGINX walks its list of
// the lines, where the server knows it (st.HeaderLines, HTTP/1.x), else
// sorted by name.
//
// A cache's revalidation (header.Revalidation) sends the entry's
// validators first, as HTTP_IF_MODIFIED_SINCE then HTTP_IF_NONE_MATCH:
// NGINX's cache parameters (ngx_http_fastcgi_cache_headers and uwsgi's,
// SCGI's) go after the configured ones, before the client's lines, which
// then leave these names out.
//
// absent is what the walk found missing from the map of vars.AbsentAll's
// fields: exact, as the map's own keys, or the lines' when they gave
// them all (header.Lines.GaveAll), are all its keys; 0 when the lines
// did not, or the location passes none.
func appendHeaders[S any](p *Params, dst S, r *http.Request, st *vars.State, add func(dst S, key, value string) S) (S, vars.Absent) {
	revalid := header.Revalidating(r)
	if revalid {
		for _, k := range [...]string{"If-Modified-Since", "If-None-Match"} {
			if !p.configured(k) && len(r.Header[k]) > 0 {
				dst = add(dst, k, r.Header[k][0])
			}
		}
	}
	if !p.passHeaders {
		return dst, 0
	}
	if st != nil && st.HeaderLines != "" {
		return appendLines(p, dst, r, st.HeaderLines, revalid, add)
	}
	// The fields are gathered on the stack, in room for a usual request's
	// (with Host and Transfer-Encoding, which net/http keeps out of the
	// map), or, for a longer header, in more room that only such a
	// request pays the zeroing of.
	if len(r.Header) > fewFields-2 {
		var buf [32]header.Field
		return appendFields(p, dst, r, revalid, add, buf[:0])
	}
	var buf [fewFields]header.Field
	return appendFields(p, dst, r, revalid, add, buf[:0])
}

// skipped reports whether the client's header key stays out of the
// parameters: a configured parameter takes its name's place, and a
// revalidation has sent its validators before (appendHeaders).
func (p *Params) skipped(key string, revalid bool) bool {
	return p.configured(key) || revalid && (key == "If-Modified-Since" || key == "If-None-Match")
}

// configured reports whether a configured parameter takes the place of
// the header key's lines. The key's parameter name is made only where
// some parameter is named HTTP_*: the usual location has none, and its
// lines go without the name (the add of appendHeaders makes it, or finds
// the pair's head made once).
func (p *Params) configured(key string) bool {
	return p.set != nil && p.setHas(key) // (inlined: the usual location's test)
}

// setHas is configured's lookup, kept out of line so that configured and
// skipped, called for every header line, are inlined.
//
//go:noinline
func (p *Params) setHas(key string) bool {
	_, ok := p.set[HeaderParamName(key)]
	return ok
}

// appendLines is appendHeaders walking the lines as the client sent
// them. The parse keeps two of them out of the map, and they go with the
// line's value: Host (net/http's r.Host; the map has it back when an
// absolute-form target's host took its place), and the Transfer-Encoding
// of a chunked body.
func appendLines[S any](p *Params, dst S, r *http.Request, text string, revalid bool, add func(dst S, key, value string) S) (S, vars.Absent) {
	if d, absent, ok := walkLines(p, dst, r, text, revalid, add, true); ok {
		return d, absent
	}
	// A module put Host in the map: the walk again, from dst as given,
	// with the Host line's lookup.
	d, absent, _ := walkLines(p, dst, r, text, revalid, add, false)
	return d, absent
}

// walkLines is appendLines' walk; with skipHost, the Host line is taken
// as the map does not hold it (header.Lines.SkipHostLookup), and ok is
// false, the walk to be made again without, where it does.
func walkLines[S any](p *Params, dst S, r *http.Request, text string, revalid bool, add func(dst S, key, value string) S, skipHost bool) (_ S, _ vars.Absent, ok bool) {
	lines := header.NewLines(text, r.Header)
	if skipHost {
		lines.SkipHostLookup()
	}
	absent := vars.AbsentAll
	for {
		_, key, value, mapped, ok := lines.Next()
		if !ok {
			break
		}
		if mapped {
			absent &^= vars.AbsentField(key)
		}
		if !mapped && !(key == "Host" && r.Host != "" || key == "Transfer-Encoding" && len(r.TransferEncoding) > 0) {
			continue // taken out since the parse (a name NGINX ignores)
		}
		if p.skipped(key, revalid) {
			continue
		}
		dst = add(dst, key, value)
	}
	if lines.HostMissed() {
		return dst, 0, false
	}
	if lines.GaveAll() {
		return dst, absent, true // the usual request: Rest has nothing
	}
	// A name repeated or a map a module changed: the lines' keys need
	// not be all the map's (a key of no values, one both as sent and
	// canonical), so nothing is vouched for and the variables ask the
	// map, as without the walk.
	for _, f := range lines.Rest(nil) {
		if p.skipped(f.Name, revalid) {
			continue
		}
		for _, v := range f.Values {
			dst = add(dst, f.Name, v)
		}
	}
	return dst, 0, true
}

// fewFields is the room appendHeaders gives a usual request's fields.
const fewFields = 12

// appendFields is appendHeaders gathering the fields in fields' room,
// with their values, in the one walk over the map (a lookup of each name
// again would cost a hash each). Whether Host and Transfer-Encoding are
// among them is seen on the way.
func appendFields[S any](p *Params, dst S, r *http.Request, revalid bool, add func(dst S, key, value string) S, fields []header.Field) (S, vars.Absent) {
	hostListed, teListed := false, false
	absent := vars.AbsentAll
	for k, vv := range r.Header {
		fields = append(fields, header.Field{Name: k, Values: vv})
		absent &^= vars.AbsentField(k)
		switch k {
		case "Host":
			hostListed = true
		case "Transfer-Encoding":
			teListed = true
		}
	}
	if r.Host != "" && !hostListed {
		// net/http keeps the Host line out of Header.
		fields = append(fields, header.Field{Name: "Host"})
	}
	// The server takes a chunked body's Transfer-Encoding line out of
	// Header: the application gets the lines the client sent, as NGINX
	// passes them.
	chunked := len(r.TransferEncoding) > 0 && !teListed
	if chunked {
		fields = append(fields, header.Field{Name: "Transfer-Encoding"})
	}
	header.SortFields(fields)
	for _, f := range fields {
		if p.skipped(f.Name, revalid) {
			continue
		}
		if f.Name == "Host" && !hostListed {
			dst = add(dst, f.Name, r.Host)
			continue
		}
		if chunked && f.Name == "Transfer-Encoding" {
			dst = add(dst, f.Name, strings.Join(r.TransferEncoding, ", "))
			continue
		}
		for _, v := range f.Values {
			dst = add(dst, f.Name, v)
		}
	}
	return dst, absent
}

// HeaderParamName is the parameter a request header travels as:
// "X-Forwarded-For" becomes "HTTP_X_FORWARDED_FOR". The names of common
// headers come from a table made once, without an allocation each.
func HeaderParamName(header string) string {
	if name, ok := commonParamName(header); ok {
		return name
	}
	return headerParamName(header)
}

func headerParamName(header string) string {
	b := make([]byte, 0, len("HTTP_")+len(header))
	b = append(b, "HTTP_"...)
	for i := 0; i < len(header); i++ {
		c := header[i]
		switch {
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c == '-':
			c = '_'
		}
		b = append(b, c)
	}
	return string(b)
}

// commonHeaders are the header fields browsers and proxies commonly send,
// by their canonical names (as a request's Header map holds them).
var commonHeaders = []string{"Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language",
	"Accept-Charset", "Cookie", "Referer", "Origin", "Connection", "Cache-Control", "Pragma",
	"Content-Type", "Content-Length", "Transfer-Encoding", "Authorization", "Range", "If-Range",
	"If-Modified-Since", "If-None-Match", "If-Match", "If-Unmodified-Since", "Upgrade",
	"Upgrade-Insecure-Requests", "Dnt", "Te", "Priority", "Expect", "Via", "Forwarded",
	"X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port", "X-Real-Ip",
	"X-Requested-With", "X-Csrf-Token", "Sec-Fetch-Dest", "Sec-Fetch-Mode", "Sec-Fetch-Site",
	"Sec-Fetch-User", "Sec-Ch-Ua", "Sec-Ch-Ua-Mobile", "Sec-Ch-Ua-Platform", "Sec-Gpc",
	"Sec-Websocket-Key", "Sec-Websocket-Version", "Sec-Websocket-Extensions", "Sec-Websocket-Protocol"}

// paramNames holds commonHeaders' parameter names: a lookup is a few
// arithmetic steps and one string comparison, about a quarter of what a
// Go map's hashing of the name costs, on every header line of every
// request.
var paramNames = func() *nameTable {
	t := new(nameTable)
	for _, h := range commonHeaders {
		t.add(h, headerParamName(h))
	}
	return t
}()

// commonParamName is the parameter name of header when it is one of
// commonHeaders.
func commonParamName(header string) (string, bool) {
	return paramNames.find(header)
}

// nameTable maps a few dozen header names, as spelled, to a string of
// each (its parameter, its canonical form), in open addressing: a name's
// slot comes from its length and three of its bytes (nameSlot). Its size,
// a power of two, leaves most slots empty, so that a name not in it (a
// miss ends at an empty slot) is seldom compared more than once.
type nameTable [nameSlots]struct{ name, value string }

const nameSlots = 256

// nameSlot is where the lookup of the non-empty name h in a nameTable
// starts.
func nameSlot(h string) int {
	return (len(h)*37 + int(h[0])*3 + int(h[len(h)/2])*5 + int(h[len(h)-1])) % nameSlots
}

// add puts the non-empty name in t, with value, unless it is there.
func (t *nameTable) add(name, value string) {
	i := nameSlot(name)
	for ; t[i].name != ""; i = (i + 1) % nameSlots {
		if t[i].name == name {
			return
		}
	}
	t[i].name, t[i].value = name, value
}

// find returns name's value in t.
func (t *nameTable) find(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	for i := nameSlot(name); t[i].name != ""; i = (i + 1) % nameSlots {
		if t[i].name == name {
			return t[i].value, true
		}
	}
	return "", false
}
