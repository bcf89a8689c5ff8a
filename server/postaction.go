package server

import (
	"context"
	"errors"
	"net/http"

	"github.com/mosaic-edge/mosaic/vars"
)

// post_action, as NGINX 1.22's ngx_http_post_action: once the response
// to the client has gone out whole, the request itself is redirected
// internally to the post action's URI or @name, with its method, header
// fields and the body a handler read whole, as a request whose answer
// nobody reads (NGINX sets header_only and HTTP/0.9, so that its header
// filter sends nothing). The request ends only after it: the access log
// writes one line then, with the post action's $uri and status, and the
// connection reads its next request after it.
//
// The location the post action ends in may have a post_action of its own
// (one set at server level is inherited by the post action's location):
// NGINX runs it again, and again, until the request's internal redirects
// are spent (then "rewrite or internal redirection cycle", 500). A
// post_action that does not start with "/" is a named location, "off"
// included: NGINX has no off, so "post_action off" looks for a location
// named "off", fails, and so ends the same way.

// schedulePostAction arranges for the post action of the location the
// client's request ended in to run once its response has gone out
// (AfterResponse), if that location has one.
func schedulePostAction(ri *reqInfo, r *http.Request) {
	if postActionOf(ri) == "" {
		return
	}
	ri.rec.holds = append(ri.rec.holds, func() { runPostActions(ri, r) })
}

// postActionOf returns the post_action of the location the request is in
// now (the target of its last internal redirect), "" for none.
func postActionOf(ri *reqInfo) string {
	loc := ri.serving()
	if loc == nil {
		return ""
	}
	return LocConf[*coreLoc](loc, coreModule).postAction.V
}

// runPostActions runs the post action, then those of the locations it
// ends in, until one has none or the redirects are spent.
func runPostActions(ri *reqInfo, r *http.Request) {
	// NGINX knows the request complete before its post action runs
	// ($request_completion there, and in the log whatever follows).
	ri.st.MarkComplete(r.Context().Err())
	if ri.st.Status == 499 {
		// The client left before any header went out: NGINX's request
		// has no status then, and its post action, an HTTP/0.9 request,
		// reads $status as 009.
		ri.st.Status = 9
	}
	if ri.redirects == nil {
		ri.redirects = new(int)
	}
	for uri := postActionOf(ri); uri != "" && *ri.redirects != cycleHit; uri = postActionOf(ri) {
		runPostAction(ri, r, uri)
	}
}

// runPostAction serves r again for uri, its answer discarded.
func runPostAction(ri *reqInfo, r *http.Request, uri string) {
	w := &postWriter{header: http.Header{}, st: ri.st, keep: ri.rec.special}
	if ri.fl != nil && ri.fl.cur != nil {
		// Whatever the post action's output filters write goes to w,
		// never to the client, whose answer is complete.
		ri.fl.cur.close()
		ri.fl.cur = &outputGate{w: w}
	}
	// NGINX's header_only: a proxy hands the header on without waiting
	// for the body, which nobody reads.
	ri.st.HeaderOnly = true
	// A client that leaves once it has its answer (the download a
	// tracker counts) does not stop the post action: NGINX's upstream
	// does not watch the client's connection for one. The proxy's
	// timeouts bound it, and the shutdown limit, which cuts it as it
	// cuts the requests in flight.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	stop := context.AfterFunc(r.Context(), func() {
		if errors.Is(r.Context().Err(), errShutdownCut) {
			cancel()
		}
	})
	// The context lives until the request ends, not the post action's
	// handler: a mirror in its location runs on after it (AfterResponse),
	// its subrequests under this context.
	ri.rec.ends = append(ri.rec.ends, func() { stop(); cancel() })
	r2 := r.WithContext(ctx)
	if ri.st.Method != "" {
		r2.Method = ri.st.Method // an error page made the request a GET
	}
	if !resendBody(r2, ri.st) {
		// NGINX has discarded a body no handler read, or read it as it
		// streamed: the post action's request has none, a length of 0
		// where the client declared a body.
		r2.Body, r2.ContentLength, r2.TransferEncoding = http.NoBody, 0, nil
		if _, ok := r.Header["Content-Length"]; ok || len(r.TransferEncoding) > 0 {
			r2.Header = r.Header.Clone()
			delete(r2.Header, "Transfer-Encoding")
			r2.Header["Content-Length"] = []string{"0"}
		}
	}
	// The URI is taken whole, without arguments: NGINX's redirect for a
	// post action passes none and looks a "?" up as part of the path.
	ri.st.ArgsKept = false
	redirectTo(w, r2, uri, uri, "", uri[0] != '/')
}

// postWriter takes a post action's answer: its status becomes the
// request's $status unless the server answered the client with a page of
// its own before (NGINX's err_status, which $status prefers), but the
// server's own page for the post action (Error: a 502, the cycle's 500)
// is the new err_status all the same; the rest is dropped.
type postWriter struct {
	header  http.Header
	st      *vars.State
	keep    bool
	special bool // set by markError
	wrote   bool
}

func (w *postWriter) Header() http.Header { return w.header }

func (w *postWriter) WriteHeader(code int) {
	if code < 200 || w.wrote {
		return
	}
	w.wrote = true
	if !w.keep || w.special {
		w.st.Status = code
	}
}

// errHeaderOnly ends a post action's body: nobody reads it, and NGINX's
// header_only request ends once its header is in, so a handler stops
// making it (a proxy stops reading an upstream that may stream for
// ever, a static file is not read through).
var errHeaderOnly = errors.New("a post action's answer has no body")

func (w *postWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	if len(b) == 0 {
		return 0, nil
	}
	return 0, errHeaderOnly
}
