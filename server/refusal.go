package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mosaic-edge/mosaic/http1"
)

// Requests refused before they reach a location: by the HTTP/1 reader (a
// malformed or oversized header, answered there; a header not whole in
// time, closed with nothing sent) or by the request rules (admit). NGINX
// finalizes these in the default server of the address, so they pass
// through its log phase: an access log line with 400, 414, 431 or 408,
// $request the line as received. mosaic runs them through the server
// level's chain of the address's default server (or of the server the
// Host chose, for the rules), with the answer as the level's content.

// refused serves a refusal the HTTP/1 reader reported, for its logging:
// nothing reaches the client, which has had its answer.
func (d *dispatcher) refused(rf *http1.Refusal) {
	r := refusedRequest(rf)
	root := r.Context().(*reqRoot)
	root.info.refusal = rf
	root.state.RequestLine = rf.Line
	d.ServeHTTP(answeredWriter{http.Header{}}, r)
}

// refusedRequest makes a request of what came of a refused one: its
// request line when it is whole enough to split, no header (NGINX logs
// the fields of a refused request as absent).
func refusedRequest(rf *http1.Refusal) *http.Request {
	r := &http.Request{URL: &url.URL{}, Header: http.Header{}, Body: http.NoBody, RemoteAddr: rf.RemoteAddr}
	if method, rest, ok := strings.Cut(rf.Line, " "); ok {
		target, proto, _ := strings.Cut(rest, " ")
		r.Method, r.RequestURI, r.Proto = method, target, proto
		if u, err := url.ParseRequestURI(target); err == nil {
			r.URL = u
		}
		r.ProtoMajor, r.ProtoMinor, _ = http.ParseHTTPVersion(proto)
	}
	return r.WithContext(newRequestRoot(rf.Context))
}

// refuseAtServer answers code as the content of srv's server level, so
// that the level's filters (the access log) and error_page see the
// request. A refusal the HTTP/1 reader already answered writes what it
// sent into the discarding writer: the status, and a page only if one
// went out.
func refuseAtServer(w http.ResponseWriter, r *http.Request, srv *VServer, ri *reqInfo, code int) {
	rf := ri.refusal
	ri.pending = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rf != nil && rf.Sent == 0 {
			w.WriteHeader(code)
			return
		}
		Error(w, r, code)
	})
	ri.loc, ri.st.Paths = srv.level, srv.level
	srv.level.handler.ServeHTTP(w, r)
}

// answeredWriter is the writer of a refusal already answered on the wire:
// what is written to it goes nowhere.
type answeredWriter struct{ h http.Header }

func (d answeredWriter) Header() http.Header         { return d.h }
func (d answeredWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d answeredWriter) WriteHeader(int)             {}
