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
	"strings"

	"github.com/mosaic-edge/mosaic/internal/inet"
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
	p, exact, err := inet.ParseCIDR(arg)
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
