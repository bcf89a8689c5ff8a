// Package inet reads addresses and networks as NGINX's parsers do
// (ngx_inet_addr, ngx_parse_addr, ngx_ptocidr), so that a configuration
// or a header field means the same address to mosaic as to NGINX.
package inet

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// ParseCIDR reads an address or "address/bits" as NGINX's ngx_ptocidr
// does, returning the block with the bits beyond the prefix cleared, and
// exact false when some were set. IPv4 addresses are four decimal
// numbers of at most 255 (leading zeros are decimal, not octal);
// 255.255.255.255 is refused, as NGINX's parser takes it for its error
// value. IPv6 addresses may end in an IPv4 address; zones are refused.
func ParseCIDR(s string) (p netip.Prefix, exact bool, err error) {
	bad := fmt.Errorf("invalid parameter %q", s)
	addrText, bitsText, hasBits := strings.Cut(s, "/")
	addr, ok := ParseIPv4(addrText)
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

// ParseAddr reads an IPv4 or IPv6 address as NGINX's ngx_parse_addr does:
// IPv4 as four decimal numbers up to 255 (leading zeros allowed, as
// inet_addr-style parsing takes them; an empty one is 0; 255.255.255.255
// is refused), IPv6 in its text forms, without a zone.
func ParseAddr(s string) (netip.Addr, bool) {
	if a, ok := ParseIPv4(s); ok {
		return a, true
	}
	if !strings.Contains(s, ":") || strings.Contains(s, "%") {
		return netip.Addr{}, false
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return a, true
}

// ParseIPv4 reads a dotted quad as NGINX's ngx_inet_addr does: an empty
// number counts as 0 ("10..1.2" is 10.0.1.2), and 255.255.255.255, the
// parser's error value (INADDR_NONE), is no address.
func ParseIPv4(s string) (netip.Addr, bool) {
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
