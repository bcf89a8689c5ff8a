package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/gopool"
	"github.com/mosaic-edge/mosaic/internal/spool"
	"github.com/mosaic-edge/mosaic/vars"
)

// MaxSubrequestDepth bounds how deeply subrequests may nest (a fragment
// that includes a fragment ...), like NGINX's subrequest guard.
const MaxSubrequestDepth = 10

// ErrSubrequestDepth is wrapped by the error of a subrequest issued too
// deep.
var ErrSubrequestDepth = errors.New("subrequest nesting too deep")

// ErrNotInServer is returned for a subrequest from a request that the
// server did not dispatch (a handler used as plain middleware).
var ErrNotInServer = errors.New("subrequest outside the server")

// Subrequest issues an in-process GET for uri, relative to parent's URI,
// through the same virtual server's locations (internal ones included).
// The location's content runs with the filters meant for subrequests (not
// compression, not access logging). The response's Body streams as the
// content writes; closing it, or cancelling parent's context, stops the
// subrequest. header becomes the subrequest's header (nil copies parent's).
//
// The subrequest's $request_uri is its parent's, as NGINX copies the
// parent's unparsed URI into a subrequest: the location of an auth_request
// check sends the URI it checks ("proxy_set_header X-Original-URI
// $request_uri"), not its own. An include uses Include instead.
func Subrequest(parent *http.Request, uri string, header http.Header) (*http.Response, error) {
	return issue(parent, uri, header, subPlain)
}

// SubrequestClone is Subrequest for parent's current URI, served by the
// location parent is in, without the rewrite phases or a location
// search, as NGINX's clone subrequests (the slice module's) start at the
// content of their parent's location: a URI that "rewrite ... break"
// made stays in the location that rewrote it, with the regex captures
// and the variables ("set") its directives read.
func SubrequestClone(parent *http.Request) (*http.Response, error) {
	return issue(parent, parent.URL.RequestURI(), nil, subClone)
}

// SubrequestHeader is Subrequest for a caller that wants only the status
// and header, as NGINX's header-only subrequests (auth_request): once the
// header is in, the subrequest is stopped and waited for, so that the
// variables it set are final when this returns, without its body being
// read (an endpoint that streams, or sends a large body, would otherwise
// hold the request). A body of length 0, or none by the status (204,
// 304), is read to its end instead, so that an upstream connection that
// answered it whole stays open, as NGINX keeps the upstream's connection
// of such an answer. The response's Body is empty.
func SubrequestHeader(parent *http.Request, uri string, header http.Header) (*http.Response, error) {
	resp, err := issue(parent, uri, header, subHeaderOnly)
	if err != nil {
		return nil, err
	}
	endHeaderOnly(resp)
	return resp, nil
}

// endHeaderOnly stops a header-only subrequest whose header is in and
// waits for its handler to return.
func endHeaderOnly(resp *http.Response) {
	b := resp.Body.(*subBody)
	if resp.ContentLength == 0 || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified {
		_, _ = io.Copy(io.Discard, b)
	}
	b.Close()
	b.ended.Wait()
	resp.Body = http.NoBody
}

// Include is Subrequest for a fragment that SSI or ESI includes in a page,
// whose $request_uri is its own URI where NGINX's is the page's: with it,
// the default proxy_cache_key ($scheme$proxy_host$request_uri) keeps an
// entry for each fragment, where in NGINX every include of a page would
// share the page's key (see vars/README.md).
func Include(parent *http.Request, uri string, header http.Header) (*http.Response, error) {
	return issue(parent, uri, header, subInclude)
}

// The kinds of subrequest issue makes.
const (
	subPlain      = iota // Subrequest
	subInclude           // Include: its own $request_uri
	subHeaderOnly        // SubrequestHeader: vars.State.HeaderOnly
	subClone             // SubrequestClone: the parent's location
)

func issue(parent *http.Request, uri string, header http.Header, kind int) (*http.Response, error) {
	sub, err := begin(parent, uri, header, kind, nil)
	if err != nil {
		return nil, err
	}
	return sub.await()
}

// subSend is what a subrequest sends other than its parent's: the
// method and a body of size bytes (nil: the parent's, see sharedBody).
type subSend struct {
	method string
	body   io.Reader
	size   int64
}

