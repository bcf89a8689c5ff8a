package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/byterange"
	"github.com/mosaic-edge/mosaic/internal/endhook"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/proxyproto"
	"github.com/mosaic-edge/mosaic/internal/reqkey"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/internal/spool"
	"github.com/mosaic-edge/mosaic/vars"
)

// maxRedirects bounds internal redirects (try_files, error_page) per
// request, as NGINX's "rewrite or internal redirection cycle" guard does.
const maxRedirects = 10

// cycleHit is the count of internal redirects once the limit stopped one
// (logged, answered 500): as with NGINX's uri_changes spent, error_page
// no longer applies, so the cycle's 500 is not logged again.
const cycleHit = maxRedirects + 1

// reqInfo is the core's per-request record, in the request context.
type reqInfo struct {
	// The flags go together, so that the record (reqRoot) keeps to its
	// size class (TestRequestRecordSize).
	//
	// noChunks says chunked_transfer_encoding off reached the writer.
	noChunks  bool
	internal  bool // an internal redirect or a subrequest: internal locations allowed
	errorPage bool // serving an error_page: no further interception
	// prefixLost: a rewrite changed the URI and stopped with "break"
	// (PrefixLost).
	prefixLost bool
	// connRoot: the root lies right over the connection's context
	// (h1Record), which never carries a reqkey.Key: a lookup of one
	// that reaches it ends there (reqRoot.Value). Not a subrequest's
	// nor a root made over another request's context, which may.
	connRoot bool
	// serverAnswered is set when the server level's rewrite steps gave
	// the answer. NGINX runs them before it chooses a location and
	// compares client_max_body_size with Content-Length there; no
	// location refuses it by its Content-Length from then on, the error
	// page's included: an upload sent to a site's plain-HTTP port gets
	// its redirect to https, not 413.
	serverAnswered bool
	cfg            *Config
	srv            *VServer
	st             *vars.State
	loc            *Location
	redirects      *int      // shared by every redirect of one request, like NGINX's uri_changes
	rec            *recorder // the client connection's writer; nil in subrequests
	// h2conn holds, for an HTTP/2 request, the settings its connection
	// takes: those of the server SNI chose (else the default server), at
	// the server level, which NGINX reads for keepalive_requests,
	// keepalive_time and keepalive_timeout whatever server :authority
	// chose and whatever the location says.
	h2conn *coreLoc
	// pending is the answer a rewrite step (return, a redirect) gave;
	// the core step of the location's chain serves it (route).
	pending http.Handler
	// fl is the request's output gate and slot (filterlayer.go); nil
	// outside ServeGroup and Subrequest.
	fl *filterLayer
	// redir is set in the record of an internal redirect: its target's
	// chain runs the content on the writer the redirect was given.
	redir *redirTarget
	// seldom holds what a refused request, a subrequest and a response
	// whose charset the charset filter names have; nil for others
	// (rare), so that the record every request clears stays within its
	// size class (TestH1RecordSize).
	seldom *reqSeldom
}

// reqSeldom is the part of a request's record that few requests use.
type reqSeldom struct {
	// refusal is set for a request the HTTP/1 reader refused, served
	// only to be logged (refusal.go).
	refusal *http1.Refusal
	// includer is, in the record of an include or of an addition's
	// part, the main request's.
	includer *reqInfo
	subDepth int
	// charsetName is the charset the main response names once the
	// charset filter has seen its header (NGINX's headers_out.charset):
	// the includes in its body are recoded into it (CharsetRecoding).
	charsetName string
}

// noSeldom is what rare finds in a record without a reqSeldom: read only.
var noSeldom reqSeldom

// rare returns ri's seldom-used fields for reading: zero where it has
// none.
func (ri *reqInfo) rare() *reqSeldom {
	if ri.seldom != nil {
		return ri.seldom
	}
	return &noSeldom
}

// setCharsetName records the charset the response names, making the
// seldom-used fields only for a name.
func (ri *reqInfo) setCharsetName(name string) {
	if ri.seldom == nil {
		if name == "" {
			return
		}
		ri.seldom = new(reqSeldom)
	}
	ri.seldom.charsetName = name
}

// fork copies ri for the record of an internal redirect. The copy's
// seldom-used fields are its own, as when they lay in the record: the
// charset filter may name another charset in one of them.
func (ri *reqInfo) fork() reqInfo {
	nri := *ri
	if ri.seldom != nil {
		s := *ri.seldom
		nri.seldom = &s
	}
	return nri
}

type reqInfoKey struct{}

// reqRoot is the context of a client request: it holds the core's record
// and the variables' State and answers for both keys, so a request costs
// one allocation here rather than four. A server may create it with the
// request (h1Record, http1's record of a request), which saves
// ServeGroup a copy of the request. A subrequest's is one too, over its
// own cancel context (Subrequest).
type reqRoot struct {
	context.Context
	info  reqInfo
	state vars.State
	fl    filterLayer
}

// newRequestRoot is the root of a request refused before it reached a
// handler (refusal.go).
func newRequestRoot(ctx context.Context) context.Context { return &reqRoot{Context: ctx} }

// h1Record is http1's record of a request (http1.Server.NewRecord): the
// request's root and http1's memory for it in one allocation of 1,792
// bytes where they took two, of 1,024 and 896 (TestH1RecordSize).
// Both live as long as the request does: the root's context is the
// exchange's, and the exchange's request holds the root as its context.
type h1Record struct {
	root reqRoot
	x    http1.Exchange
}

func newH1Record() http1.Record { return new(h1Record) }

func (h *h1Record) Exchange() *http1.Exchange { return &h.x }

func (h *h1Record) Context(ctx context.Context) context.Context {
	h.root.Context = ctx
	h.root.info.connRoot = true
	return &h.root
}

