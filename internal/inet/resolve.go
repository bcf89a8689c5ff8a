package inet

import (
	"context"
	"errors"
	"math/bits"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// ErrHostNotFound is ResolveHost's error for a name with no address, in
// NGINX's words ("host not found in upstream ...").
var ErrHostNotFound = errors.New("host not found")

// ErrInvalidIPv6 is ResolveHost's error for a host in brackets that is
// no IPv6 address NGINX reads (a zone, "[fe80::1%eth0]", is none).
var ErrInvalidIPv6 = errors.New("invalid IPv6 address")

// ResolveHost returns the addresses of host as NGINX finds them when a
// configuration loads (ngx_inet_resolve_host: getaddrinfo with
// AF_UNSPEC, SOCK_STREAM and AI_ADDRCONFIG): an IP address is itself; a
// name is looked up through the system's files and DNS, only the
// families this host has an address of (other than loopback) are kept,
// and the addresses are ordered as glibc orders them (see sortAddrs),
// so that "localhost" is [::1] before 127.0.0.1 on a host with IPv6.
// host may be an IPv6 address in brackets.
func ResolveHost(ctx context.Context, host string) ([]netip.Addr, error) {
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		if a, ok := ParseIPv6(host[1 : len(host)-1]); ok {
			return []netip.Addr{a}, nil
		}
		return nil, ErrInvalidIPv6
	}
	if a, ok := ParseIPv4(host); ok {
		return []netip.Addr{a}, nil
	}
	var found []netip.Addr
	if a, ok := parseInetAton(host); ok {
		// getaddrinfo reads the numbers inet_aton reads before it
		// looks a name up: "127.1" is 127.0.0.1.
		found = []netip.Addr{a}
	} else {
		var err error
		if found, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, ErrHostNotFound
		}
	}
	v4, v6 := configuredFamilies()
	addrs := ofFamilies(found, v4, v6)
	if len(addrs) == 0 {
		return nil, ErrHostNotFound
	}
	sortAddrs(addrs, sourceOf)
	return addrs, nil
}

// ofFamilies keeps the addresses of the families getaddrinfo asks for
// with AI_ADDRCONFIG, given whether this host has addresses of each: with
// addresses of one family only, that family alone; with none (or both),
// either. An address found twice (two lines of /etc/hosts) is kept
// twice, as glibc keeps it: NGINX makes a server of each.
func ofFamilies(found []netip.Addr, v4, v6 bool) []netip.Addr {
	var addrs []netip.Addr
	for _, a := range found {
		a = a.Unmap().WithZone("")
		if v4 != v6 && a.Is4() != v4 {
			continue
		}
		addrs = append(addrs, a)
	}
	return addrs
}

// parseInetAton reads an IPv4 address in the forms glibc's inet_aton
// accepts (as getaddrinfo does, whole string only): one to four numbers
// separated by dots, each decimal, octal after a leading 0 or hex after
// 0x, the last filling the bytes the others leave ("10.1" is 10.0.0.1,
// "2130706433" 127.0.0.1).
func parseInetAton(s string) (netip.Addr, bool) {
	fields := strings.Split(s, ".")
	if len(fields) > 4 {
		return netip.Addr{}, false
	}
	var v uint64
	for i, f := range fields {
		n, ok := parseAtonNumber(f)
		if !ok {
			return netip.Addr{}, false
		}
		if i < len(fields)-1 {
			if n > 0xff {
				return netip.Addr{}, false
			}
			v |= n << (8 * (3 - i))
			continue
		}
		if n >= 1<<(8*(5-len(fields))) { // the bytes left for the last
			return netip.Addr{}, false
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// parseAtonNumber reads one number of parseInetAton's: decimal, octal
// after a leading 0, hex after 0x; at most 32 bits.
func parseAtonNumber(f string) (uint64, bool) {
	base := 10
	switch {
	case len(f) > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X'):
		base, f = 16, f[2:]
	case len(f) > 1 && f[0] == '0':
		base = 8
	}
	if f == "" {
		return 0, false
	}
	n, err := strconv.ParseUint(f, base, 32)
	return n, err == nil
}

// configuredFamilies reports whether an interface has an IPv4 address
// other than 127.0.0.1 and an IPv6 address other than ::1: what glibc's
// AI_ADDRCONFIG looks at (a link-local IPv6 address counts).
func configuredFamilies() (v4, v6 bool) {
	ifaddrs, err := net.InterfaceAddrs()
	if err != nil {
		return false, false
	}
	for _, ia := range ifaddrs {
		n, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		a, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		a = a.Unmap()
		switch {
		case a.Is4() && a != netip.AddrFrom4([4]byte{127, 0, 0, 1}):
			v4 = true
		case a.Is6() && !a.IsLoopback():
			v6 = true
		}
	}
	return v4, v6
}

// sourceOf returns the address this host would send from to reach a,
// with the prefix length of the interface address it is (glibc's
// prefixlen, for rule 9 of sortAddrs), or false when it has no route
// there. A UDP socket connected to a sends nothing.
func sourceOf(a netip.Addr) (netip.Prefix, bool) {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(a, 9)))
	if err != nil {
		return netip.Prefix{}, false
	}
	defer c.Close()
	// A link-local source's zone would make its prefix invalid.
	src := c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap().WithZone("")
	if !src.IsValid() {
		return netip.Prefix{}, false
	}
	ones := src.BitLen() // an address on no interface: its own subnet
	if ifaddrs, err := net.InterfaceAddrs(); err == nil {
		for _, ia := range ifaddrs {
			if n, ok := ia.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == src {
					ones, _ = n.Mask.Size()
					break
				}
			}
		}
	}
	return netip.PrefixFrom(src, ones), true
}

