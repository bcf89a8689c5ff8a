package server

import (
	"net"
	"net/http"
	"sync"

	"github.com/mosaic-edge/mosaic/http1"
)

// connStats counts the client connections and requests of every listener
// of the process, across reloads, as NGINX's stub_status reports them.
var connStats http1.ConnStats

// ConnCounts returns the process's connection and request counts: what
// stub_status shows and $connections_active, _reading, _writing and
// _waiting hold.
func ConnCounts() http1.ConnCounts { return connStats.Counts() }

// h2Idle remembers the HTTP/2 connections counted as waiting: Go's server
// reports a connection idle or active as its streams come and go.
var h2Idle sync.Map // net.Conn -> struct{}

// countH2Conn counts a connection that http1 handed to the HTTP/2 server
// (http1 counted its accept): open while it lives, waiting while it has
// no stream, as NGINX counts an idle HTTP/2 connection.
func countH2Conn(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		h2Idle.Store(c, struct{}{})
		connStats.Adjust(1, 1)
	case http.StateIdle:
		if _, was := h2Idle.LoadOrStore(c, struct{}{}); !was {
			connStats.Adjust(0, 1)
		}
	case http.StateActive:
		if _, was := h2Idle.LoadAndDelete(c); was {
			connStats.Adjust(0, -1)
		}
	case http.StateClosed, http.StateHijacked:
		if _, was := h2Idle.LoadAndDelete(c); was {
			connStats.Adjust(0, -1)
		}
		connStats.Adjust(-1, 0)
	}
}

// countRequests counts each HTTP/2 request (a stream) as writing while
// its handler runs; NGINX counts a stream as a request of its own.
func countRequests(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		connStats.BeginRequest()
		defer connStats.EndRequest()
		h.ServeHTTP(w, r)
	})
}
