package server

import (
	"net"
	"net/http"
	"strconv"

	"github.com/mosaic-edge/mosaic/internal/proxyproto"
	"github.com/mosaic-edge/mosaic/vars"
)

// proxyConn finds the PROXY protocol reader under c (a TLS connection's
// transport included), or nil.
func proxyConn(c net.Conn) *proxyproto.Conn {
	for c != nil {
		switch t := c.(type) {
		case *proxyproto.Conn:
			return t
		case interface{ NetConn() net.Conn }: // TLS, or a plain HTTP/2 connection http1 handed over
			c = t.NetConn()
		default:
			return nil
		}
	}
	return nil
}

// proxyHeader returns the PROXY protocol header of r's connection, or nil
// for a connection without one (or one that named no addresses).
func proxyHeader(r *http.Request) *proxyproto.Header {
	ci, _ := r.Context().Value(connInfoKey{}).(*connInfo)
	if ci == nil || ci.proxy == nil {
		return nil
	}
	return ci.proxy.Header()
}

// ProxyProtocolSource returns the client's address and port that the
// PROXY protocol header of r's connection gave ($proxy_protocol_addr,
// $proxy_protocol_port), ok false for a connection without one: what
// "real_ip_header proxy_protocol" reads.
func ProxyProtocolSource(r *http.Request) (addr, port string, ok bool) {
	h := proxyHeader(r)
	if h == nil {
		return "", "", false
	}
	return h.SrcAddr, strconv.Itoa(int(h.SrcPort)), true
}

func init() {
	// Empty for a connection without a header, as in NGINX.
	field := func(f func(h *proxyproto.Header) string) vars.Getter {
		return func(r *http.Request, _ *vars.State) string {
			if h := proxyHeader(r); h != nil {
				return f(h)
			}
			return ""
		}
	}
	vars.Register("proxy_protocol_addr", field(func(h *proxyproto.Header) string { return h.SrcAddr }))
	vars.Register("proxy_protocol_port", field(func(h *proxyproto.Header) string { return strconv.Itoa(int(h.SrcPort)) }))
	vars.Register("proxy_protocol_server_addr", field(func(h *proxyproto.Header) string { return h.DstAddr }))
	vars.Register("proxy_protocol_server_port", field(func(h *proxyproto.Header) string { return strconv.Itoa(int(h.DstPort)) }))
}
