// Package geo maps client addresses to values, as NGINX's geo block
// (ngx_http_geo_module) does: networks in CIDR notation, the longest that
// holds the address deciding, or with "ranges" IPv4 address ranges; a
// default; trusted proxies whose X-Forwarded-For is believed. It imports
// nothing of the server: a Builder reads the block's lines with NGINX's
// rules and messages, and Table.Lookup finds a client's value.
package geo

import (
	"fmt"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/forwarded"
	"github.com/mosaic-edge/mosaic/internal/inet"
)

// none is NGINX's INADDR_NONE: the address looked up for a client whose
// address could not be read (a Unix-domain client, a variable that holds
// no address), and in ranges mode for an IPv6 client.
var none = netip.AddrFrom4([4]byte{255, 255, 255, 255})

// Table is a built geo block.
type Table struct {
	ranges bool
	// CIDR mode: the values by network, and the prefix lengths in use
	// per family, longest first.
	nets         map[netip.Prefix]string
	lens4, lens6 []int
	// Ranges mode, as NGINX stores them: per upper 16 bits of the address,
	// the ranges of its lower 16 bits in order.
	blocks map[uint16][]span
	def    string

	// Proxies are the trusted addresses (geo's "proxy" lines); Recursive
	// is "proxy_recursive".
	Proxies   []netip.Prefix
	Recursive bool
}

type span struct {
	start, end uint16
	value      string
}

// Builder reads a geo block's lines in order.
type Builder struct {
	t       Table
	started bool // a network line has been read: "ranges" is too late
	hasDef  bool
}

// NewBuilder returns a Builder for an empty block.
func NewBuilder() *Builder {
	return &Builder{t: Table{nets: map[netip.Prefix]string{}, blocks: map[uint16][]span{}}}
}

// Line reads one line of the block: its first word and the rest. warn is
// a message NGINX logs as a warning (a duplicate network, a delete that
// finds nothing); err one it refuses the configuration with.
func (b *Builder) Line(name string, args []string) (warn []string, err error) {
	if len(args) == 0 {
		switch name {
		case "ranges":
			if b.started {
				return nil, fmt.Errorf(`the "ranges" directive must be the first directive inside "geo" block`)
			}
			b.t.ranges = true
			return nil, nil
		case "proxy_recursive":
			b.t.Recursive = true
			return nil, nil
		}
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("invalid number of the geo parameters")
	}
	val := args[0]
	if name == "proxy" {
		p, w, err := network(val)
		if err != nil {
			return nil, err
		}
		b.t.Proxies = append(b.t.Proxies, p)
		return w, nil
	}
	if b.t.ranges {
		return b.rangeLine(name, val)
	}
	b.started = true
	return b.cidrLine(name, val)
}

// network reads a network as geo does: 255.255.255.255 is allowed (the
// address that clients without one are looked up as).
func network(s string) (netip.Prefix, []string, error) {
	p, exact, err := inet.ParseNetwork(s)
	if err != nil {
		return p, nil, fmt.Errorf("invalid network %q", s)
	}
	if !exact {
		return p, []string{fmt.Sprintf("low address bits of %s are meaningless", s)}, nil
	}
	return p, nil, nil
}

func (b *Builder) cidrLine(name, val string) ([]string, error) {
	if name == "default" {
		b.hasDef = true
		w := b.put(netip.PrefixFrom(netip.IPv4Unspecified(), 0), name, val)
		return append(w, b.put(netip.PrefixFrom(netip.IPv6Unspecified(), 0), name, val)...), nil
	}
	if name == "delete" {
		p, w, err := network(val)
		if err != nil {
			return nil, err
		}
		if _, ok := b.t.nets[p]; !ok {
			return append(w, fmt.Sprintf("no network %q to delete", val)), nil
		}
		delete(b.t.nets, p)
		return w, nil
	}
	p, w, err := network(name)
	if err != nil {
		return nil, err
	}
	return append(w, b.put(p, name, val)...), nil
}

// put sets the value of network p (written net in the block).
func (b *Builder) put(p netip.Prefix, net, val string) []string {
	var w []string
	if _, ok := b.t.nets[p]; ok {
		// The old value NGINX names is its tree's answer for the
		// network's address: that of the longest network holding it,
		// which may be a more specific one than p.
		var old string
		for l := p.Addr().BitLen(); l >= p.Bits(); l-- {
			if v, ok := b.t.nets[netip.PrefixFrom(p.Addr(), l).Masked()]; ok {
				old = v
				break
			}
		}
		w = []string{fmt.Sprintf("duplicate network %q, value: %q, old value: %q", net, val, old)}
	}
	b.t.nets[p] = val
	return w
}

