// Package vars holds per-request variable state and the registry of NGINX-style
// variables ($remote_addr, $upstream_status, ...) that log formats, return
// texts and header values refer to.
package vars

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/spool"
)

// State is the per-request record that variables read from. The server puts
// one into every request's context; handlers used as plain net/http
// middleware find none, and every method is then a no-op, so a package can
// report values without knowing whether anyone reads them.
type State struct {
	Start      time.Time
	ConnID     uint64
	ServerName string
	// Host is $host as the server validated it (see package reqrule):
	// lower-case, without port or trailing dot; empty when the request
	// named no host.
	Host string
	// RequestURI is the URI of the client's request line. It stays when an
	// internal redirect changes the request's URI (and clears
	// http.Request.RequestURI, so that a proxy sends the new one).
	RequestURI string
	// Method, when set, is the method an error page turned the request
	// into (GET): NGINX changes the request itself, so $request_method
	// says GET in the access log too, which reads the request as it came.
	Method string
	// NoMethod says $request_method is empty whatever the request's
	// method: a request line NGINX refused after it had read the method,
	// which still makes a HEAD's answer its header alone.
	NoMethod bool
	// Absent, while set, names request header fields that r.Header is
	// known to lack: a caller that has just walked all the map's keys
	// (FastCGI's parameters, which pass the header on) sets it around
	// its reads of $content_type, $content_length and $remote_user and
	// clears it after, so that they skip a lookup of a name the map
	// lacks, which costs a hash of the name. Zero: nothing known, the
	// map is asked. (It sits in NoMethod's padding.)
	Absent Absent
	// RemoteAddr, when set, is the client's address that a module found
	// in place of the connection's (realip), for $remote_addr,
	// $binary_remote_addr and $remote_port: a filter holding a copy of
	// the request made before the change reads it here.
	RemoteAddr string
	// ConnAddr is set with RemoteAddr: the connection's own address
	// ($realip_remote_addr, $realip_remote_port). A subrequest copies
	// both, as NGINX's see the connection. It stays in State, not Rare:
	// behind a load balancer realip rewrites every request, and Rare
	// would then cost each of them an allocation.
	ConnAddr string
	// HeaderLines are the request's header lines as an HTTP/1.x client
	// sent them, after the request line (see header.Lines): a proxy and
	// a gateway pass the header on in their order and case, as NGINX
	// does. Empty where the server does not know them (HTTP/2, whose
	// fields Go's server hands over in a map only).
	HeaderLines string

	// Status and BodyBytes (the body bytes handlers wrote) are filled in
	// by the server's response writer as the response goes out.
	// HeaderBytes is for a writer that counts header bytes itself where
	// Wire cannot tell them; $bytes_sent adds it.
	Status      int
	BodyBytes   int64
	HeaderBytes int64
	// Header is the response header map, for $sent_http_NAME.
	Header http.Header

	// Captures holds the submatches of the regular expression location
	// that matched ($0..$9).
	Captures []string

	// URL is the request's current URL, for $uri, $args and $is_args: the
	// server points it at the URL of the request that an internal redirect
	// or try_files makes, so that a filter holding the client's request
	// (the access log) reads the URI that was served last, as NGINX logs
	// it. Nil: the URL of the request given to the getter.
	URL *url.URL
	// ArgsKept says that $args has an empty value rather than none when
	// URL has no query: NGINX empties the arguments of "set $args" and
	// of a rewrite ending in "?" by their length and keeps their place,
	// so its access log writes nothing where it writes "-" for a request
	// that never had arguments. An internal redirect to a URI sets it
	// when the URI has a "?", as NGINX splits the arguments off there,
	// and clears it otherwise.
	ArgsKept bool
	// HeaderOnly says that only the response's status and header are
	// wanted (NGINX's r->header_only, which an auth_request subrequest
	// has): a handler that would hold the header back while it buffers
	// the body (the proxy) sends it at once. (It sits in ArgsKept's
	// padding, as NoStatus does.)
	HeaderOnly bool
	// NoStatus says the request ended with nothing sent and no status,
	// as NGINX finalises one with a code below 300 other than 201 and
	// 204 (try_files' "=200"): BodyStarts leaves Status unset, and the
	// access log says "000" where it would say 200.
	NoStatus bool
	// WriteFailed records that a write of the response to the client
	// failed; Complete, that the request was served to its end
	// ($request_completion): the access log sets it once the handler
	// has returned normally, without a failed write, before it logs.
	WriteFailed bool
	Complete    bool
	// Aborted says the response was broken off after its header (an
	// upstream body cut short): a chunked body never gets its last
	// chunk, though a post action may make the request Complete.
	// (WriteFailed, Complete and Aborted sit in ArgsKept's padding too.)
	Aborted bool
	// Paths maps the current URI to the file system for the location
	// serving the request ($document_root, $realpath_root,
	// $request_filename); the server sets it as locations take over.
	Paths PathMapper
	// ConnRequests is the number of requests the connection has carried,
	// this one included ($connection_requests); ConnStart is when the
	// connection was accepted ($connection_time).
	ConnRequests uint64
	ConnStart    time.Time
	// Wire reports the sizes that only the connection knows, for
	// $request_length, $bytes_sent and $body_bytes_sent (and, when it is
	// a WireFramer, the framing for $sent_http_connection and
	// $sent_http_transfer_encoding); nil outside the server.
	Wire WireSizer
	// UpstreamHeader is the response header of the last upstream server
	// tried, as it arrived ($upstream_http_NAME, $upstream_cookie_NAME).
	UpstreamHeader http.Header
	// Conn is what the connection's variables read ($tcpinfo_*, the
	// addresses split once); nil outside the server, where each read
	// splits the address again and $tcpinfo_* read as none.
	Conn *Conn
	// Hello is what the client offered in its TLS ClientHello
	// ($ssl_ciphers, $ssl_curves); nil without TLS.
	Hello *ClientHello

	mu sync.Mutex
	// values are those of Set: the first ones in place, any others in
	// more. A request sets few (the proxy's values are a Source's), so a
	// scan finds one sooner than a map, which would take several
	// allocations to fill; seven keep the server's record of a request
	// within its size class (server's TestRequestRecordSize).
	values [7]namedValue
	nvalue int
	more   []namedValue
	// source is the Source of SetSource (a proxied request's upstream
	// record), and sourceSeq its place in seq.
	source    Source
	sourceSeq uint32
	// seq orders the values of Set and the Source of SetSource: the
	// newer answers for a name both have.
	seq uint32
	// slots caches the values of a configuration's own variables (see
	// Scope), indexed by Var.slot.
	slots []slot
	// ratio is the compression ratio of SetRatio, formatted when read:
	// here rather than in Rare, as every compressed response has one.
	ratio ratio
	// rare holds the values that few requests have (Rare), made when
	// the first is set, so that the record every request clears, the
	// server's included, leaves them out (server's TestH1RecordSize).
	rare atomic.Pointer[Rare]
}