func (rr *reqRoot) Value(key any) any {
	// Tests of the key's type: comparing it with a key value (==) calls
	// the type's equality function on a match, and a request asks for
	// these two a dozen times.
	if _, ok := key.(reqInfoKey); ok {
		return &rr.info
	}
	if vars.IsStateKey(key) {
		return &rr.state
	}
	if _, ok := key.(byterange.PartTypeKey); ok {
		return partTyper{}
	}
	if _, ok := key.(reqkey.Key); ok && rr.info.connRoot {
		// Only a request's own contexts, above this one, carry it: the
		// connection's are not walked for it (the cache's revalidation
		// mark and an X-Accel-Redirect's, asked on every proxied
		// request, that most do not carry).
		return nil
	}
	return rr.Context.Value(key)
}

// Err tells a request cut by the shutdown limit from one whose client
// left: handlers that log why a request ended read it here.
func (rr *reqRoot) Err() error {
	err := rr.Context.Err()
	if err != nil {
		if ci, ok := rr.Context.Value(connInfoKey{}).(*connInfo); ok && ci.cut.Load() {
			return errShutdownCut
		}
	}
	return err
}

// AfterEnd and StopEnd make the request's context an endhook.Hooker
// when the server's (http1's request context) is one: both end together.
func (rr *reqRoot) AfterEnd(f func()) (uint64, bool) {
	if h, ok := rr.Context.(endhook.Hooker); ok {
		return h.AfterEnd(f)
	}
	return 0, false
}

func (rr *reqRoot) StopEnd(token uint64) bool {
	if h, ok := rr.Context.(endhook.Hooker); ok {
		return h.StopEnd(token)
	}
	return false
}

func infoFrom(ctx context.Context) *reqInfo {
	ri, _ := ctx.Value(reqInfoKey{}).(*reqInfo)
	return ri
}

// CurrentLocation returns the location serving r, or nil outside the
// server.
func CurrentLocation(r *http.Request) *Location {
	if ri := infoFrom(r.Context()); ri != nil {
		return ri.loc
	}
	return nil
}

// AtRequestEnd arranges for f to run once the client's request r belongs
// to has been served, its error pages and internal redirects included,
// as NGINX runs the cleanups of a request's pool when it frees the
// request; it runs before the connection reads the next request. It
// reports false where there is no such request (outside ServeGroup, in a
// subrequest): the caller then runs f itself.
func AtRequestEnd(r *http.Request, f func()) bool {
	ri := infoFrom(r.Context())
	if ri == nil || ri.rec == nil {
		return false
	}
	ri.rec.ends = append(ri.rec.ends, f)
	return true
}

// AfterResponse arranges for f to run once the response to the client's
// request r belongs to has gone out whole, and the request to end only
// once f has returned: the access log line is written after, with the
// time f took in $request_time, the connection reads its next request
// after, and AtRequestEnd's functions run after. NGINX's mirror module waits there for its background
// subrequests, which hold the request, not the client's answer. It
// reports false where there is no such request (outside ServeGroup, in a
// subrequest).
func AfterResponse(r *http.Request, f func()) bool {
	ri := infoFrom(r.Context())
	if ri == nil || ri.rec == nil {
		return false
	}
	ri.rec.holds = append(ri.rec.holds, f)
	return true
}

var connCounter atomic.Uint64

// connInfo is what the core keeps in a connection's context: its number
// ($connection) and its listener's shutdown state.
type connInfo struct {
	id       uint64
	cut      *atomic.Bool      // the shutdown limit is ending the listener's requests
	requests atomic.Uint64     // requests taken up ($connection_requests)
	start    time.Time         // accepted ($connection_time)
	proxy    *proxyproto.Conn  // listen ... proxy_protocol: the connection that read the header; nil without
	hello    *vars.ClientHello // what the TLS client offered; nil without TLS
	conn     *vars.Conn        // its socket ($tcpinfo_*) and addresses, split once
	// unixPeer: the client came through a Unix-domain socket, which has
	// no address ("unix:" for NGINX's $remote_addr, where Go's HTTP/2
	// server gives "@" or "": http1 gives "unix:" itself).
	unixPeer bool
}

type connInfoKey struct{}

// connCtx is a connection's context: its record, answered for
// connInfoKey, and the listener's context in one allocation. ServeGroup
// reaches it through http1's request context (http1.ConnContext), not
// through Value, which asked the request's root, http1's context and a
// context.WithValue in turn for it (94 instructions and 11 I1 misses a
// response under callgrind, now 21 and 2: compress README, "The
// connection's record, one field away"). Other servers' requests
// (HTTP/2) still find it by Value.
type connCtx struct {
	context.Context
	info connInfo
}

func (c *connCtx) Value(key any) any {
	if _, ok := key.(connInfoKey); ok {
		return &c.info
	}
	return c.Context.Value(key)
}

// connInfoOf returns the record of the connection root's request came
// on, nil for a request that came on none of the server's listeners (a
// test's).
func connInfoOf(root *reqRoot) *connInfo {
	if cc, ok := http1.ConnContext(root.Context).(*connCtx); ok {
		return &cc.info
	}
	ci, _ := root.Value(connInfoKey{}).(*connInfo)
	return ci
}

// errShutdownCut is a request's end when the shutdown limit (a graceful
// stop, or the retirement of a listener after a reload) closed its
// connection: the client did not leave. It is a context.Canceled.
var errShutdownCut error = shutdownCut{}

type shutdownCut struct{}

func (shutdownCut) Error() string { return "request cut by the shutdown deadline" }
func (shutdownCut) Unwrap() error { return context.Canceled }

// dispatcher serves requests accepted on one bound address with whatever
// configuration is current.
type dispatcher struct {
	bound string
	cur   *atomic.Pointer[Config]
}

