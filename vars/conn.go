package vars

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
)

// Conn is what a connection's variables read beyond its requests: its
// socket ($tcpinfo_*), and its addresses split into host and port for
// $remote_addr, $remote_port, $server_addr and $server_port. FastCGI's
// parameters read all four on every request, and splitting the text
// each time (net.SplitHostPort) cost four splits a request: each address
// is split on the first request that reads it and kept for the
// connection's later ones (the streams of an HTTP/2 connection read them
// from several goroutines). The server makes one per connection and puts
// it in each request's State (State.Conn).
type Conn struct {
	local net.Addr
	sock  syscall.RawConn
	peer  atomic.Pointer[splitAddr] // the client's, keyed by its text
	own   atomic.Pointer[splitAddr] // the local one
}

// NewConn returns the Conn of a connection whose local address is local,
// the one its requests' contexts carry (http.LocalAddrContextKey), and
// whose socket is sock (nil where there is none: a Unix-domain or
// in-process connection reads as none for TCP_INFO too).
func NewConn(local net.Addr, sock syscall.RawConn) *Conn { return &Conn{local: local, sock: sock} }

// splitAddr is an address's text with its host and port, as $remote_addr
// and $remote_port (or $server_addr and $server_port) give them.
type splitAddr struct{ text, host, port string }

func split(text string) splitAddr {
	s := splitAddr{text: text, host: text}
	if strings.HasPrefix(text, "unix:") {
		return s // a Unix-domain socket ("unix:" for a peer): no port
	}
	if h, p, err := net.SplitHostPort(text); err == nil {
		s.host, s.port = h, p
	}
	return s
}

// The getters of the four variables read the connection's kept address
// through a pointer (cachedPeer, cachedOwn: inlined, no copy of the
// three strings), and split only where it is not kept (splitPeer,
// splitOwn): FastCGI's parameters read all four on every request.
// They stay four near-copies on purpose: one helper returning the
// pointer (kept or split) cannot be inlined (cost 133 of 80), and its
// call made the four reads 130 → 168 instructions a request
// (BenchmarkConnAddrs under callgrind, 2026-12-07).

func peerHost(r *http.Request, st *State) string {
	if s := cachedPeer(r, st); s != nil {
		return s.host
	}
	return splitPeer(r, st).host
}

func peerPort(r *http.Request, st *State) string {
	if s := cachedPeer(r, st); s != nil {
		return s.port
	}
	return splitPeer(r, st).port
}

func ownHost(r *http.Request, st *State) string {
	if s := cachedOwn(st); s != nil {
		return s.host
	}
	return splitOwn(r, st).host
}

func ownPort(r *http.Request, st *State) string {
	if s := cachedOwn(st); s != nil {
		return s.port
	}
	return splitOwn(r, st).port
}

// cachedPeer is the connection's client address, split, where it is r's
// (one that realip found in its place, State.RemoteAddr, differs from it
// by its text), or nil.
func cachedPeer(r *http.Request, st *State) *splitAddr {
	if st == nil || st.Conn == nil {
		return nil
	}
	if s := st.Conn.peer.Load(); s != nil && s.text == remoteAddr(r, st) {
		return s
	}
	return nil
}

// splitPeer splits the client's address of r, where cachedPeer has none.
// The connection's own is kept for its later requests; realip's is split
// each time, as NGINX's variables then read the request's own address.
func splitPeer(r *http.Request, st *State) splitAddr {
	s := split(remoteAddr(r, st))
	if st != nil && st.Conn != nil && st.RemoteAddr == "" {
		// The connection's own (realip keeps its address out of
		// the cache, so a request that replaces it does not evict it).
		st.Conn.peer.Store(&s)
	}
	return s
}

// cachedOwn is the server's address of st's connection, split, once
// splitOwn has kept it, or nil.
func cachedOwn(st *State) *splitAddr {
	if st == nil || st.Conn == nil {
		return nil
	}
	return st.Conn.own.Load()
}

// splitOwn splits the server's address of r's connection, and keeps it
// for the connection's later requests.
func splitOwn(r *http.Request, st *State) splitAddr {
	if st == nil || st.Conn == nil {
		return split(localAddr(r))
	}
	s := split(addrText(st.Conn.local))
	st.Conn.own.Store(&s)
	return s
}

// localAddr is the text of r's connection's local address, from its
// context.
func localAddr(r *http.Request) string {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	return addrText(a)
}

// addrText is the text of a server's address as $server_addr reads it:
// "unix:" and the path for a Unix-domain socket, as NGINX's.
func addrText(a net.Addr) string {
	switch {
	case a == nil:
		return ""
	case a.Network() == "unix":
		return "unix:" + a.String()
	}
	return a.String()
}
