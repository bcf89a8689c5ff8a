// Package inet reads addresses and networks as NGINX's parsers do
// (ngx_inet_addr, ngx_parse_addr, ngx_ptocidr), so that a configuration
// or a header field means the same address to mosaic as to NGINX, and
// resolves host names as NGINX does when a configuration loads
// (ResolveHost).
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
		if addr, ok = ParseIPv6(addrText); !ok {
			return netip.Prefix{}, false, bad
		}
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

// ParseNetwork reads a network of the geo and geoip modules' lists as
// ParseCIDR does, except that 255.255.255.255 is taken (as a /32): those
// modules look up clients without an address under it.
func ParseNetwork(s string) (p netip.Prefix, exact bool, err error) {
	if s == "255.255.255.255" {
		return netip.PrefixFrom(netip.AddrFrom4([4]byte{255, 255, 255, 255}), 32), true, nil
	}
	return ParseCIDR(s)
}

// ParseAddr reads an IPv4 or IPv6 address as NGINX's ngx_parse_addr does:
// IPv4 as four decimal numbers up to 255 (leading zeros allowed, as
// inet_addr-style parsing takes them; an empty one is 0; 255.255.255.255
// is refused), IPv6 as ParseIPv6 reads it.
func ParseAddr(s string) (netip.Addr, bool) {
	if a, ok := ParseIPv4(s); ok {
		return a, true
	}
	return ParseIPv6(s)
}

// ParseIPv6 reads an IPv6 address as NGINX's ngx_inet6_addr does, which
// is not quite the standard's text form: an IPv4 tail is read as
// ParseIPv4 reads it (leading zeros are decimal: "::ffff:010.1.2.3" is
// ::ffff:10.1.2.3), and a single leading ":" is skipped. No zone.
func ParseIPv6(s string) (netip.Addr, bool) {
	var a [16]byte
	if s == "" {
		return netip.Addr{}, false
	}
	i := 0
	if s[0] == ':' {
		i++
	}
	out, zero, digit := 0, -1, -1 // zero: where "::" stands; digit: the group's start
	nibbles, word, n := 0, uint32(0), 8
	for ; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			if nibbles > 0 {
				digit = i + 1
				a[out], a[out+1] = byte(word>>8), byte(word)
				out += 2
				if n--; n > 0 {
					nibbles, word = 0, 0
					continue
				}
			} else if zero < 0 {
				digit, zero = i+1, out
				continue
			}
			return netip.Addr{}, false
		}
		if c == '.' && nibbles > 0 {
			// The rest, from the group's start, is an IPv4 address.
			if n < 2 || digit < 0 {
				return netip.Addr{}, false
			}
			v4, ok := ParseIPv4(s[digit:])
			if !ok {
				return netip.Addr{}, false
			}
			b := v4.As4()
			a[out], a[out+1] = b[0], b[1]
			out += 2
			n--
			word = uint32(b[2])<<8 | uint32(b[3])
			break
		}
		if nibbles++; nibbles > 4 {
			return netip.Addr{}, false
		}
		switch lc := c | 0x20; {
		case c >= '0' && c <= '9':
			word = word*16 + uint32(c-'0')
		case lc >= 'a' && lc <= 'f':
			word = word*16 + uint32(lc-'a') + 10
		default:
			return netip.Addr{}, false
		}
	}
	if nibbles == 0 && zero < 0 {
		return netip.Addr{}, false
	}
	a[out], a[out+1] = byte(word>>8), byte(word)
	out += 2
	n--
	switch {
	case n > 0 && zero >= 0:
		// "::" stands for the groups not given.
		copy(a[zero+2*n:], a[zero:out])
		clear(a[zero : zero+2*n])
	case n > 0 || zero >= 0:
		return netip.Addr{}, false
	}
	return netip.AddrFrom16(a), true
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
