// Package realip replaces a request's client address with the one that a
// trusted proxy in front reports, as NGINX's ngx_http_realip_module does:
// set_real_ip_from names the trusted proxies, real_ip_header the field
// (X-Real-IP, X-Forwarded-For, any other, or the PROXY protocol header of
// the connection) and real_ip_recursive how far back a list is followed.
//
// The new address goes into http.Request.RemoteAddr, so that everything
// that reads the client's address after it ($remote_addr, access rules,
// limits, logs, X-Forwarded-For towards an upstream) sees it; the
// connection's own address stays readable as $realip_remote_addr and
// $realip_remote_port. The package imports nothing of the server: Handler
// is plain net/http middleware.
package realip

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/forwarded"
	"github.com/mosaic-edge/mosaic/internal/inet"
	"github.com/mosaic-edge/mosaic/vars"
)

// Source is where the client's address is read from.
type Source uint8

const (
	// XRealIP reads the first X-Real-IP field (NGINX's default).
	XRealIP Source = iota
	// XForwardedFor reads the X-Forwarded-For fields, from the last one
	// backwards.
	XForwardedFor
	// ProxyProtocol takes the source address of the connection's PROXY
	// protocol header (Config.ProxyProtocol).
	ProxyProtocol
	// Header reads the first field named Config.Header.
	Header
)

// Config is one level's realip settings.
type Config struct {
	// From lists the trusted proxies (set_real_ip_from): only a request
	// whose address is in one of them is believed.
	From []netip.Prefix
	// FromUnix trusts clients connected over a Unix-domain socket
	// (set_real_ip_from unix:).
	FromUnix bool
	// Source and, for the Header source, the field's name.
	Source Source
	Header string
	// Recursive (real_ip_recursive on) walks a list back past every
	// trusted address rather than taking its last element.
	Recursive bool
	// ProxyProtocol returns the source address and port that the
	// connection's PROXY protocol header gave, for Source ProxyProtocol;
	// ok is false for a connection that had none.
	ProxyProtocol func(r *http.Request) (addr, port string, ok bool)
}

// Enabled reports whether the settings can change anything: NGINX's
// module does nothing at a level without set_real_ip_from.
func (c *Config) Enabled() bool { return c != nil && (len(c.From) > 0 || c.FromUnix) }

// ParseSource reads real_ip_header's argument. As NGINX, the three
// keywords are compared with their case; any other value names a header.
func ParseSource(s string) (Source, string) {
	switch s {
	case "X-Real-IP":
		return XRealIP, ""
	case "X-Forwarded-For":
		return XForwardedFor, ""
	case "proxy_protocol":
		return ProxyProtocol, ""
	}
	return Header, s
}

// ParseFrom reads one set_real_ip_from address or CIDR block (not
// "unix:", which the caller handles, nor host names). partial is true when
// the block has bits set beyond its mask, which NGINX warns about ("low
// address bits of ... are meaningless") and clears.
func ParseFrom(s string) (p netip.Prefix, partial bool, err error) {
	addrText, bits, hasMask := strings.Cut(s, "/")
	a, ok := inet.ParseAddr(addrText)
	if !ok {
		return netip.Prefix{}, false, fmt.Errorf("invalid address %q", s)
	}
	n := a.BitLen()
	if hasMask {
		v, err := strconv.Atoi(bits)
		if err != nil || v < 0 || v > a.BitLen() || bits == "" || bits[0] == '+' {
			return netip.Prefix{}, false, fmt.Errorf("invalid mask in %q", s)
		}
		n = v
	}
	p = netip.PrefixFrom(a, n)
	masked := p.Masked()
	return masked, masked.Addr() != a, nil
}

// trusted reports whether p is one of the proxies set_real_ip_from names.
func (c *Config) trusted(p forwarded.Peer) bool {
	if p.Unix {
		return c.FromUnix
	}
	a := p.Addr.Unmap() // an IPv4 client on an IPv6 socket is matched as IPv4, as NGINX does
	for _, f := range c.From {
		if f.Contains(a) {
			return true
		}
	}
	return false
}