// Background starts a subrequest for uri as NGINX's background
// subrequests (mirror): with method and a body of size bytes (nil: the
// parent's, as other subrequests have, see sharedBody) rather than a
// GET, header-only (once its status and header are in, it is stopped,
// as SubrequestHeader's), and without anything waiting for it: the
// function returned does, until it has ended.
// Cancelling parent's context stops it.
func Background(parent *http.Request, uri, method string, header http.Header, body io.Reader, size int64) (wait func(), err error) {
	if ri := infoFrom(parent.Context()); ri != nil {
		// The parent's $request_id is made now, in the parent's
		// goroutine: the subrequest's, which reads it, runs in another.
		ri.st.RequestID()
	}
	sub, err := begin(parent, uri, header, subHeaderOnly, &subSend{method: method, body: body, size: size})
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := sub.await(); err == nil {
			endHeaderOnly(resp)
		} else {
			// The body may be read until the handler has returned.
			sub.ended.Wait()
		}
	}()
	return func() { <-done }, nil
}

// begin makes the subrequest and starts its handler; await waits for its
// header.
func begin(parent *http.Request, uri string, header http.Header, kind int, send *subSend) (*subrequest, error) {
	include := kind == subInclude
	ri := infoFrom(parent.Context())
	if ri == nil {
		return nil, ErrNotInServer
	}
	if depth := ri.rare().subDepth; depth+1 > MaxSubrequestDepth {
		return nil, fmt.Errorf("subrequests cycle while processing %q (depth %d): %w", uri, depth, ErrSubrequestDepth)
	}
	u, err := subrequestURL(parent.URL, uri)
	if err != nil {
		return nil, err
	}
	if header == nil {
		header = parent.Header.Clone()
	}
	ctx, cancel := context.WithCancel(parent.Context())
	// The subrequest's context node, variables, record, writer, body and
	// response live and die together: one allocation for all of them, of
	// the dozens a fragment costs (modules/esimod's BenchmarkPage32).
	sub := &subrequest{}
	sub.root.Context = ctx
	st, sri := &sub.root.state, &sub.root.info
	// HeaderLines are the page's: an NGINX subrequest shares its
	// parent's headers_in, which it passes upstream in their order.
	*st = vars.State{Start: time.Now(), ConnID: ri.st.ConnID, ServerName: ri.st.ServerName, Host: ri.st.Host,
		ConnRequests: ri.st.ConnRequests, ConnStart: ri.st.ConnStart, RemoteAddr: ri.st.RemoteAddr, ConnAddr: ri.st.ConnAddr,
		HeaderLines: ri.st.HeaderLines}
	// A subrequest shares $request_id, which takes the State's Rare
	// values: they come in this allocation, not one of their own.
	st.UseRare(&sub.rare)
	st.ShareRequestID(ri.st)
	st.HeaderOnly = kind == subHeaderOnly
	// $request is the main request's line in a subrequest, as in NGINX.
	if px := ri.st.Rare(); px != nil {
		sub.rare.RequestLine, sub.rare.Main = px.RequestLine, px.Main
	}
	if sub.rare.RequestLine == "" && sub.rare.Main.Method == "" {
		sub.rare.Main = vars.MainLine{Method: parent.Method, Target: ri.st.RequestURI, Proto: parent.Proto}
		if sub.rare.Main.Target == "" {
			sub.rare.Main.Target = parent.URL.RequestURI()
		}
	}
	if !include {
		// $request_uri is the parent's (NGINX: sr->unparsed_uri =
		// r->unparsed_uri), which an internal redirect of the parent
		// left as it was; an include's is set below, once its path is
		// normalised.
		st.RequestURI = ri.st.RequestURI
		if st.RequestURI == "" {
			st.RequestURI = parent.RequestURI
		}
		if st.RequestURI == "" {
			st.RequestURI = parent.URL.RequestURI()
		}
	}
	remote := parent.RemoteAddr
	if st.RemoteAddr != "" {
		// A module replaced the client's address (realip) after the
		// parent's filters took their copy of the request: the
		// subrequest has the connection's client, as NGINX's do.
		remote = st.RemoteAddr
	}
	sub.seldom = reqSeldom{subDepth: ri.rare().subDepth + 1}
	*sri = reqInfo{cfg: ri.cfg, srv: ri.srv, st: st, internal: true, seldom: &sub.seldom, fl: &sub.root.fl}
	if kind == subInclude || kind == subPlain {
		// Its body goes into the parent's (SSI, ESI, addition), in
		// the main response's charset.
		sub.seldom.includer = ri
		if inc := ri.rare().includer; inc != nil {
			sub.seldom.includer = inc
		}
	}
	ctx = &sub.root
	// Built in place and copied once by WithContext, the only way to set
	// a request's context.
	proto := http.Request{
		Method:     http.MethodGet,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Body:       http.NoBody,
		Host:       parent.Host,
		RemoteAddr: remote,
		RequestURI: u.RequestURI(),
		TLS:        parent.TLS,
	}
	if send != nil {
		proto.Method = send.method
	}
	if send != nil && send.body != nil && send.size > 0 {
		// The parent's body too, which the caller saved (mirror): kept
		// as it comes, so that a spool.Saved body stays one a proxy
		// sends from where it is.
		body, ok := send.body.(io.ReadCloser)
		if !ok {
			body = io.NopCloser(send.body)
		}
		proto.Body, proto.ContentLength = body, send.size
		shareBodyRecord(ri.st, st)
	} else {
		// Only auth_request's checks and mirrors start before the
		// parent's content; the others come from its output.
		proto.Body, proto.ContentLength = sharedBody(parent, ri.st, st, kind != subHeaderOnly)
	}
	r := proto.WithContext(ctx)
	if !normalizePath(r) {
		cancel()
		return nil, fmt.Errorf("subrequest %q: invalid path", uri)
	}
	if include {
		// The include's own URI is its $request_uri, kept in the State so
		// that a rewrite in the fragment's location, which clears
		// r.RequestURI, leaves it (and the fragment's cache key) as it
		// was, as a rewrite leaves a page's.
		st.RequestURI = r.RequestURI
	}
	var loc *Location
	if kind == subClone && ri.loc != nil {
		loc = ri.loc
		sri.prefixLost = ri.prefixLost
		st.Captures = slices.Clone(ri.st.Captures)
		st.CopyVars(ri.st)
	} else {
		// A subrequest runs the rewrite phases as NGINX's do; an answer
		// they give is served by the chain of the location they end in.
		loc = sri.route(r, nil)
	}
	sri.loc = loc

	pipe := &sub.pipe
	pipe.init()
	sub.ended.Add(1)
	sw := &sub.sw
	*sw = subWriter{header: http.Header{}, ready: make(chan struct{}), pipe: pipe, st: st}
	sub.req = r
	st.Header = sw.header
	subrequestWorkers.Go(func() {
		defer sub.ended.Done()
		defer func() {
			if p := recover(); p != nil {
				err := fmt.Errorf("subrequest %q panicked: %v", uri, p)
				if p == http.ErrAbortHandler {
					err = fmt.Errorf("subrequest %q aborted", uri)
				}
				sw.fail(err)
				return
			}
			sw.finish()
		}()
		loc.subHandler.ServeHTTP(sw, r)
	})
	sub.uri, sub.cancel = uri, cancel
	return sub, nil
}

