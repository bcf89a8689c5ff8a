package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

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
func Subrequest(parent *http.Request, uri string, header http.Header) (*http.Response, error) {
	ri := infoFrom(parent.Context())
	if ri == nil {
		return nil, ErrNotInServer
	}
	if ri.subDepth+1 > MaxSubrequestDepth {
		return nil, fmt.Errorf("subrequests cycle while processing %q (depth %d): %w", uri, ri.subDepth, ErrSubrequestDepth)
	}
	ref, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("subrequest %q: %w", uri, err)
	}
	u := parent.URL.ResolveReference(ref)
	u.Scheme, u.Host, u.User, u.Fragment = "", "", nil, ""
	if header == nil {
		header = parent.Header.Clone()
	}
	ctx, cancel := context.WithCancel(parent.Context())
	st := &vars.State{Start: time.Now(), ConnID: ri.st.ConnID, ServerName: ri.st.ServerName, Host: ri.st.Host,
		ConnRequests: ri.st.ConnRequests, ConnStart: ri.st.ConnStart, RemoteAddr: ri.st.RemoteAddr}
	st.ShareRequestID(ri.st)
	remote := parent.RemoteAddr
	if st.RemoteAddr != "" {
		// A module replaced the client's address (realip) after the
		// parent's filters took their copy of the request: the
		// subrequest has the connection's client, as NGINX's do.
		remote = st.RemoteAddr
	}
	sri := &reqInfo{cfg: ri.cfg, srv: ri.srv, st: st, internal: true, subDepth: ri.subDepth + 1}
	ctx = context.WithValue(vars.NewContext(ctx, st), reqInfoKey{}, sri)
	r := &http.Request{
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
	r = r.WithContext(ctx)
	if !normalizePath(r) {
		cancel()
		return nil, fmt.Errorf("subrequest %q: invalid path", uri)
	}
	// A subrequest runs the rewrite phases as NGINX's do; an answer they
	// give is served by the chain of the location they end in.
	loc := sri.route(r, nil)
	sri.loc = loc

	pr, pw := io.Pipe()
	sw := &subWriter{header: http.Header{}, ready: make(chan struct{}), pw: pw, st: st}
	st.Header = sw.header
	go func() {
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
	}()

	select {
	case <-sw.ready:
	case <-ctx.Done():
		cancel()
		_ = pr.CloseWithError(ctx.Err())
		return nil, fmt.Errorf("subrequest %q: %w", uri, ctx.Err())
	}
	if sw.err != nil {
		cancel()
		return nil, sw.err
	}
	resp := &http.Response{
		Status:        strconv.Itoa(sw.status) + " " + http.StatusText(sw.status),
		StatusCode:    sw.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        sw.sent,
		Body:          &subBody{pr: pr, cancel: cancel},
		ContentLength: -1,
		Request:       r,
	}
	if cl, err := strconv.ParseInt(sw.sent.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = cl
	}
	return resp, nil
}

// subWriter is the ResponseWriter of a subrequest: headers are handed
// over once, the body flows through a pipe, so the caller reads it as it
// is produced and a slow reader holds the writer back.
type subWriter struct {
	header http.Header
	sent   http.Header
	status int
	ready  chan struct{}
	once   sync.Once
	pw     *io.PipeWriter
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
	n, err := s.pw.Write(b)
	s.st.BodyBytes += int64(n)
	return n, err
}

// Flush does nothing: every write already reaches the reader.
func (s *subWriter) Flush() {}

func (s *subWriter) finish() {
	s.WriteHeader(http.StatusOK)
	_ = s.pw.Close()
}

func (s *subWriter) fail(err error) {
	started := true
	s.once.Do(func() {
		started = false
		s.err = err
		close(s.ready)
	})
	if started {
		_ = s.pw.CloseWithError(err)
	} else {
		_ = s.pw.Close()
	}
}

type subBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
}

func (b *subBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

func (b *subBody) Close() error {
	b.cancel()
	return b.pr.CloseWithError(errors.New("subrequest body closed"))
}

// SubrequestDepth returns how deep r is nested in subrequests (0 for a
// client request).
func SubrequestDepth(r *http.Request) int {
	if ri := infoFrom(r.Context()); ri != nil {
		return ri.subDepth
	}
	return 0
}