func (d *dispatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cfg := hold(d.cur)
	defer cfg.release() // deferred: a handler may end the request with a panic
	g := cfg.groupFor(d.bound, func() string { return localAddr(r) })
	if g == nil {
		http.Error(w, "no server for this address", http.StatusMisdirectedRequest)
		return
	}
	cfg.ServeGroup(w, r, g)
}

// ServeGroup serves r with the servers of one address group.
func (cfg *Config) ServeGroup(w http.ResponseWriter, r *http.Request, g *addrGroup) {
	target := r.RequestURI // $request_uri: as sent, before admit cuts a fragment
	root, fresh := r.Context().(*reqRoot)
	if !fresh || root.info.cfg != nil {
		root = &reqRoot{Context: r.Context()}
		r = r.WithContext(root)
	}
	ri, st := &root.info, &root.state
	// A server_name regex that picks the server records its captures in st.
	srv, host, refused := admit(r, g, st)
	rf := ri.rare().refusal
	if rf != nil {
		srv, host = refusalServer(rf, g, st)
		refused = rf.Status
	}
	ri.cfg, ri.srv, ri.st, ri.fl = cfg, srv, st, &root.fl
	st.Start = requestStart(w, rf)
	st.ServerName, st.Host, st.RequestURI = srv.Name(), host, target
	if ci := connInfoOf(root); ci != nil {
		st.ConnID = ci.id
		st.ConnRequests = ci.requests.Add(1)
		st.ConnStart = ci.start
		st.Hello, st.Conn = ci.hello, ci.conn
		if ci.unixPeer && r.ProtoMajor == 2 {
			r.RemoteAddr = "unix:"
		}
	}
	if r.ProtoMajor == 2 {
		ri.h2conn = LocConf[*coreLoc](g.initial(r.TLS).level, coreModule)
		if r.ContentLength == 0 {
			// Go's HTTP/2 server leaves its stream reader as the Body of
			// a request without one; the handlers (and copies a rewrite
			// makes, whose zero length then reads as unknown) expect
			// NoBody, as the HTTP/1.1 reader gives them.
			r.Body = http.NoBody
		}
	}
	st.URL = r.URL // normalisation and rewrites change it in place
	setWire(st, w, r)
	rw := newRecorder(w, st)
	defer rw.release()
	ri.rec, rw.ri = rw, ri

	// The URI is parsed before Host chooses the server, so the
	// merge_slashes of the server SNI chose, or of the address's default
	// server, applies, as in NGINX. NGINX parses it with the request
	// line, before it refuses a method it will not serve once the header
	// is in: "TRACE /.." is a 400, not a 405.
	initial := g.initial(r.TLS)
	if (refused == 0 || refused == http.StatusMethodNotAllowed) &&
		!normalizeURI(r, LocConf[*coreLoc](initial.level, coreModule).mergeSlashes.V) {
		if r.ProtoMajor == 1 {
			// NGINX refuses the path with the request line, before it
			// reads a field: in that server, with no Host and no field.
			srv, r.Host, r.Header = initial, "", http.Header{}
			ri.srv, st.ServerName, st.Host = srv, srv.Name(), ""
		}
		refuseAtServer(rw, r, srv, ri, http.StatusBadRequest)
		return
	}
	if refused != 0 {
		if r.ProtoMajor == 1 {
			// A request refused before any location ends its connection,
			// as in NGINX, whose keepalive is set only once a request
			// passes its header's checks: after a TRACE's 405 the next
			// request on the wire is not answered (its body, unread, may
			// be that request). HTTP/2's frames keep the next streams
			// apart: NGINX ends the stream only (on HTTP/2 "Connection:
			// close" is GOAWAY).
			rw.Header()["Connection"] = []string{"close"}
		}
		refuseAtServer(rw, r, srv, ri, refused)
		return
	}
	// A plain HTTP request on a TLS port: NGINX reads it as any other,
	// and answers it (497) once Host has chosen the server, before any
	// phase (realip, a server-level return) runs.
	if g.ssl && r.TLS == nil {
		serveCertError(rw, r, srv, statusToHTTPS)
		return
	}
	for _, f := range srv.postRead {
		f(r)
	}
	// ssl_verify_client is checked once the server is known, before any
	// location, as NGINX checks it when the request header is read.
	if code := checkClientCert(r, g, srv, ri); code != 0 {
		serveCertError(rw, r, srv, code)
		return
	}
	// The rewrite phases choose the location; a server-level return
	// answers before any location is chosen, in the server's chain.
	loc := ri.route(r, nil)
	ri.loc = loc
	st.Paths = loc
	loc.handler.ServeHTTP(rw, r)
	rw.settle()
}

// find returns the location for uri, or the server level when none
// matches (NGINX then serves with the server's settings); a regex
// location's captures go to st. redirect says that uri is to be
// redirected to the location rather than served by it (auto_redirect).
// An error (a regex match that could not be completed) comes with the
// server level: NGINX answers 500.
func (s *VServer) find(uri string, st *vars.State) (l *Location, redirect bool, err error) {
	l, redirect, err = s.locs.match(uri, st)
	if l == nil || err != nil {
		return s.level, false, err
	}
	return l, redirect, nil
}

// normalizePath applies NGINX's URI normalisation to r.URL.Path (already
// percent-decoded by net/http): merge slashes, resolve "." and "..". A
// path that climbs above the root is refused. A request whose path it
// changes gets that path as its RequestURI too.
func normalizePath(r *http.Request) bool { return normalizeURI(r, true) }

