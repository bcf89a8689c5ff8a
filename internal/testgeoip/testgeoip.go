// Package testgeoip writes small databases in MaxMind's legacy GeoIP
// format, for the tests of the geoip reader and for the tests that
// compare mosaic's $geoip_* variables with NGINX's on the same files:
// Debian ships the country editions only, so the city and organization
// ones are made here. It writes what libGeoIP reads: a binary tree of
// pointers, the records after it, and the structure information at the
// end.
package testgeoip

import (
	"math"
	"net/netip"
)

// Editions, numbered as libGeoIP numbers them.
const (
	Country    = 1
	CityRev1   = 2
	ISP        = 4
	Org        = 5
	CityRev0   = 6
	ASNum      = 9
	Domain     = 11
	CountryV6  = 12
	ASNumV6    = 21
	ISPV6      = 22
	OrgV6      = 23
	DomainV6   = 24
	CityRev1V6 = 30
	CityRev0V6 = 31
)

const countryBegin = 16776960

// Net is a network and what the database holds for it: a country number
// (Country editions) or a record (the others).
type Net struct {
	Prefix  netip.Prefix
	Country int
	Record  []byte
}

// City is a City edition's record.
type City struct {
	Country                  int // libGeoIP's country number: 225 is US, 77 GB
	Region, City, PostalCode string
	Latitude, Longitude      float64
	Metro, Area              int // written for US records of Rev1 editions
}

// Bytes returns the record as a database of edition ed stores it.
func (c City) Bytes(ed int) []byte {
	b := []byte{byte(c.Country)}
	for _, s := range []string{c.Region, c.City, c.PostalCode} {
		b = append(append(b, s...), 0)
	}
	b = le24(b, uint32(math.Round((c.Latitude+180)*10000)))
	b = le24(b, uint32(math.Round((c.Longitude+180)*10000)))
	if (ed == CityRev1 || ed == CityRev1V6) && c.Country == 225 {
		b = le24(b, uint32(c.Metro*1000+c.Area))
	}
	return b
}

// Name returns an Org, ISP, Domain or ASNum edition's record.
func Name(s string) []byte { return append([]byte(s), 0) }

func le24(b []byte, v uint32) []byte { return append(b, byte(v), byte(v>>8), byte(v>>16)) }

func isV6(ed int) bool {
	switch ed {
	case CountryV6, ASNumV6, ISPV6, OrgV6, DomainV6, CityRev1V6, CityRev0V6:
		return true
	}
	return false
}

// node is a node of the tree: each side another node (index > 0) or a
// leaf holding the index of a Net plus one (value < 0: -1 is none).
type node struct{ side [2]int }

// Build returns a database of edition ed holding nets. A later network
// inside an earlier one overrides it there. In an IPv6 edition, an IPv4
// network is stored at its IPv4-mapped place, where NGINX looks IPv4
// clients up.
func Build(ed int, nets []Net) []byte {
	bits := 32
	if isV6(ed) {
		bits = 128
	}
	nodes := []node{{side: [2]int{-1, -1}}}
	for i, n := range nets {
		p := n.Prefix
		if bits == 128 && p.Addr().Is4() {
			p = netip.PrefixFrom(netip.AddrFrom16(p.Addr().As16()), p.Bits()+96)
		}
		key := p.Addr().AsSlice()
		cur := 0
		for d := range p.Bits() {
			bit := int(key[d/8]>>(7-d%8)) & 1
			if d == p.Bits()-1 {
				nodes[cur].side[bit] = -(i + 2)
				break
			}
			next := nodes[cur].side[bit]
			if next < 0 {
				// A leaf (or nothing) above the new network: push it down
				// to both sides of a new node.
				nodes = append(nodes, node{side: [2]int{next, next}})
				next = len(nodes) - 1
				nodes[cur].side[bit] = next
			}
			cur = next
		}
	}
	recLen := 3
	switch ed {
	case Org, OrgV6, ISP, ISPV6, Domain, DomainV6:
		recLen = 4
	}
	// Where the leaves point: a country number above countryBegin, or a
	// record's offset above the node count, the records following the
	// tree (libGeoIP reads a record at pointer + (2*recLen-1)*segment).
	// Offset 0 is the "no record" pointer: a byte of padding takes it.
	withRecords := ed != Country && ed != CountryV6
	seg := uint32(countryBegin)
	var records []byte
	leaf := make([]uint32, len(nets))
	if withRecords {
		seg = uint32(len(nodes))
		records = []byte{0}
		for i, n := range nets {
			leaf[i] = seg + uint32(len(records))
			records = append(records, n.Record...)
		}
	} else {
		for i, n := range nets {
			leaf[i] = seg + uint32(n.Country)
		}
	}
	var out []byte
	for _, n := range nodes {
		for _, s := range n.side {
			var v uint32
			switch {
			case s > 0:
				v = uint32(s)
			case s == -1:
				v = seg
			default:
				v = leaf[-s-2]
			}
			for j := range recLen {
				out = append(out, byte(v>>(8*j)))
			}
		}
	}
	out = append(out, records...)
	out = append(out, 0xff, 0xff, 0xff, byte(ed))
	if withRecords {
		out = le24(out, seg)
	}
	return out
}
