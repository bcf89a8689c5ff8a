// Package access allows or denies requests by the client's address, as
// NGINX's ngx_http_access_module does with "allow" and "deny": a list of
// rules (an address, a CIDR block, "unix:" or "all"), of which the first
// that matches the client decides. A client that no rule matches is let
// through. The package imports nothing of the server: Handler is plain
// net/http middleware.
//
// As in NGINX, the rules of each address family form their own list:
// an IPv4 client is checked against the IPv4 rules and "all" only (an
// IPv4-mapped IPv6 address counts as IPv4), an IPv6 client against the
// IPv6 rules and "all", a client on a Unix-domain socket against "unix:"
// and "all".
package access

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// Result is what a List says about a client.
type Result uint8

const (
	// NoMatch: no rule of the client's family matched.
	NoMatch Result = iota
	// Allow: the first matching rule is an "allow".
	Allow
	// Deny: the first matching rule is a "deny".
	Deny
)

func (r Result) String() string {
	switch r {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	}
	return "no match"
}

type rule struct {
	prefix netip.Prefix // unused for the Unix family
	deny   bool
}

// List is an ordered set of rules. Its zero value has none; Add appends.
// A List is safe for concurrent Check once it is no longer added to.
type List struct {
	v4, v6, unix []rule
}

// Len returns the number of rules added.
func (l *List) Len() int { return len(l.v4) + len(l.v6) + len(l.unix) }

// Empty reports a list with no rule at all.
func (l *List) Empty() bool { return l == nil || l.Len() == 0 }

// Add appends a rule: deny or allow what arg names ("all", "unix:", an
// address, or an address with a prefix length). An address with bits set
// beyond its prefix length (10.1.2.3/8) is taken as its block, with a
// warning to show ("low address bits of 10.1.2.3/8 are meaningless"), as
// NGINX does. The error reads as NGINX's: invalid parameter "...".
func (l *List) Add(deny bool, arg string) (warning string, err error) {
	switch arg {
	case "all":
		l.v4 = append(l.v4, rule{prefix: netip.PrefixFrom(netip.IPv4Unspecified(), 0), deny: deny})
		l.v6 = append(l.v6, rule{prefix: netip.PrefixFrom(netip.IPv6Unspecified(), 0), deny: deny})
		l.unix = append(l.unix, rule{deny: deny})
		return "", nil
	case "unix:":
		l.unix = append(l.unix, rule{deny: deny})
		return "", nil
	}
	p, exact, err := ParseCIDR(arg)
	if err != nil {
		return "", err
	}
	if !exact {
		warning = fmt.Sprintf("low address bits of %s are meaningless", arg)
	}
	if p.Addr().Is4() {
		l.v4 = append(l.v4, rule{prefix: p, deny: deny})
	} else {
		l.v6 = append(l.v6, rule{prefix: p, deny: deny})
	}
	return warning, nil
}

// ParseCIDR reads an address or "address/bits" as NGINX's ngx_ptocidr
// does, returning the block with the bits beyond the prefix cleared, and
// exact false when some were set. IPv4 addresses are four decimal
// numbers of at most 255 (leading zeros are decimal, not octal);
// 255.255.255.255 is refused, as NGINX's parser takes it for its error
// value. IPv6 addresses may end in an IPv4 address; zones are refused.
func ParseCIDR(s string) (p netip.Prefix, exact bool, err error) {
	bad := fmt.Errorf("invalid parameter %q", s)
	addrText, bitsText, hasBits := strings.Cut(s, "/")
	addr, ok := parseIPv4(addrText)
	if !ok {
		if strings.ContainsAny(addrText, "%") || !strings.Contains(addrText, ":") {
			return netip.Prefix{}, false, bad
		}
		a, err := netip.ParseAddr(addrText)
		if err != nil || !a.Is6() {
			return netip.Prefix{}, false, bad
		}
		addr = a
	}
	bits := addr.BitLen()
	if hasBits {
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || n > addr.BitLen() || bitsText == "" || bitsText[0] == '+' || bitsText[0] == '-' {
			return netip.Prefix{}, false, bad
		}
		bits = n
	}
	p = netip.PrefixFrom(addr, bits)
	masked := p.Masked()
	return masked, masked.Addr() == addr, nil
}

// parseIPv4 reads a dotted quad as NGINX's ngx_inet_addr does: an empty
// number counts as 0 ("10..1.2" is 10.0.1.2).
func parseIPv4(s string) (netip.Addr, bool) {
	var b [4]byte
	octet, dots := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			octet = octet*10 + int(c-'0')
			if octet > 255 {
				return netip.Addr{}, false
			}
		case c == '.' && dots < 3:
			b[dots] = byte(octet)
			dots++
			octet = 0
		default:
			return netip.Addr{}, false
		}
	}
	if dots != 3 {
		return netip.Addr{}, false
	}
	b[3] = byte(octet)
	if b == [4]byte{255, 255, 255, 255} {
		return netip.Addr{}, false // INADDR_NONE for NGINX
	}
	return netip.AddrFrom4(b), true
}

// Check returns the decision of the first rule of the client's family
// that matches remoteAddr, an http.Request's RemoteAddr ("ip:port",
// "[ipv6]:port", a bare address, or "unix:..." for a Unix-domain socket).
// An address that cannot be read matches nothing.
func (l *List) Check(remoteAddr string) Result {
	if l == nil {
		return NoMatch
	}
	if strings.HasPrefix(remoteAddr, "unix:") || remoteAddr == "@" {
		return first(l.unix, netip.Addr{})
	}
	a, ok := ClientAddr(remoteAddr)
	if !ok {
		return NoMatch
	}
	a = a.WithZone("")
	if a.Is4In6() && len(l.v4) > 0 {
		return first(l.v4, a.Unmap())
	}
	if a.Is4() {
		return first(l.v4, a)
	}
	return first(l.v6, a)
}

// ClientAddr reads the address of a RemoteAddr ("ip:port", "[ip]:port" or
// a bare address).
func ClientAddr(remoteAddr string) (netip.Addr, bool) {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(host)
	return a, err == nil
}

func first(rules []rule, a netip.Addr) Result {
	for _, r := range rules {
		if a.IsValid() && !r.prefix.Contains(a) {
			continue
		}
		if r.deny {
			return Deny
		}
		return Allow
	}
	return NoMatch
}

// Handler answers 403 Forbidden to the clients that l denies and passes
// the others to next.
func (l *List) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.Check(r.RemoteAddr) == Deny {
			http.Error(w, "403 Forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