func (sub *subrequest) await() (*http.Response, error) {
	ctx, cancel, uri, sw, pipe := &sub.root, sub.cancel, sub.uri, &sub.sw, &sub.pipe
	select {
	case <-sw.ready:
	case <-ctx.Done():
		cancel()
		pipe.closeRead(ctx.Err())
		return nil, fmt.Errorf("subrequest %q: %w", uri, ctx.Err())
	}
	if sw.err != nil {
		cancel()
		return nil, sw.err
	}
	sub.body = subBody{pipe: pipe, cancel: cancel, ended: &sub.ended}
	resp := &sub.resp
	*resp = http.Response{
		Status:        statusLine(sw.status),
		StatusCode:    sw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        sw.sent,
		Body:          &sub.body,
		ContentLength: -1,
		Request:       sub.req,
	}
	if cl, err := strconv.ParseInt(sw.sent.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = cl
	}
	return resp, nil
}

// sharedBody is a subrequest's request body, its parent's, as NGINX's
// subrequest shares its parent's (sr->request_body = r->request_body):
// the body the parent has read whole (a proxy saved it, in memory or a
// file, which stays open until the client's request ends), read again
// from its start without being copied, or, while the parent has not
// read it (an auth_request check runs first), none, with the length the
// parent declared, which a proxy announces as NGINX's does (proxy's
// Options.DropBody). A parent without a body, or without a
// declared length (a chunked body not read yet), gives none. A
// subrequest made from the parent's output (afterContent: an include)
// whose parent's content never read the body gets none either, of length
// 0: NGINX's content discards a body it does not read, which leaves the
// request's length at what is still to come, none of a body that came
// with the head, where a length with no body would hold the upstream
// waiting. The subrequest's State (sub) shares the parent's (pst) record
// of the body, for its own subrequests, its error pages and
// $request_body.
func sharedBody(parent *http.Request, pst, sub *vars.State, afterContent bool) (io.ReadCloser, int64) {
	if parent.Body == nil || parent.Body == http.NoBody && parent.ContentLength <= 0 {
		// Nothing to share: ESI builds its fragments' requests without
		// the page's body.
		return http.NoBody, 0
	}
	shareBodyRecord(pst, sub)
	switch px := pst.Rare(); {
	case px != nil && px.SavedBody != nil:
		return px.SavedBody.Body(), px.SavedBody.Size
	case px != nil && px.RequestBody != nil:
		sp := &spool.Spool{Mem: px.RequestBody, Size: int64(len(px.RequestBody))}
		return sp.Body(), sp.Size
	}
	if afterContent && parent.Body != http.NoBody && bodyUnread(parent.Body) {
		return http.NoBody, 0
	}
	return http.NoBody, max(parent.ContentLength, 0)
}