func (b *Builder) rangeLine(name, val string) ([]string, error) {
	if name == "default" {
		var w []string
		if b.hasDef {
			w = []string{fmt.Sprintf("duplicate default geo range value: %q, old value: %q", val, b.t.def)}
		}
		b.hasDef, b.t.def = true, val
		return w, nil
	}
	net, del := name, name == "delete"
	if del {
		net = val
	}
	startText, endText, ok := strings.Cut(net, "-")
	start, ok1 := inet.ParseIPv4(startText)
	end, ok2 := inet.ParseIPv4(endText)
	if !ok || !ok1 || !ok2 || u32(start) > u32(end) {
		return nil, fmt.Errorf("invalid range %q", net)
	}
	if del {
		if b.deleteRange(u32(start), u32(end)) {
			return []string{fmt.Sprintf("no address range %q to delete", net)}, nil
		}
		return nil, nil
	}
	return b.addRange(u32(start), u32(end), net, val)
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// addRange adds start-end with NGINX's rules, block of 65,536 addresses
// by block: within a block, the new range may lie apart from those there,
// replace one exactly (a warning), or lie inside one, sharing its start,
// its end or neither (the old range is cut around it); any other overlap
// is an error.
func (b *Builder) addRange(start, end uint32, net, val string) ([]string, error) {
	var warn []string
	for n := uint64(start); n <= uint64(end); n = (n + 0x10000) &^ 0xffff {
		h, s, e := blockPart(n, start, end)
		rs := b.t.blocks[h]
		i := len(rs)
		added := false
		for !added && i > 0 {
			i--
			r := rs[i]
			switch {
			case e < r.start:
				continue
			case s > r.end:
				rs = slices.Insert(rs, i+1, span{s, e, val})
			case s == r.start && e == r.end:
				warn = append(warn, fmt.Sprintf("duplicate range %q, value: %q, old value: %q", net, val, r.value))
				rs[i].value = val
			case s > r.start && e < r.end:
				rs = slices.Insert(rs, i+1, span{s, e, val}, span{e + 1, r.end, r.value})
				rs[i].end = s - 1
			case s == r.start && e < r.end:
				rs = slices.Insert(rs, i, span{s, e, val})
				rs[i+1].start = e + 1
			case s > r.start && e == r.end:
				rs = slices.Insert(rs, i+1, span{s, e, val})
				rs[i].end = s - 1
			default:
				return nil, fmt.Errorf("range %q overlaps \"%d.%d.%d.%d-%d.%d.%d.%d\"", net,
					h>>8, h&0xff, r.start>>8, r.start&0xff, h>>8, h&0xff, r.end>>8, r.end&0xff)
			}
			added = true
		}
		if !added {
			rs = slices.Insert(rs, 0, span{s, e, val})
		}
		b.t.blocks[h] = rs
	}
	return warn, nil
}

// blockPart is the part of start-end in the block of 65,536 addresses
// that n (the range's start, or a block's first address after it) is in:
// the block's upper 16 bits, and the first and last lower 16 bits.
func blockPart(n uint64, start, end uint32) (h, s, e uint16) {
	h, s, e = uint16(n>>16), 0, 0xffff
	if uint32(n) == start {
		s = uint16(n)
	}
	if uint32(n)|0xffff > end {
		e = uint16(end)
	}
	return h, s, e
}

// deleteRange removes start-end, which must be a range added as it is in
// each block it spans; it reports whether some part was not found.
func (b *Builder) deleteRange(start, end uint32) (missing bool) {
	for n := uint64(start); n <= uint64(end); n = (n + 0x10000) &^ 0xffff {
		h, s, e := blockPart(n, start, end)
		rs := b.t.blocks[h]
		i := slices.IndexFunc(rs, func(r span) bool { return r.start == s && r.end == e })
		if i < 0 {
			missing = true
			continue
		}
		b.t.blocks[h] = slices.Delete(rs, i, i+1)
	}
	return missing
}

// Table returns the block built. The Builder must not be used after.
func (b *Builder) Table() *Table {
	t := &b.t
	if !t.ranges {
		// Without a default, addresses no network holds get "".
		for _, p := range []netip.Prefix{netip.PrefixFrom(netip.IPv4Unspecified(), 0), netip.PrefixFrom(netip.IPv6Unspecified(), 0)} {
			if _, ok := t.nets[p]; !ok {
				t.nets[p] = ""
			}
		}
		for p := range t.nets {
			if p.Addr().Is4() {
				t.lens4 = append(t.lens4, p.Bits())
			} else {
				t.lens6 = append(t.lens6, p.Bits())
			}
		}
		for _, l := range []*[]int{&t.lens4, &t.lens6} {
			slices.Sort(*l)
			*l = slices.Compact(*l)
			slices.Reverse(*l)
		}
	}
	return t
}

// Find returns the value for the client address a; ok false says the
// client has no address to look up (NGINX then looks up
// 255.255.255.255). An IPv4-mapped IPv6 address is looked up as IPv4.
func (t *Table) Find(a netip.Addr, ok bool) string {
	if !ok || !a.IsValid() {
		a = none
	}
	a = a.Unmap().WithZone("")
	if t.ranges {
		if !a.Is4() {
			a = none
		}
		n := u32(a)
		for _, r := range t.blocks[uint16(n>>16)] {
			if lo := uint16(n); lo >= r.start && lo <= r.end {
				return r.value
			}
		}
		return t.def
	}
	lens := t.lens6
	if a.Is4() {
		lens = t.lens4
	}
	for _, l := range lens {
		if v, ok := t.nets[netip.PrefixFrom(a, l).Masked()]; ok {
			return v
		}
	}
	return ""
}

// Lookup returns the value for the client whose address is addr (the
// text of an address, as $remote_addr or the block's own variable gives
// it; anything else is no address). When the block trusts proxies and
// the address is one of them, the address comes from h's X-Forwarded-For
// first, walked as NGINX's realip module walks it.
func (t *Table) Lookup(addr string, h http.Header) string {
	a, ok := inet.ParseAddr(addr)
	if ok {
		a = forwarded.Behind(a, h["X-Forwarded-For"], t.Proxies, t.Recursive)
	}
	return t.Find(a, ok)
}