// Resolve returns the client address that r's fields and the trusted
// proxies give, in RemoteAddr's form ("1.2.3.4:5678", "[::1]:80", or the
// address alone when the field gave no port), or ok false when the
// request's own address stays.
func (c *Config) Resolve(r *http.Request) (remote string, ok bool) {
	if !c.Enabled() {
		return "", false
	}
	p, ok := remotePeer(r.RemoteAddr)
	if !ok {
		return "", false
	}
	rc := forwarded.Declined
	switch c.Source {
	case XRealIP:
		v, has := firstField(r.Header, "X-Real-Ip")
		if !has {
			return "", false
		}
		rc = forwarded.Walk(&p, v, c.Recursive, c.trusted)
	case Header:
		v, has := firstField(r.Header, c.Header)
		if !has {
			return "", false
		}
		rc = forwarded.Walk(&p, v, c.Recursive, c.trusted)
	case ProxyProtocol:
		if c.ProxyProtocol == nil {
			return "", false
		}
		addr, port, has := c.ProxyProtocol(r)
		if !has {
			return "", false
		}
		rc = forwarded.Walk(&p, addr, c.Recursive, c.trusted)
		if rc != forwarded.Declined {
			// As NGINX: the header's source port goes with its address.
			n, _ := strconv.Atoi(port)
			p.Port = uint16(n)
		}
	case XForwardedFor:
		fields := r.Header.Values("X-Forwarded-For")
		if len(fields) == 0 {
			return "", false
		}
		rc = forwarded.WalkFields(&p, fields, c.Recursive, c.trusted)
	}
	if rc == forwarded.Declined {
		return "", false
	}
	return formatPeer(p), true
}

// firstField returns the first field named name, as NGINX's lookup of a
// header finds the first line.
func firstField(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

func remotePeer(remote string) (forwarded.Peer, bool) {
	if strings.HasPrefix(remote, "unix:") {
		return forwarded.Peer{Unix: true}, true
	}
	if ap, err := netip.ParseAddrPort(remote); err == nil {
		return forwarded.Peer{Addr: ap.Addr().WithZone(""), Port: ap.Port()}, true
	}
	if a, err := netip.ParseAddr(remote); err == nil {
		return forwarded.Peer{Addr: a.WithZone("")}, true
	}
	return forwarded.Peer{}, false
}

func formatPeer(p forwarded.Peer) string {
	if p.Port == 0 {
		return p.Addr.String()
	}
	return net.JoinHostPort(p.Addr.String(), strconv.Itoa(int(p.Port)))
}

// Apply replaces r.RemoteAddr when c finds a client address, and keeps the
// old one for $realip_remote_addr. It changes r in place, so that a
// handler holding r (the access log) sees the new address too. It does
// nothing once a level already replaced the address of the request.
func (c *Config) Apply(r *http.Request) bool {
	if !c.Enabled() {
		return false
	}
	st := vars.FromContext(r.Context())
	if st != nil && st.RemoteAddr != "" {
		// Replaced already, for this request or its parent: NGINX runs
		// the module once per request, at the server level or the
		// location's.
		return false
	}
	remote, ok := c.Resolve(r)
	if !ok {
		return false
	}
	if st != nil {
		// The connection's address for $realip_remote_addr, and the new
		// one for the filters outside the step that hold a copy of r
		// made before (the access log); a subrequest copies both.
		st.ConnAddr, st.RemoteAddr = r.RemoteAddr, remote
	}
	r.RemoteAddr = remote
	return true
}

// Handler runs c.Apply on each request, then next.
func Handler(c *Config, next http.Handler) http.Handler {
	if !c.Enabled() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.Apply(r)
		next.ServeHTTP(w, r)
	})
}

// original returns the address of the connection: the one Apply replaced,
// or r's own.
func original(r *http.Request, st *vars.State) string {
	if st != nil && st.ConnAddr != "" {
		return st.ConnAddr
	}
	return r.RemoteAddr
}

func init() {
	vars.Register("realip_remote_addr", func(r *http.Request, st *vars.State) string {
		a := original(r, st)
		if strings.HasPrefix(a, "unix:") {
			return a
		}
		if h, _, err := net.SplitHostPort(a); err == nil {
			return h
		}
		return a
	})
	// Empty over a Unix-domain socket, not without a value, as NGINX's.
	vars.RegisterValue("realip_remote_port", vars.Always(func(r *http.Request, st *vars.State) string {
		if _, p, err := net.SplitHostPort(original(r, st)); err == nil {
			return p
		}
		return ""
	}))
}