// shareBodyRecord gives a subrequest's State (sub) its parent's (pst)
// record of the request body.
func shareBodyRecord(pst, sub *vars.State) {
	if px := pst.Rare(); px != nil {
		x := sub.MakeRare()
		x.RequestBody, x.RequestBodyFile, x.SavedBody, x.BodyLength = px.RequestBody, px.RequestBodyFile, px.SavedBody, px.BodyLength
	}
}

// subrequestWorkers run subrequests' handlers: a goroutine that has been
// through a location's handlers has the stack for the next subrequest
// (internal/gopool).
var subrequestWorkers gopool.Pool

// subrequest holds what one subrequest allocates once.
type subrequest struct {
	root reqRoot   // its context: the record and the variables' State
	rare vars.Rare // the State's Rare values (vars.State.UseRare)
	// seldom is the record's (root.info.seldom), which a subrequest
	// always has (its depth).
	seldom reqSeldom
	pipe   subPipe
	sw     subWriter
	body   subBody
	resp   http.Response
	// ended is done once the handler has returned (SubrequestHeader
	// waits for it).
	ended  sync.WaitGroup
	uri    string
	req    *http.Request
	cancel context.CancelFunc
}

// subrequestURL resolves a subrequest's uri against its parent's URL,
// keeping only the path and query.
func subrequestURL(base *url.URL, uri string) (*url.URL, error) {
	ref, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("subrequest %q: %w", uri, err)
	}
	u := ref
	if ref.Scheme != "" || ref.Host != "" || ref.RawPath != "" ||
		!strings.HasPrefix(ref.Path, "/") || strings.Contains(ref.Path, "/.") {
		u = base.ResolveReference(ref)
	}
	// Otherwise the path is absolute, without dot segments or an escaped
	// form of its own, which resolving would only copy (the common case:
	// ESI's and SSI's fragments, auth_request).
	u.Scheme, u.Host, u.User, u.Fragment, u.RawFragment = "", "", nil, "", ""
	return u, nil
}

// statusLine is a response's Status for code, "200 OK" without building it.
func statusLine(code int) string {
	if code == http.StatusOK {
		return "200 OK"
	}
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// errBodyClosed ends a subrequest whose body its reader closed.
var errBodyClosed = errors.New("subrequest body closed")

// subWriter is the ResponseWriter of a subrequest: headers are handed
// over once, the body flows through a pipe, so the caller reads it as it
// is produced and a slow reader holds the writer back.
type subWriter struct {
	header http.Header
	sent   http.Header
	status int
	ready  chan struct{}
	once   sync.Once
	pipe   *subPipe
	st     *vars.State
	err    error
}

func (s *subWriter) Header() http.Header { return s.header }

func (s *subWriter) WriteHeader(code int) {
	if code < 200 {
		return // 1xx responses mean nothing to a subrequest
	}
	s.once.Do(func() {
		s.status = code
		s.st.Status = code
		s.sent = s.header.Clone()
		close(s.ready)
	})
}

func (s *subWriter) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	n, err := s.pipe.Write(b)
	s.st.BodyBytes += int64(n)
	return n, err
}

// Flush does nothing: every write already reaches the reader.
func (s *subWriter) Flush() {}

func (s *subWriter) finish() {
	s.WriteHeader(http.StatusOK)
	s.pipe.closeWrite(nil)
}

func (s *subWriter) fail(err error) {
	started := true
	s.once.Do(func() {
		started = false
		s.err = err
		close(s.ready)
	})
	if started {
		s.pipe.closeWrite(err)
	} else {
		s.pipe.closeWrite(nil)
	}
}

type subBody struct {
	pipe   *subPipe
	cancel context.CancelFunc
	ended  *sync.WaitGroup
}

func (b *subBody) Read(p []byte) (int, error) { return b.pipe.Read(p) }

func (b *subBody) Close() error {
	b.cancel()
	b.pipe.closeRead(errBodyClosed)
	return nil
}

// SubrequestDepth returns how deep r is nested in subrequests (0 for a
// client request).
func SubrequestDepth(r *http.Request) int {
	if ri := infoFrom(r.Context()); ri != nil {
		return ri.rare().subDepth
	}
	return 0
}