// sortAddrs orders destination addresses as glibc's getaddrinfo does,
// by the rules of RFC 3484 (section 6) with glibc's default tables (an
// empty /etc/gai.conf, Debian's): reachable addresses first (rule 1),
// then one whose scope matches its source's (2), whose label matches its
// source's (5), of higher precedence (6), of smaller scope (8), sharing
// the longer prefix with its source (9), and otherwise in the order
// found (10). Rule 9 compares IPv6 addresses over all their
// bits, and IPv4 ones only within the source's subnet: one outside it
// shares no prefix. Rules 3, 4 and 7 (deprecated, home and tunnelled
// addresses) do not arise for the addresses a server has.
func sortAddrs(addrs []netip.Addr, source func(netip.Addr) (netip.Prefix, bool)) {
	type dest struct {
		addr, src netip.Addr
		subnet    netip.Prefix // the source's, on its interface
		ok        bool
	}
	ds := make([]dest, len(addrs))
	for i, a := range addrs {
		p, ok := source(a)
		ds[i] = dest{a, p.Addr(), p.Masked(), ok}
	}
	slices.SortStableFunc(ds, func(a, b dest) int {
		if a.ok != b.ok { // rule 1
			return boolOrder(a.ok, b.ok)
		}
		if !a.ok {
			return 0
		}
		as, bs := scope(a.addr) == scope(a.src), scope(b.addr) == scope(b.src)
		if as != bs { // rule 2
			return boolOrder(as, bs)
		}
		al := policyOf(a.addr).label == policyOf(a.src).label
		bl := policyOf(b.addr).label == policyOf(b.src).label
		if al != bl { // rule 5
			return boolOrder(al, bl)
		}
		if pa, pb := policyOf(a.addr).precedence, policyOf(b.addr).precedence; pa != pb { // rule 6
			return pb - pa
		}
		if sa, sb := scope(a.addr), scope(b.addr); sa != sb { // rule 8
			return sa - sb
		}
		if a.addr.Is4() == b.addr.Is4() { // rule 9
			return sharedPrefix(b.addr, b.src, b.subnet) - sharedPrefix(a.addr, a.src, a.subnet)
		}
		return 0
	})
	for i := range ds {
		addrs[i] = ds[i].addr
	}
}

// boolOrder sorts true before false.
func boolOrder(a, b bool) int {
	if a && !b {
		return -1
	}
	if b && !a {
		return 1
	}
	return 0
}

// scope is an address's scope as glibc reckons it: link-local and
// loopback 2 (for IPv4, 169.254/16 and 127/8), site-local 5, a
// multicast address its own, global 14.
func scope(a netip.Addr) int {
	switch {
	case a.IsMulticast() && a.Is6():
		return int(a.As16()[1] & 0xf)
	case a.IsLinkLocalUnicast(), a.IsLoopback():
		return 2
	case a.Is6() && siteLocal.Contains(a):
		return 5
	}
	return 14
}

var siteLocal = netip.MustParsePrefix("fec0::/10")

// policyEntry is a row of glibc's default policy table (RFC 3484's, as
// gai.conf writes it).
type policyEntry struct {
	prefix            netip.Prefix
	precedence, label int
}

// policy holds the rows whose prefixes are more specific than ::/0, which
// policyOf answers for the addresses in none of them.
var policy = []policyEntry{
	{netip.MustParsePrefix("::1/128"), 50, 0},
	{netip.MustParsePrefix("2002::/16"), 30, 2},
	{netip.MustParsePrefix("::ffff:0:0/96"), 10, 4},
	{netip.MustParsePrefix("::/96"), 20, 3},
	{siteLocal, 40, 5},
	{netip.MustParsePrefix("fc00::/7"), 40, 6},
	{netip.MustParsePrefix("2001::/32"), 40, 7},
}

// policyOf is the row of policy for a, an IPv4 address mapped into the
// IPv6 space.
func policyOf(a netip.Addr) policyEntry {
	a = netip.AddrFrom16(a.As16())
	for _, e := range policy {
		if e.prefix.Contains(a) {
			return e
		}
	}
	return policyEntry{precedence: 40, label: 1}
}

// sharedPrefix is the number of leading bits a destination shares with
// its source, as glibc's rule 9 counts them: all 128 for IPv6; for IPv4
// one more than the bits shared when the destination is in the source's
// subnet, and none outside it, where a shared prefix means nothing.
func sharedPrefix(dst, src netip.Addr, subnet netip.Prefix) int {
	if dst.Is4() && !subnet.Contains(dst) {
		return 0
	}
	x, y := dst.AsSlice(), src.AsSlice()
	n := 0
	for i := range x {
		d := x[i] ^ y[i]
		if d == 0 {
			n += 8
			continue
		}
		n += bits.LeadingZeros8(d)
		break
	}
	if dst.Is4() {
		n++
	}
	return n
}