// normalizeURI is normalizePath with merge_slashes: with merge false,
// empty segments ("//") stay, as NGINX keeps them with merge_slashes off;
// "." and ".." are resolved all the same.
func normalizeURI(r *http.Request, merge bool) bool {
	p := r.URL.Path
	if p == "" {
		r.URL.Path = "/"
		return true
	}
	if p[0] != '/' {
		return false // "*" and authority forms are refused before (admit)
	}
	if plainPath(p) {
		return true
	}
	if strings.IndexByte(p, 0) >= 0 {
		return false
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		switch s {
		case "", ".":
			if i == len(segs)-1 || (s == "" && i > 0 && !merge) {
				out = append(out, "") // the trailing slash; "//" unmerged
			}
			continue
		case "..":
			if len(out) == 0 {
				return false
			}
			out = out[:len(out)-1]
			if i == len(segs)-1 {
				out = append(out, "")
			}
			continue
		}
		out = append(out, s)
	}
	np := "/" + strings.Join(out, "/")
	if np != p {
		r.URL.Path = np
		r.URL.RawPath = ""
		if r.RequestURI != "" {
			// The client's target names another path than the one that
			// picks the location (dot segments, merged slashes, their
			// percent-encoded forms): a proxy must send the path that was
			// routed, not the target as sent, which the origin could
			// resolve differently.
			r.RequestURI = normalizedTarget(r, np)
		}
	}
	return true
}

// normalizedTarget is the request target for the normalised path np of
// r. A client's path without a percent-escape (no quoted_uri in NGINX)
// is its decoded path byte for byte, and so is np: it stands as it is,
// a raw '"' or UTF-8 byte included, for a proxy to send unescaped as
// NGINX sends its parsed URI (after "set $args", or with a URI part in
// proxy_pass); net/url would escape those and make the target look
// quoted. Otherwise the URL's own escaping: the proxy escapes the path
// again, as NGINX does for a quoted_uri.
func normalizedTarget(r *http.Request, np string) string {
	if !reqrule.Unquoted(r.RequestURI) {
		return r.URL.RequestURI()
	}
	t := reqrule.OriginForm(r.RequestURI)
	if i := strings.IndexByte(t, '?'); i >= 0 {
		return np + t[i:] // the arguments as the client sent them
	}
	return np
}

// plainPath reports whether the rooted path p has nothing that
// normalizeURI changes or refuses: no "//", no "/.", no backslash and no
// NUL. Every request's path comes here and most are plain, so it is one
// pass over the bytes, where four searches (three Contains and an
// IndexByte) made four; the bytes above '/' but the backslash (letters
// and digits among them) leave by the first case.
func plainPath(p string) bool {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c > '/' && c != '\\':
		case c == '/':
			if i+1 < len(p) && (p[i+1] == '/' || p[i+1] == '.') {
				return false
			}
		case c == '\\' || c == 0:
			return false
		}
	}
	return true
}

// InternalRedirect serves r again for uri (with its own query string, if
// any) with the location that uri selects, as NGINX's try_files fallback
// and error_page do. A name starting with "@" selects a named location.
// w is the writer the caller was given, or one it wrapped around it; what
// the caller's wrappers do (an error_page status) stays in force. As in
// NGINX, whose redirect switches the location configuration that the
// header and body filters read, the response goes out through the output
// filters of the target location (add_header, expires, limit_rate,
// compression, SSI, ESI), not those of the location that redirects,
// which see nothing of it; the request filters (the access log, metrics)
// stay those of the first location (the access log writes with the
// final location's access_log). Nothing must have been written to w.
func InternalRedirect(w http.ResponseWriter, r *http.Request, uri string) {
	// As NGINX: the arguments are those of uri, none if it has none
	// (try_files and error_page targets name $args to keep them). A "?"
	// gives them a place even when nothing follows it: NGINX splits them
	// off by pointer and length, so $args is then empty, not without a
	// value (State.ArgsKept).
	path, query, split := strings.Cut(uri, "?")
	if st := vars.FromContext(r.Context()); st != nil && uri[0] != '@' {
		st.ArgsKept = split
	}
	redirect(w, r, uri, path, query)
}

// InternalRedirectKeepArgs is InternalRedirect to path taken as it is (a
// "?" in it is part of the URI) with the request's own arguments: how
// NGINX's index module redirects to an absolute index name.
func InternalRedirectKeepArgs(w http.ResponseWriter, r *http.Request, path string) {
	redirect(w, r, path, path, r.URL.RawQuery)
}

// redirect serves r again for path and query, or for the named location
// uri.
func redirect(w http.ResponseWriter, r *http.Request, uri, path, query string) {
	redirectTo(w, r, uri, path, query, strings.HasPrefix(uri, "@"))
}