// Rare holds the State's values that few requests have: a refused
// request's line, a subrequest's page's, the request body a module
// read, an upstream's trailer and X-Accel-Charset, the client
// certificate's verdict and $request_id (realip's ConnAddr stays in the
// State, as realip may rewrite every request). A plain request sets
// none and its State has none (State.Rare is nil); a writer makes it
// with State.MakeRare.
type Rare struct {
	// Main, in a subrequest, is its page's request line, which $request
	// is there as in NGINX: kept in parts, joined only when asked for.
	Main MainLine
	// RequestLine, when set, is the request line as received of a request
	// refused before it was parsed (cut short, or not a request line at
	// all), or of one whose parts do not give it back joined by a space
	// each (WireFramer.RequestLine): $request is then this text, as NGINX
	// logs it.
	RequestLine string
	// RequestBody is the whole request body when a module read it into
	// memory before passing it on ($request_body); nil otherwise.
	RequestBody []byte
	// BodyLength is $content_length of a request whose body came without
	// a Content-Length line (chunked, or HTTP/2 without content-length)
	// once a module read it whole: NGINX knows the length then, yet the
	// request still has no such header line to pass on. Empty otherwise.
	BodyLength string
	// AccelCharset is an upstream's X-Accel-Charset (unless ignored):
	// the charset the response goes out in, for the server's charset
	// filter; empty when none.
	AccelCharset string
	// ClientVerify is $ssl_client_verify when the server verified the
	// client's certificate itself (it asks for one without letting Go
	// verify it, so that a failure does not end the handshake); empty:
	// derived from the connection's state.
	ClientVerify string
	// RequestBodyFile is the temporary file that a module saved the
	// request body in, past client_body_buffer_size
	// ($request_body_file); empty when the body stayed in memory or was
	// streamed.
	RequestBodyFile string
	// SavedBody is the request body a module saved in a file, open
	// until the request ends, so that an error page's request sends it
	// again as NGINX's r->request_body; nil otherwise (a body in memory
	// is RequestBody).
	SavedBody *spool.Spool
	// UpstreamTrailer is the trailer of the last upstream response, once
	// its body has been read whole ($upstream_trailer_NAME).
	UpstreamTrailer http.Header

	requestID string // $request_id, made on first use
	idFrom    *State // a subrequest's parent, whose $request_id it shares
}

