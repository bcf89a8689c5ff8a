// Package forwarded walks a list of forwarding addresses (X-Forwarded-For,
// X-Real-IP, a header of one's choosing) back from the client's own
// address past the trusted proxies, as NGINX's
// ngx_http_get_forwarded_addr does for its realip and geo modules.
package forwarded

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/inet"
)

// Peer is an address being walked back through a list: an IP address
// with its port (0 for none), or a Unix-domain client.
type Peer struct {
	Addr netip.Addr
	Port uint16
	Unix bool
}

// The result of a walk, as NGINX's: nothing found, found and the walk
// ended on the list's start, found but stopped at an untrusted element or
// a bad one.
const (
	Declined = iota
	Found
	FoundStopped
)

// Walk takes the last element of list (and, recursively, the ones before
// it while each address is trusted), starting from p, which must be
// trusted for the list to be read at all.
func Walk(p *Peer, list string, recursive bool, trusted func(Peer) bool) int {
	rc := Declined
	for {
		if !trusted(*p) {
			if rc != Declined {
				return FoundStopped
			}
			return Declined
		}
		// The last element: trailing separators skipped, then back to
		// the separator before it (the first byte is never taken for one,
		// as in NGINX).
		end := len(list)
		i := end - 1
		for i > 0 && (list[i] == ' ' || list[i] == ',') {
			i--
			end--
		}
		for i > 0 {
			if list[i] == ' ' || list[i] == ',' {
				i++
				break
			}
			i--
		}
		start := max(i, 0)
		a, port, ok := ParseAddrPort(list[start:end])
		if !ok {
			if rc != Declined {
				return FoundStopped
			}
			return Declined
		}
		*p = Peer{Addr: a, Port: port}
		rc = Found
		if !recursive || start == 0 {
			return Found
		}
		list = list[:start-1]
	}
}

// WalkFields walks the lines of a field that may come several times
// (X-Forwarded-For), from the last one back: without recursion only the
// last is read; with it, each is walked while every address in it is
// trusted.
func WalkFields(p *Peer, fields []string, recursive bool, trusted func(Peer) bool) int {
	rc, seen := Declined, false
	for i := len(fields) - 1; i >= 0; i-- {
		rc = Walk(p, fields[i], recursive, trusted)
		if !recursive {
			break
		}
		if rc == Declined && seen {
			return FoundStopped
		}
		if rc != Found {
			break
		}
		seen = true
	}
	return rc
}

// Behind returns the address of the client at a once the X-Forwarded-For
// lines fields are walked back past the trusted proxies, as the geo and
// geoip modules find it: a itself when it is not one of proxies or the
// lines hold no address to take. An IPv4-mapped address is matched
// against the proxies as IPv4, as NGINX's ngx_cidr_match does.
func Behind(a netip.Addr, fields []string, proxies []netip.Prefix, recursive bool) netip.Addr {
	if len(proxies) == 0 || len(fields) == 0 {
		return a
	}
	trusted := func(p Peer) bool {
		u := p.Addr.Unmap()
		for _, pr := range proxies {
			if pr.Contains(u) {
				return true
			}
		}
		return false
	}
	p := Peer{Addr: a}
	if WalkFields(&p, fields, recursive, trusted) == Declined {
		return a
	}
	return p.Addr
}

// ParseAddrPort reads an element of a forwarded list as NGINX's
// ngx_parse_addr_port: an address, "a.b.c.d:port" or "[v6]:port" with a
// port from 1 to 65535. port is 0 when none was given.
func ParseAddrPort(s string) (netip.Addr, uint16, bool) {
	if a, ok := inet.ParseAddr(s); ok {
		return a, 0, true
	}
	var host, port string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || end+1 >= len(s) || s[end+1] != ':' {
			return netip.Addr{}, 0, false
		}
		host, port = s[1:end], s[end+2:]
	} else {
		var ok bool
		if host, port, ok = strings.Cut(s, ":"); !ok {
			return netip.Addr{}, 0, false
		}
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 || port[0] == '+' || port[0] == '-' {
		return netip.Addr{}, 0, false
	}
	a, ok := inet.ParseAddr(host)
	if !ok {
		return netip.Addr{}, 0, false
	}
	return a, uint16(p), true
}