// redirectTo is redirect with named saying whether uri names a location
// (a post_action that does not start with "/", as NGINX takes it).
func redirectTo(w http.ResponseWriter, r *http.Request, uri, path, query string, named bool) {
	ri := infoFrom(r.Context())
	if ri == nil {
		http.NotFound(w, r)
		return
	}
	if ri.redirects == nil {
		ri.redirects = new(int)
	}
	if *ri.redirects >= maxRedirects {
		what := "internally redirecting to"
		if named {
			what = "redirect to named location" // NGINX's words
		}
		ri.loc.Logger().Error(fmt.Sprintf("rewrite or internal redirection cycle while %s %q", what, uri))
		*ri.redirects = cycleHit
		Error(w, r, http.StatusInternalServerError)
		return
	}
	*ri.redirects++
	nri := ri.fork()
	nri.internal, nri.prefixLost = true, false
	r2 := r.Clone(context.WithValue(r.Context(), reqInfoKey{}, &nri))
	var loc *Location
	if named {
		loc = ri.srv.named[uri]
		if loc == nil {
			ri.loc.Logger().Error(fmt.Sprintf("could not find named location %q", uri))
			Error(w, r, http.StatusInternalServerError)
			return
		}
	} else {
		r2.URL.Path, r2.URL.RawPath = path, ""
		r2.RequestURI = "" // the URI changed: a proxy sends the new one
		r2.URL.RawQuery, r2.URL.ForceQuery = query, false
		// NGINX takes the new URI as it is written: "//" stays, whatever
		// merge_slashes says (it acts on the client's URI only), and
		// picks the location with it. "." and ".." are still resolved,
		// so that a value a variable brings cannot climb. A path without
		// its leading slash (an upstream's "X-Accel-Redirect: file")
		// goes on as it is, as in NGINX: no prefix location takes it,
		// and the server's own level answers, 404 for a missing file,
		// where refusing it was a 400 that closed the connection.
		if !relativeTarget(path) && !normalizeURI(r2, false) {
			Error(w, r, http.StatusBadRequest)
			return
		}
	}
	// $uri and $args read the new URL from now on, in the access log too.
	ri.st.URL = r2.URL
	// What the location left has no value in the next (NGINX clears the
	// modules' contexts of the request).
	ri.st.LeaveLocation()
	// NGINX runs the rewrite phases again for the new URI (for a named
	// location, its own steps only).
	loc = nri.route(r2, loc)
	nri.loc = loc
	ri.st.Paths = loc
	if ri.fl != nil {
		ri.fl.loc = loc
	}
	if !ri.fl.redirectable() {
		// The response does not go through a slot (an error page for a
		// request refused before any location): the filters in place
		// stay.
		loc.content.ServeHTTP(w, r2)
		return
	}
	// The target's output filters take the response over (filterlayer.go).
	nri.redir = &redirTarget{loc: loc, w: w}
	out, main := loc.output, ri.rare().subDepth == 0
	if !main {
		out = loc.subOutput
	}
	out.ServeHTTP(ri.fl.switchTo(loc, r2, main), r2)
}