// Rare returns the State's rarely set values, nil where none was set
// or s is nil: a reader finds each one's zero value then.
func (s *State) Rare() *Rare {
	if s == nil {
		return nil
	}
	return s.rare.Load()
}

// UseRare gives s the memory for its Rare values, so that a record
// that holds a State and always needs them (a subrequest's, which
// shares $request_id) makes them with the State in one allocation. x
// must be zero; call it before the State is in use.
func (s *State) UseRare(x *Rare) { s.rare.Store(x) }

// noRare is what read finds in a State without Rare values: read only.
var noRare Rare

// read returns st's rarely set values for reading, their zero values
// where none were set or st is nil.
func read(st *State) *Rare {
	if x := st.Rare(); x != nil {
		return x
	}
	return &noRare
}

// MakeRare returns the State's rarely set values, made if none were:
// for a writer. It is safe from several goroutines: a subrequest's
// $request_id makes its parent's in the subrequest's goroutine while
// the parent's own may make it for another value.
func (s *State) MakeRare() *Rare {
	if x := s.rare.Load(); x != nil {
		return x
	}
	s.rare.CompareAndSwap(nil, new(Rare))
	return s.rare.Load()
}

// ratio is a value of SetRatio: a variable's name and the two sizes
// whose quotient it is.
type ratio struct {
	name    string
	in, out int64
}

// WroteHeader records the status a response writer was given: an interim
// 1xx status gives way to the final one, which stays.
func (st *State) WroteHeader(code int) {
	if st.Status < 200 {
		st.Status = code
	}
}

// BodyStarts records that a body goes out; without a status set before,
// the response is a 200 (unless NoStatus says there is none).
func (st *State) BodyStarts() {
	if st.Status == 0 && !st.NoStatus {
		st.Status = http.StatusOK
	}
}

// MarkComplete decides $request_completion once the handler has
// returned: complete when every write reached the connection and the
// client did not leave first (a 499, or cut, the request context's
// error). A decision for complete stands: NGINX makes it before a post
// action runs, which a client leaving then does not undo.
func (st *State) MarkComplete(cut error) {
	if !st.Complete {
		st.Complete = !st.WriteFailed && st.Status != 499 && cut == nil
	}
}

// ctxKey is the type of the State's context key. It is unexported, and
// the key is handed out only by value (StateKey), so that no package can
// replace the key that every other one looks the State up with.
type ctxKey struct{}

// StateKey returns the context key under which NewContext stores the State
// and FromContext finds it. A server that keeps its own request context
// type answers Value(StateKey()) with the *State, saving the allocation of
// NewContext per request; everyone else uses NewContext and FromContext.
func StateKey() any { return ctxKey{} }

// IsStateKey reports whether key is StateKey's, for a context's Value.
// It tests the key's type alone: "key == StateKey()" compares two
// interfaces of one type by calling the type's equality function, which a
// request's many Value calls pay each time.
func IsStateKey(key any) bool {
	_, ok := key.(ctxKey)
	return ok
}

// NewContext returns ctx carrying st.
func NewContext(ctx context.Context, st *State) context.Context {
	return context.WithValue(ctx, ctxKey{}, st)
}

