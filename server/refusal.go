package server

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/reason"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// Requests refused before they reach a location: by the HTTP/1 reader (a
// malformed or oversized header, answered there; a header not whole in
// time, closed with nothing sent) or by the request rules (admit). NGINX
// finalizes these in the default server of the address, so they pass
// through its log phase: an access log line with 400, 414, 431 or 408,
// $request the line as received. mosaic runs them through the server
// level's chain of the server NGINX would have chosen by then (the one a
// Host read before chose, else the one TLS's server name chose, else the
// address's default server), with the answer as the level's content.

// refused serves a refusal the HTTP/1 reader reported: its answer, when
// it gets one, and its logging.
func (d *dispatcher) refused(rf *http1.Refusal) {
	r := refusedRequest(rf)
	root := r.Context().(*reqRoot)
	root.info.seldom = &reqSeldom{refusal: rf}
	root.state.MakeRare().RequestLine = rf.Line
	if rf.Method == "" && strings.HasPrefix(rf.Line, "HEAD ") {
		// NGINX had read the method of the line it refused: the answer,
		// error pages included, is a HEAD's, with $request_method empty.
		r.Method, root.state.NoMethod = http.MethodHead, true
	}
	w := rf.Answer
	if w == nil {
		w = unansweredWriter{http.Header{}}
	}
	d.ServeHTTP(w, r)
}

// refusedRequest makes a request of what came of a refused one: its
// request line when it was valid (NGINX knows no method or URI of a line
// it refused), and the fields that came before the refused one, which
// NGINX had read ($http_ variables, a proxy behind error_page).
func refusedRequest(rf *http1.Refusal) *http.Request {
	r := &http.Request{URL: &url.URL{}, Header: rf.Header, Host: rf.Host, TLS: rf.TLS, Body: http.NoBody, RemoteAddr: rf.RemoteAddr}
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if method, target, proto, major, minor, ok := http1.ParseLine(rf.Line); ok && rf.Method != "" {
		r.Method, r.RequestURI, r.Proto, r.ProtoMajor, r.ProtoMinor = method, target, proto, major, minor
		if u, err := url.ParseRequestURI(target); err == nil {
			r.URL = u
		}
	}
	return r.WithContext(newRequestRoot(rf.Context))
}

// refusalServer is the server that answers a request the HTTP/1 reader
// refused, and its $host, as NGINX has chosen it when it refuses: a Host
// read before the refused line chose it (see http1.Refusal.Host), else
// the TLS handshake's server name, else it is the default server. A
// check made at the header's end without a Host comes after NGINX looked
// the server up for an empty name, which over TLS leaves the server name's
// server for the default (or for a server named "").
func refusalServer(rf *http1.Refusal, g *addrGroup, st *vars.State) (*VServer, string) {
	host, ok := reqrule.Host(rf.Host)
	if !ok || host == "" && !rf.AtEnd {
		return g.initial(rf.TLS), ""
	}
	srv, err := g.lookup(host, st)
	if err != nil {
		srv.level.Logger().Error(err.Error())
	}
	return srv, host
}

// refuseAtServer answers code as the content of srv's server level, so
// that the level's filters (add_header, the access log) and error_page
// see the request, as in NGINX. A refusal that gets no answer (a header
// timeout, a client gone) writes only its status, for the log.
func refuseAtServer(w http.ResponseWriter, r *http.Request, srv *VServer, ri *reqInfo, code int) {
	rf := ri.rare().refusal
	ri.pending = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case rf != nil && rf.Answer == nil:
			// NGINX closes such a request without a page: no error_page
			// runs (it could proxy for a client that is gone), and the
			// log has the status with nothing sent.
			writeUncaught(w, code)
		case reason.Explanation(code) != "":
			serveSpecial(w, r, LocConf[*coreLoc](srv.level, coreModule), code)
		default:
			Error(w, r, code)
		}
	})
	ri.loc, ri.st.Paths = srv.level, srv.level
	srv.level.handler.ServeHTTP(w, r)
}

// unansweredWriter is the writer of a refusal that gets no answer: what
// is written to it goes nowhere.
type unansweredWriter struct{ h http.Header }

func (d unansweredWriter) Header() http.Header         { return d.h }
func (d unansweredWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d unansweredWriter) WriteHeader(int)             {}