// relativeTarget reports whether an internal redirect's path has no
// leading slash and nothing normalisation would refuse or resolve: a NUL,
// or a dot segment, which could climb from a root the path is joined to.
func relativeTarget(p string) bool {
	if p == "" || p[0] == '/' || strings.IndexByte(p, 0) >= 0 {
		return false
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// wrapCore adds the core's per-location steps around the content handler:
// internal-only locations, the body size limit, try_files, error_page and
// the modules' preaccess and access phases.
func wrapCore(l *Location, content http.Handler) (http.Handler, error) {
	cl := LocConf[*coreLoc](l, coreModule)
	h, err := wrapPhase(l, content, precontentOrder, func(m *Module) func(*Location, http.Handler) (http.Handler, error) {
		return m.Precontent
	})
	if err != nil {
		return nil, err
	}
	if len(cl.tryFiles) > 0 {
		h = newTryFiles(l, cl.tryFiles, h)
	}
	// The access phase runs after the preaccess one, before try_files.
	h, err = wrapAccess(l, h)
	if err != nil {
		return nil, err
	}
	h, err = wrapPhase(l, h, preaccessOrder, func(m *Module) func(*Location, http.Handler) (http.Handler, error) {
		return m.Preaccess
	})
	if err != nil {
		return nil, err
	}
	return &coreHandler{loc: l, cl: cl, next: h}, nil
}

// wrapPhase puts the handlers that hook (Preaccess, Precontent) gives
// the modules of one phase in front of h, the first in order outermost.
func wrapPhase(l *Location, h http.Handler, order []string, hook func(*Module) func(*Location, http.Handler) (http.Handler, error)) (http.Handler, error) {
	var pre []*Module
	for _, m := range Modules() {
		if hook(m) != nil {
			pre = append(pre, m)
		}
	}
	sort.SliceStable(pre, func(i, j int) bool {
		return orderOf(order, pre[i].Name) > orderOf(order, pre[j].Name)
	})
	for _, m := range pre {
		var err error
		if h, err = hook(m)(l, h); err != nil {
			return nil, err
		}
	}
	return h, nil
}

type coreHandler struct {
	loc  *Location
	cl   *coreLoc
	next http.Handler
}

func (h *coreHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ri := infoFrom(r.Context())
	if ri != nil {
		ri.loc = h.loc
		if ri.st != nil {
			ri.st.Paths = h.loc
		}
	}
	if len(h.cl.errorPages) == 0 || ri == nil || ri.errorPage {
		h.serve(w, r, ri)
		return
	}
	ew := &errorPageWriter{ResponseWriter: w, pages: h.cl.errorPages, st: ri.st, fl: ri.fl}
	if ri.fl != nil {
		ew.gate = ri.fl.cur
	}
	h.serve(ew, r, ri)
	if ew.caught != 0 {
		// recursive_error_pages on lets the page's own errors be caught
		// again (within the limit of internal redirects).
		serveErrorPage(w, r, ew.caught, ew.page, h.cl.recursivePages.V)
	}
}

func (h *coreHandler) serve(w http.ResponseWriter, r *http.Request, ri *reqInfo) {
	if h.cl.internal && (ri == nil || !ri.internal) {
		Error(w, r, http.StatusNotFound)
		return
	}
	// A body saved whole before (a subrequest's share of its parent's,
	// an error page's) is read from no client any more: no limit or
	// timeout of the client's reads applies, and a proxy sends it from
	// where it is rather than saving it again.
	fromClient := r.Body != nil && r.Body != http.NoBody && spool.Saved(r.Body) == nil
	// NGINX compares a subrequest's length too: it has its parent's,
	// also where it has no body yet, only that length (an auth_request
	// check made before the parent read the body, see sharedBody).
	hasBody := r.Body != nil && (r.Body != http.NoBody || r.ContentLength > 0)
	if max := h.cl.clientMaxBody.V; max > 0 && hasBody {
		// After a server-level answer only the up-front refusal is
		// skipped: a body that an error page's content goes on to read
		// stays bounded.
		if r.ContentLength > max && (ri == nil || !ri.serverAnswered) {
			h.loc.Logger().Error(fmt.Sprintf("client intended to send too large body: %d bytes", r.ContentLength))
			Error(w, r, http.StatusRequestEntityTooLarge)
			return
		}
		if fromClient {
			if lb, ok := r.Body.(interface{ LimitBody(int64) }); ok {
				lb.LimitBody(max) // a chunk too large is refused by its size (http1)
			}
			r.Body = http.MaxBytesReader(w, r.Body, max)
		}
	}
	if ri != nil && ri.rec != nil {
		ri.rec.setConnection(h.cl)
		if fromClient && ri.rec.deadlines != nil {
			// client_body_timeout: the time allowed between two reads.
			db := &deadlineBody{ReadCloser: r.Body, d: ri.rec.deadlines, timeout: h.cl.bodyTimeout.V}
			ri.rec.bodies = append(ri.rec.bodies, db)
			r.Body = db
		}
	}
	// NGINX's chunked filter reads the final location's setting, so an
	// internal redirect out of an "off" location turns chunking back on.
	// Only a change goes down to the writer: most requests never meet an
	// "off" location, and their writer chain is not walked.
	if off := h.cl.chunkedOff.V; ri == nil && off || ri != nil && off != ri.noChunks {
		setChunking(w, !off)
		if ri != nil {
			ri.noChunks = off
		}
	}
	if r.ProtoMajor == 2 {
		if h2ConnEnds(ri) {
			w.Header()["Connection"] = []string{"close"} // Go's server sends GOAWAY
		}
	} else if h.cl.keepalive.V == 0 || keptTooLong(ri, h.cl.keepaliveTime.V) || keepaliveDisabled(r, h.cl.keepaliveOff.V) {
		w.Header()["Connection"] = []string{"close"}
	} else if h.cl.keepaliveHdr.V != nil && r.ProtoMajor == 1 {
		w.Header()["Keep-Alive"] = h.cl.keepaliveHdr.V
	}
	if ri != nil && ri.pending != nil {
		// A rewrite step answered: the location's content does not run.
		p := ri.pending
		ri.pending = nil
		p.ServeHTTP(w, r)
		return
	}
	h.next.ServeHTTP(w, r)
}

// setChunking tells the HTTP/1.1 writer under w whether to frame a body
// of unknown length in chunks (chunked_transfer_encoding); off, the
// connection's close ends it, as in NGINX. HTTP/2 has no chunks.
func setChunking(w http.ResponseWriter, on bool) {
	for w != nil {
		if n, ok := w.(interface{ SetChunking(bool) }); ok {
			n.SetChunking(on)
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

// keptTooLong reports whether the client's connection has served
// requests for longer than keepalive_time (d, 0 for no limit): NGINX then
// closes it after the response, which says so.
func keptTooLong(ri *reqInfo, d time.Duration) bool {
	return d > 0 && ri != nil && ri.st != nil && !ri.st.ConnStart.IsZero() && time.Since(ri.st.ConnStart) > d
}

// h2ConnEnds reports whether an HTTP/2 request is the last its
// connection serves, as NGINX decides when the stream opens, with the
// settings of the server SNI chose (ri.h2conn): keepalive_timeout 0, the
// last stream keepalive_requests allows, or keepalive_time passed. http1
// counts a connection's requests itself; on HTTP/2 the response's
// "Connection: close" makes Go's server send GOAWAY, as NGINX does. A
// subrequest has no connection of its own.
func h2ConnEnds(ri *reqInfo) bool {
	if ri == nil || ri.h2conn == nil || ri.st == nil {
		return false
	}
	cl := ri.h2conn
	return cl.keepalive.V == 0 || keptTooLong(ri, cl.keepaliveTime.V) ||
		ri.st.ConnRequests >= uint64(maxRequests(cl.keepaliveReqs.V))
}

// serveErrorPage answers with the error_page target for code.
func serveErrorPage(w http.ResponseWriter, r *http.Request, code int, ep errorPage, recursive bool) {
	ri := infoFrom(r.Context())
	if ri.redirects != nil && *ri.redirects == cycleHit {
		// The redirection cycle guard fired: its 500 goes out as it is,
		// a page that redirects the client included, as NGINX's
		// uri_changes, spent, turns every error_page off. At the limit
		// without it, the page's internal redirect is the one too many:
		// the guard fires there, and the request ends in 500 as in
		// NGINX, whatever the status the page was for.
		Error(w, r, code)
		return
	}
	uri := ep.uri.Eval(r)
	if !strings.HasPrefix(uri, "/") && !strings.HasPrefix(uri, "@") {
		// An absolute URL: the client is redirected, with 302 unless
		// "=code" names another redirect; NGINX's send_error_page turns
		// any other code ("=404", "=200") into 302 too.
		status := http.StatusFound
		if isRedirect(ep.override) {
			status = ep.override
		}
		w.Header()["Location"] = []string{uri}
		Error(w, r, status)
		return
	}
	if uri[0] == '@' && ri.rare().refusal != nil && ri.rare().refusal.Method == "" {
		// A request whose line was refused has no URI, which NGINX does
		// not take to a named location: the page ends in 500, rather than
		// a location run (and a request proxied) without method or URI.
		ri.loc.Logger().Error(fmt.Sprintf("empty URI in redirect to named location %q", uri))
		Error(w, r, http.StatusInternalServerError)
		return
	}
	nri := ri.fork()
	nri.errorPage = !recursive
	r2 := r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, &nri))
	// As NGINX: a URI is asked for with GET (a HEAD stays a HEAD), a named
	// location gets the method as it came (its limit_except sees it, a
	// fallback upstream gets the POST). The body goes with either when it
	// can go whole: unread, or read by a proxy that failed, into memory
	// or a file.
	// One read in part cannot, nor one refused as too large (413), which
	// NGINX discards: the page gets none rather than a short one.
	if uri[0] != '@' && r2.Method != http.MethodHead {
		r2.Method = http.MethodGet
		if ri.st != nil {
			ri.st.Method = http.MethodGet
		}
	}
	// The client's Range and validators stay: NGINX's range and
	// not-modified filters act on the page's response when its status is
	// 200 ("=200", or "=" and a target that answers 200), and a proxied
	// target gets them as any proxied request does. A page with its
	// error's status is neither ranged nor validated (static's
	// errorStatus).
	switch {
	case code != http.StatusRequestEntityTooLarge && resendBody(r2, ri.st):
	case code == http.StatusRequestEntityTooLarge || !bodyUnread(r.Body):
		r2.Body, r2.ContentLength, r2.TransferEncoding = http.NoBody, 0, nil
		r2.Header = without(r2.Header, framing)
	}
	var sw http.ResponseWriter = w
	status := 0 // with "=", the page's own
	if !ep.useTarget {
		status = code
		if ep.override != 0 {
			status = ep.override
		}
		sw = &statusWriter{ResponseWriter: w, status: status, st: ri.st}
	}
	// A page caught inside another (recursive_error_pages) goes with its
	// own error_page's status, "=" the page's: NGINX keeps one err_status
	// per request, which the outer page's writers under w must not
	// replace with theirs.
	markError(w, status)
	if ri.rec != nil {
		// With "=" NGINX's err_status is 0 again: the page's own status
		// is the request's, which a post action's may replace.
		ri.rec.special = status != 0
	}
	if ri.st != nil {
		// Nothing has gone to the client: $status is the status the page
		// goes with from now on (NGINX's err_status), which the page's
		// own return text sees.
		ri.st.Status = status
	}
	InternalRedirect(sw, r2, uri)
}

// resendBody gives r2 the request body that a handler read whole (NGINX's
// r->request_body), to be sent again: from memory, or from the file it
// was saved in, which stays open until the request ends. It reports
// false, leaving r2 as it is, when there is none.
func resendBody(r2 *http.Request, st *vars.State) bool {
	x := st.Rare()
	switch {
	case x != nil && x.RequestBody != nil:
		r2.Body = io.NopCloser(bytes.NewReader(x.RequestBody))
		r2.ContentLength = int64(len(x.RequestBody))
	case x != nil && x.SavedBody != nil:
		r2.Body, r2.ContentLength = x.SavedBody.Body(), x.SavedBody.Size
	default:
		return false
	}
	return true
}

// bodyUnread reports whether no handler has read from body yet: there is
// none, or it is the one the core gave the location (deadlineBody) and
// nothing was read from it.
func bodyUnread(body io.ReadCloser) bool {
	if body == nil || body == http.NoBody {
		return true
	}
	b, ok := body.(*deadlineBody)
	return ok && !b.read.Load()
}

// framing are the request fields that delimit its body.
var framing = []string{"Content-Length", "Transfer-Encoding"}

// without returns h, or a copy of it without the fields names.
func without(h http.Header, names []string) http.Header {
	for _, k := range names {
		if _, ok := h[k]; ok {
			h = h.Clone()
			for _, k := range names {
				delete(h, k)
			}
			return h
		}
	}
	return h
}

// errorPageWriter swallows a response whose status has an error_page, so
// that the page can be served instead. Responses relayed from an upstream
// are not intercepted (NGINX's proxy_intercept_errors off).
//
// The response of an internal redirect's target is not either: NGINX
// reads error_page in the location that finishes the request, whose own
// errorPageWriter catches what its error_page covers. The gate in force
// when the writer was made tells: a redirect below replaced it.
type errorPageWriter struct {
	http.ResponseWriter
	pages  map[int]errorPage
	st     *vars.State
	fl     *filterLayer
	gate   *outputGate
	caught int
	page   errorPage
	wrote  bool
	// uncaught: the response is one NGINX sends itself (writeUncaught).
	uncaught bool
	// special: the response is the server's own error page (Error), which
	// error_page replaces even when an upstream was tried before it.
	special bool
	// own: the server's page replaces even a stored response's (StoredError).
	own bool
	// reason and reasonCode are an upstream's reason phrase, passed on
	// only with a response that no page replaces (SetReason).
	reason     string
	reasonCode int
}

// SetReason keeps an upstream's reason phrase for code until the status
// is written: a page that replaces the response goes out with NGINX's.
func (e *errorPageWriter) SetReason(code int, phrase string) {
	e.reason, e.reasonCode = phrase, code
}

// reasonSetter is a writer that sends a reason phrase of its caller's
// choosing with a status (http1's, through SetReason).
type reasonSetter interface{ SetReason(code int, phrase string) }

// passReason hands phrase to the first writer under w that sends one.
func passReason(w http.ResponseWriter, code int, phrase string) {
	for w != nil {
		if rs, ok := w.(reasonSetter); ok {
			rs.SetReason(code, phrase)
			return
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return
		}
		w = u.Unwrap()
	}
}

// writeUncaught writes the status of a response that NGINX sends itself,
// as ngx_http_send_response does return's text: it does not go through
// the special response handler, where error_page is looked up, so no
// error_page replaces it ("return 404 text;" sends the text). The status
// that the error page it answers in goes with still applies.
func writeUncaught(w http.ResponseWriter, code int) {
	markUncaught(w)
	w.WriteHeader(code)
}

// markUncaught tells the error_page writers under w that the response
// to come is one no error_page replaces.
func markUncaught(w http.ResponseWriter) {
	eachErrorPageWriter(w, func(e *errorPageWriter) { e.uncaught = true })
}

// eachErrorPageWriter calls mark with each error_page writer under w.
func eachErrorPageWriter(w http.ResponseWriter, mark func(*errorPageWriter)) {
	for u := w; ; {
		if e, ok := u.(*errorPageWriter); ok {
			mark(e)
		}
		x, ok := u.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			break
		}
		u = x.Unwrap()
	}
}

func (e *errorPageWriter) WriteHeader(code int) {
	if e.caught != 0 || e.wrote {
		return
	}
	if p, ok := e.pages[code]; ok && !e.uncaught && (e.fl == nil || e.fl.cur == e.gate) {
		if e.own || !relayed(e.st, e.special) {
			e.caught, e.page = code, p
			// The fields of the body the page replaces (the length and type
			// of the server's own page) must not describe the page's: a
			// target that streams its answer would go out cut to them.
			clearRepresentation(e.ResponseWriter.Header(), code)
			if code == http.StatusRequestedRangeNotSatisfiable {
				// A refused range's page keeps what add_header and
				// expires gave the 200, as NGINX's does, a
				// Content-Language or Content-Disposition among them:
				// added after those fields went.
				header.RangeRefusedToPage(e.ResponseWriter)
			}
			return
		}
	}
	if code >= 200 {
		e.wrote = true
		if e.reasonCode == code {
			passReason(e.ResponseWriter, code, e.reason)
		}
	}
	e.ResponseWriter.WriteHeader(code)
}

// relayed reports a response that comes from an upstream, fresh
// ($upstream_status) or stored (a cache's HIT, STALE, UPDATING or
// REVALIDATED): error_page does not replace those, as NGINX's
// proxy_intercept_errors is off. A cache's own 504 is not relayed, nor,
// with special, the server's own page after the tries that
// $upstream_status names. A stored response stays relayed even then:
// proxy_cache_use_stale serves it in place of the proxy's 502, which
// went to the cache, not to the client.
func relayed(st *vars.State, special bool) bool {
	switch s, _ := st.Get("upstream_cache_status"); s {
	case "HIT", "STALE", "UPDATING", "REVALIDATED":
		return true
	}
	_, ok := st.Get("upstream_status")
	return ok && !special
}

func (e *errorPageWriter) Write(b []byte) (int, error) {
	if e.caught != 0 {
		return len(b), nil
	}
	if !e.wrote {
		e.WriteHeader(http.StatusOK)
		if e.caught != 0 {
			return len(b), nil
		}
	}
	return e.ResponseWriter.Write(b)
}

func (e *errorPageWriter) Flush() {
	if e.caught == 0 {
		if f, ok := e.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
}

func (e *errorPageWriter) Unwrap() http.ResponseWriter { return e.ResponseWriter }

// statusWriter replaces the status of the response written through it;
// status 0 (a page inside it with "=") keeps the response's own.
type statusWriter struct {
	http.ResponseWriter
	status int
	st     *vars.State
	done   bool
}

func (s *statusWriter) WriteHeader(code int) {
	if s.done {
		return
	}
	if code < 200 {
		s.ResponseWriter.WriteHeader(code) // 1xx pass through unchanged
		return
	}
	s.done = true
	if s.status == http.StatusOK && s.st != nil && !relayed(s.st, false) {
		if rangedOrValidated(code) {
			// "=200" makes the page a 200, which NGINX's range and
			// not-modified filters then cut or validate: the content's
			// 206, 416 or 304 stands. An upstream's goes out as 200, as
			// NGINX overrides its status before those filters (which
			// leave a proxied body alone).
			s.ResponseWriter.WriteHeader(code)
			return
		}
		if code == http.StatusOK {
			// A refused range's "bytes */N" describes the file, not the
			// page. NGINX refuses the page's range too (its request
			// keeps the file's leave to cut ranges, and a 200 from
			// "return" is refused with a 416 page): mosaic sends the
			// 200 that "=200" asks for (TestRangeErrorPageReturnAsNGINX).
			delete(s.ResponseWriter.Header(), "Content-Range")
		}
	}
	if s.status != 0 {
		code = s.status
		if code != http.StatusOK {
			// A file served as an error page with another status goes
			// without its date and ranges, as NGINX's: its header filter
			// sends a file's Last-Modified with 200, 206 and 304 only,
			// its range filter Accept-Ranges with 200 only.
			h := s.ResponseWriter.Header()
			delete(h, "Accept-Ranges")
			if code != http.StatusPartialContent && code != http.StatusNotModified {
				delete(h, "Last-Modified")
			}
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

// rangedOrValidated reports a status that NGINX's range and not-modified
// filters make of a 200.
func rangedOrValidated(code int) bool {
	switch code {
	case http.StatusPartialContent, http.StatusRequestedRangeNotSatisfiable, http.StatusNotModified, http.StatusPreconditionFailed:
		return true
	}
	return false
}

// SetReason passes an upstream's phrase on only when the page keeps its
// response's status ("="): NGINX sends a status that error_page sets
// (error_page 404 @x, =200 @x) with its own phrase, whatever the page's
// upstream wrote.
func (s *statusWriter) SetReason(code int, rest string) {
	if s.status == 0 {
		passReason(s.ResponseWriter, code, rest)
	}
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if !s.done {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func localAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(interface{ String() string }); ok {
		return a.String()
	}
	return ""
}

var notFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	Error(w, r, http.StatusNotFound)
})

// requestStart is when the request began: as in NGINX, with its first
// byte, so that $request_time counts the reading of the header, and for
// a request refused in the middle of it (408), the wait. Where the
// connection does not tell (HTTP/2), now.
func requestStart(w http.ResponseWriter, rf *http1.Refusal) time.Time {
	if rf != nil && !rf.Start.IsZero() {
		return rf.Start
	}
	if rs, ok := w.(interface{ RequestStart() time.Time }); ok {
		if t := rs.RequestStart(); !t.IsZero() {
			return t
		}
	}
	return time.Now()
}