// FromContext returns the State in ctx, or nil.
func FromContext(ctx context.Context) *State {
	st, _ := ctx.Value(ctxKey{}).(*State)
	return st
}

// StartTime returns when the server took up the request of ctx (State.Start),
// or now where no State records it: a caller that needs only a recent time
// (checking a root's name once a second) reads no clock per request.
func StartTime(ctx context.Context) time.Time {
	if st := FromContext(ctx); st != nil && !st.Start.IsZero() {
		return st.Start
	}
	return time.Now()
}

// Set records a value that a module produced, such as "upstream_addr". It is
// safe on a nil State and from several goroutines.
func (s *State) Set(name, value string) {
	if s == nil {
		return
	}
	// No defer: a request may set several values, and nothing here can
	// panic with the lock held but an append out of memory.
	s.mu.Lock()
	if s.ratio.name == name {
		s.ratio = ratio{} // the value given last answers
	}
	s.set(name, value)
	s.mu.Unlock()
}

// set is Set with s.mu held.
func (s *State) set(name, value string) {
	s.seq++
	if v := s.find(name); v != nil {
		v.value, v.seq = value, s.seq
	} else if s.nvalue < len(s.values) {
		s.values[s.nvalue] = namedValue{name, value, s.seq}
		s.nvalue++
	} else {
		s.more = append(s.more, namedValue{name, value, s.seq})
	}
}

// SetRatio records the value of a compression ratio variable
// ($gzip_ratio, $brotli_ratio, $zstd_ratio) as its two sizes, in bytes
// before and after, and Get formats it (FormatRatio) when it is read, as
// NGINX's gzip filter computes $gzip_ratio from its counts in its
// getter: a response whose ratio nothing reads (no log format, header
// or metric names it) pays for no formatting and no string. out must
// be positive. The State keeps one such value; a second name's turns
// the first one's into a value of Set. It is safe on a nil State and
// from several goroutines.
func (s *State) SetRatio(name string, in, out int64) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if r := s.ratio; r.name != "" && r.name != name {
		s.set(r.name, FormatRatio(r.in, r.out))
	}
	s.ratio = ratio{name, in, out}
	s.mu.Unlock()
}

// FormatRatio renders in/out the way NGINX renders $gzip_ratio: two
// decimals, rounded half up from the third. out must be positive.
func FormatRatio(in, out int64) string {
	whole := in / out
	frac := in * 100 / out % 100
	if in*1000/out%10 > 4 {
		frac++
		if frac > 99 {
			whole++
			frac = 0
		}
	}
	// Appended in one buffer: one allocation for the string, where
	// concatenating three formatted numbers cost about 400 instructions.
	var buf [24]byte
	b := strconv.AppendInt(buf[:0], whole, 10)
	b = append(b, '.', byte('0'+frac/10), byte('0'+frac%10))
	return string(b)
}

// LeaveLocation empties the values of RegisterLocated that the request
// has, as an internal redirect leaves the location that set them: empty
// reads as none ("-" in the access log, no parameter with if_not_empty).
// A LocatedSource is replaced by what it keeps after leaving.
func (s *State) LeaveLocation() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if ls, ok := s.source.(LocatedSource); ok {
		s.source = ls.LeaveLocation() // its place among the values kept
	}
	s.mu.Unlock()
	regMu.RLock()
	defer regMu.RUnlock()
	for name := range located {
		if _, ok := s.Get(name); ok {
			s.Set(name, "")
		}
	}
}

// namedValue is one value of Set, with its place in State.seq.
type namedValue struct {
	name, value string
	seq         uint32
}

// find returns the value of Set by that name, or nil; s.mu is held.
func (s *State) find(name string) *namedValue {
	for i := range s.values[:s.nvalue] {
		if s.values[i].name == name {
			return &s.values[i]
		}
	}
	for i := range s.more {
		if s.more[i].name == name {
			return &s.more[i]
		}
	}
	return nil
}

// Get returns a value recorded with Set, or one that the Source of
// SetSource computes: the one given last where both have the name.
func (s *State) Get(name string) (string, bool) {
	if s == nil {
		return "", false
	}
	s.mu.Lock()
	if s.ratio.name == name && name != "" {
		value := FormatRatio(s.ratio.in, s.ratio.out)
		s.mu.Unlock()
		return value, true
	}
	v := s.find(name)
	var value string
	ok := false
	// The Source answers first when given after the value of Set.
	if s.source != nil && (v == nil || s.sourceSeq > v.seq) {
		value, ok = s.source.Value(name)
	}
	if !ok && v != nil {
		value, ok = v.value, true
	}
	s.mu.Unlock()
	return value, ok
}

// Source computes values that State.Get returns from what a module
// keeps about the request, when they are read, as NGINX's getters
// compute $upstream_addr and the like from the upstream's state of the
// request: a module that would Set each value as it became known pays
// for every one in every request, read or not (a proxied request's ten).
//
// Value is called with the State's lock held, from whichever goroutine
// reads the State (the access log's after the response, a mirror's, a
// background cache update's): it must not call the State's methods, and
// what it reads must be safe to read while its module goes on with the
// request.
type Source interface {
	// Value returns the value of the variable name, and false when the
	// Source has none for it (now, or ever).
	Value(name string) (string, bool)
}

// LocatedSource is a Source with values that belong to the location
// that gave it ($proxy_host), as NGINX keeps them in the module's
// context, which an internal redirect clears: LeaveLocation gives the
// Source to keep after it, which still answers for what the request
// keeps across locations (the earlier tries' $upstream_* values).
type LocatedSource interface {
	Source
	LeaveLocation() Source
}

// SetSource makes src compute values for Get, in place of the Source an
// earlier call gave; a nil src removes it. Where a value Set under a
// name and the Source both answer for it, the one given last does, as if
// the Source had set its values when given: a gRPC location that Sets
// $upstream_addr after a proxied one, or a proxied one after it. It is
// safe on a nil State and from several goroutines.
func (s *State) SetSource(src Source) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.seq++
	s.source, s.sourceSeq = src, s.seq
	s.mu.Unlock()
}

// Source returns the Source that SetSource gave, or nil: a module
// serving a request again after an internal redirect finds what its
// first location recorded (NGINX joins the $upstream_* values of both).
func (s *State) Source() Source {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.source
}

// PathMapper maps a request's URI to the file system as the root or alias
// of the location serving it does.
type PathMapper interface {
	// DocumentRoot is $document_root: the root or alias, variables
	// evaluated, made absolute.
	DocumentRoot(r *http.Request) string
	// RequestFilename is $request_filename: the file that uri maps to.
	RequestFilename(r *http.Request, uri string) string
}

// WireSizer is implemented by a server's response writer that can tell
// what a request and its response take on the wire.
type WireSizer interface {
	// RequestSize is the request's size so far: its line, header and the
	// body bytes read.
	RequestSize() int64
	// HeaderSize is the size of the response's status line and header.
	HeaderSize() int64
	// BodyOverhead is what the body's framing adds to it (chunk sizes):
	// what was sent, and with complete (the response ends normally) what
	// the end of the handler still sends (the last chunk), which a
	// response cut short never sends.
	BodyOverhead(complete bool) int64
	// RequestLines is the request's header lines as received, after the
	// request line, where the connection keeps them (HTTP/1.x's), else
	// "": State.HeaderLines.
	RequestLines() string
	// RequestLine is the request line as received where its parts,
	// joined by a space each, differ from it (several spaces between
	// them, which NGINX's parser takes), else "": Rare.RequestLine.
	RequestLine() string
}

// WireFramer is a WireSizer of an HTTP/1.x connection, which also tells
// how the response is framed: whether its body goes chunked and whether
// the connection closes after it ($sent_http_transfer_encoding,
// $sent_http_connection); whether the request came pipelined ($pipe).
type WireFramer interface {
	Framing() (chunked, closing bool)
	Pipelined() bool
}

// ClientHello is what a TLS client offered: its cipher suites and key
// exchange groups, in its order.
type ClientHello struct {
	CipherSuites []uint16
	Curves       []tls.CurveID
}

// MainLine is the parts of a subrequest's page's request line; Method ""
// outside subrequests.
type MainLine struct{ Method, Target, Proto string }
