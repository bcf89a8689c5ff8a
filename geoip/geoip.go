// Package geoip reads MaxMind's legacy GeoIP databases (GeoIP.dat,
// GeoIPv6.dat, GeoLiteCity.dat, GeoIPASNum.dat: the binary format that
// libGeoIP reads) and looks client addresses up in them as NGINX's
// ngx_http_geoip_module does: country, city and organization editions,
// IPv4 and IPv6. It imports nothing of the server and no C library; a
// database is read into memory once, and a corrupt or hostile file can
// give wrong answers but never a read outside it.
package geoip

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// Type is a database's edition, numbered as libGeoIP numbers them (the
// number NGINX's "invalid GeoIP database ... type:N" names).
type Type int

// The editions NGINX's module accepts, and those libGeoIP opens that it
// refuses but whose numbers matter for the messages.
const (
	Country      Type = 1
	CityRev1     Type = 2
	RegionRev1   Type = 3
	ISP          Type = 4
	Org          Type = 5
	CityRev0     Type = 6
	RegionRev0   Type = 7
	Proxy        Type = 8
	ASNum        Type = 9
	NetSpeed     Type = 10
	Domain       Type = 11
	CountryV6    Type = 12
	LocationA    Type = 13
	AccuracyRad  Type = 14
	LargeCountry Type = 17
	LargeCountV6 Type = 18
	ASNumV6      Type = 21
	ISPV6        Type = 22
	OrgV6        Type = 23
	DomainV6     Type = 24
	LocationAV6  Type = 25
	Registrar    Type = 26
	RegistrarV6  Type = 27
	UserType     Type = 28
	UserTypeV6   Type = 29
	CityRev1V6   Type = 30
	CityRev0V6   Type = 31
	NetSpeedR1   Type = 32
	NetSpeedR1V6 Type = 33
	CountryConf  Type = 34
	CityConf     Type = 35
	RegionConf   Type = 36
	PostalConf   Type = 37
	AccuracyV6   Type = 38
)

// Where the data of an edition without a record section begins: a
// pointer at or above it is the answer (a country number, for a
// country edition, once it is subtracted).
const (
	countryBegin      = 16776960
	largeCountryBegin = 16515072
	stateBeginRev0    = 16700000
	stateBeginRev1    = 16000000
)

// MaxSize bounds the file Open reads: libGeoIP's offsets are 32-bit, and
// the largest legacy databases (City) are tens of megabytes.
const MaxSize = 1 << 30

// ErrCorrupt is the error for a file that libGeoIP would not open: too
// short, an edition it does not know, a record section that does not fit.
var ErrCorrupt = errors.New("geoip: not a GeoIP database")

// DB is an open database. Its methods may be called concurrently.
type DB struct {
	data   []byte
	typ    Type
	seg    uint32 // libGeoIP's databaseSegments[0]
	recLen int    // bytes of a pointer in the tree: 3, or 4 for org-type editions
	v6     bool

	// UTF8 makes the names (country names, cities, organizations)
	// UTF-8, converted from the database's ISO-8859-1, as NGINX's "utf8"
	// parameter asks libGeoIP; region codes and region names are left as
	// they are, as libGeoIP leaves them. Set it before the first lookup.
	UTF8 bool
}

// Open reads the database at path: as many bytes as its size says, as
// libGeoIP reads them, so that a device without a size (/dev/zero) is an
// empty file, not one read up to MaxSize.
func Open(path string) (*DB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxSize {
		return nil, fmt.Errorf("geoip: %s is larger than %d bytes", path, MaxSize)
	}
	data := make([]byte, st.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("geoip: reading %s: %w", path, err)
	}
	return New(data)
}

// New reads a database held in data, which it keeps.
func New(data []byte) (*DB, error) {
	db := &DB{data: data, typ: Country, recLen: 3}
	// The structure information sits at the end of the file: three 0xff
	// bytes, the edition, and for editions with records the start of
	// the record section. libGeoIP looks for it up to 20 positions back,
	// one byte further each time; a file without it is taken for a
	// Country edition.
	hasSeg := false
	off := len(data) - 3
	if off < 0 {
		return nil, ErrCorrupt
	}
	for range 20 {
		if data[off] != 0xff || data[off+1] != 0xff || data[off+2] != 0xff {
			// libGeoIP gives up on a file too short for the next place.
			if off--; off < 0 {
				return nil, ErrCorrupt
			}
			continue
		}
		if off+3 >= len(data) {
			return nil, ErrCorrupt
		}
		// libGeoIP keeps the edition in a char: signed, and shifted
		// down for files of April 2003 and before.
		db.typ = Type(int8(data[off+3]))
		if db.typ >= 106 {
			db.typ -= 105
		}
		switch {
		case db.typ == RegionRev0:
			db.seg, hasSeg = stateBeginRev0, true
		case db.typ == RegionRev1:
			db.seg, hasSeg = stateBeginRev1, true
		case db.typ.hasRecords():
			if off+7 > len(data) {
				return nil, ErrCorrupt
			}
			b := data[off+4 : off+7]
			db.seg, hasSeg = uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16, true
			switch db.typ {
			case Org, OrgV6, Domain, DomainV6, ISP, ISPV6:
				db.recLen = 4
			}
		}
		break
	}
	switch db.typ {
	case Country, Proxy, NetSpeed, CountryV6:
		db.seg, hasSeg = countryBegin, true
	case LargeCountry, LargeCountV6:
		db.seg, hasSeg = largeCountryBegin, true
	}
	if !hasSeg {
		return nil, ErrCorrupt
	}
	// The tree of an edition with records must fit in the file.
	if db.typ.hasRecords() && uint64(db.seg)*uint64(db.recLen)*2 > uint64(len(data)) {
		return nil, ErrCorrupt
	}
	switch db.typ {
	case CountryV6, LargeCountV6, ASNumV6, ISPV6, OrgV6, DomainV6, LocationAV6,
		RegistrarV6, UserTypeV6, CityRev1V6, CityRev0V6, NetSpeedR1V6, AccuracyV6:
		db.v6 = true
	}
	return db, nil
}

// hasRecords reports whether the edition keeps records after its tree
// (libGeoIP reads where they begin from the structure information).
func (t Type) hasRecords() bool {
	switch t {
	case CityRev0, CityRev1, Org, OrgV6, Domain, DomainV6, ISP, ISPV6,
		Registrar, RegistrarV6, UserType, UserTypeV6, ASNum, ASNumV6,
		NetSpeedR1, NetSpeedR1V6, LocationA, AccuracyRad, AccuracyV6,
		CityRev0V6, CityRev1V6, CityConf, CountryConf, RegionConf, PostalConf:
		return true
	}
	return false
}

// Type returns the database's edition.
func (db *DB) Type() Type { return db.typ }

// IPv6 reports whether the database is an IPv6 edition: its lookups take
// 128-bit addresses, IPv4 clients as IPv4-mapped ones.
func (db *DB) IPv6() bool { return db.v6 }

// seek walks the tree for the client address a as NGINX hands addresses
// to libGeoIP, and returns the pointer it ends on, or 0 when the walk
// leaves the file or runs out of bits (libGeoIP's answer for a corrupt
// file). An invalid a is a client without an address (a Unix-domain
// one).
//
// In an IPv4 database an IPv4-mapped address is looked up as IPv4 and
// any other IPv6 address, like a client without one, as 255.255.255.255.
// In an IPv6 database an IPv4 address is looked up as IPv4-mapped, a
// client without one as ::, and a Teredo address (2001::/32) as the
// client's own IPv4 address that it carries, as libGeoIP does.
func (db *DB) seek(a netip.Addr) uint32 {
	var key [16]byte
	bits := 32
	if db.v6 {
		bits = 128
		if a.IsValid() {
			key = a.As16() // IPv4 as IPv4-mapped
		}
		if key[0] == 0x20 && key[1] == 0x01 && key[2] == 0 && key[3] == 0 {
			for i := range 12 {
				key[i] = 0
			}
			for i := 12; i < 16; i++ {
				key[i] ^= 0xff
			}
		}
	} else {
		v4 := [4]byte{0xff, 0xff, 0xff, 0xff}
		if a.Is4() || a.Is4In6() {
			v4 = a.Unmap().As4()
		}
		copy(key[:], v4[:])
	}
	pair := uint64(2 * db.recLen)
	var node uint64
	for depth := range bits {
		at := pair * node
		if at+pair > uint64(len(db.data)) {
			return 0
		}
		rec := db.data[at : at+pair]
		if key[depth/8]&(0x80>>(depth%8)) != 0 {
			rec = rec[db.recLen:]
		}
		var x uint32
		for j := db.recLen - 1; j >= 0; j-- {
			x = x<<8 | uint32(rec[j])
		}
		if x >= db.seg {
			return x
		}
		node = uint64(x)
	}
	return 0
}

// country is what a country number stands for.
type country struct {
	code, code3, continent string
	name, utf8Name         string
}

// numCountries is the number of countryTable's lines: a City record's
// country is one byte.
const numCountries = 256

// countryLines returns where each line of countryTable starts, found
// at the first use.
var countryLines = sync.OnceValue(func() []uint32 { return lineStarts(countryTable) })

// countryAt returns what country number id (0 to 255) stands for: the
// five fields of its line.
func countryAt(id int) country {
	line := countryTable[countryLines()[id]:]
	line = line[:strings.IndexByte(line, '\n')]
	var f [5]string
	for i := range 4 {
		tab := strings.IndexByte(line, '\t')
		f[i], line = line[:tab], line[tab+1:]
	}
	f[4] = line
	return country{code: f[0], code3: f[1], continent: f[2], name: f[3], utf8Name: f[4]}
}

// nameIn returns the country's English name, in ISO-8859-1 or UTF-8.
func (c country) nameIn(utf8 bool) string {
	if utf8 {
		return c.utf8Name
	}
	return c.name
}

// CountryID returns the country number of address a in a Country
// edition (IPv4 or IPv6), and false where libGeoIP finds none: no
// country (0), a walk that failed, the IPv4 address 0.0.0.0, or a
// database of another edition. Its code, code3 and name are then not
// found in NGINX.
func (db *DB) CountryID(a netip.Addr) (int, bool) {
	if db.typ != Country && db.typ != CountryV6 {
		return 0, false
	}
	if !db.v6 && (a.Is4() || a.Is4In6()) && a.Unmap().As4() == [4]byte{} {
		return 0, false
	}
	id := int64(db.seek(a)) - int64(db.seg)
	if id <= 0 || id >= numCountries {
		return 0, false
	}
	return int(id), true
}

// Country returns the country of address a in a Country edition: its
// codes and its name (UTF-8 when db.UTF8).
func (db *DB) Country(a netip.Addr) (code, code3, name string, ok bool) {
	id, ok := db.CountryID(a)
	if !ok {
		return "", "", "", false
	}
	c := countryAt(id)
	return c.code, c.code3, c.nameIn(db.UTF8), true
}

// Record is a City edition's answer for an address. Empty strings are
// the fields the record leaves out (NGINX's variables are then not
// found).
type Record struct {
	CountryID                                int
	ContinentCode, CountryCode, CountryCode3 string
	CountryName                              string // "" for country 0
	Region, City, PostalCode                 string
	Latitude, Longitude                      float32
	MetroCode, AreaCode                      int // US locations of Rev1 editions only; else 0
}

// RegionName returns the name of the record's region, "" when libGeoIP
// knows none.
func (r *Record) RegionName() string { return RegionName(r.CountryCode, r.Region) }

// RegionName returns the name of region (a FIPS 10-4 code, or ISO 3166-2
// for the United States and Canada) of country code, as libGeoIP's
// GeoIP_region_name_by_code finds it: by the region's first two
// characters, which must be digits or capital letters.
func RegionName(country, region string) string {
	if len(region) < 2 || !codeChar(region[0]) || !codeChar(region[1]) {
		return ""
	}
	key := country + region[:2]
	lines := regionLines()
	i, ok := sort.Find(len(lines), func(i int) int { return strings.Compare(key, regionTable[lines[i]:lines[i]+4]) })
	if !ok {
		return ""
	}
	name := regionTable[lines[i]+4:]
	return name[:strings.IndexByte(name, '\n')]
}

// regionLines returns where each line of regionTable starts, found at
// the first use.
var regionLines = sync.OnceValue(func() []uint32 { return lineStarts(regionTable) })

// lineStarts returns where each line of table starts.
func lineStarts(table string) []uint32 {
	lines := make([]uint32, 0, strings.Count(table, "\n"))
	for at := 0; at < len(table); {
		lines = append(lines, uint32(at))
		at += strings.IndexByte(table[at:], '\n') + 1
	}
	return lines
}

func codeChar(c byte) bool { return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' }

// City returns the record of address a in a City edition (Rev0 or Rev1,
// IPv4 or IPv6), and false where there is none.
func (db *DB) City(a netip.Addr) (*Record, bool) {
	switch db.typ {
	case CityRev0, CityRev1, CityRev0V6, CityRev1V6:
	default:
		return nil, false
	}
	p, ok := db.record(db.seek(a))
	if !ok {
		return nil, false
	}
	d := db.data[p:]
	id := int(d[0])
	c := countryAt(id)
	r := &Record{CountryID: id, ContinentCode: c.continent, CountryCode: c.code, CountryCode3: c.code3}
	if id > 0 {
		r.CountryName = c.nameIn(db.UTF8)
	}
	d = d[1:]
	var fields [3]string
	for i := range fields {
		n := indexNUL(d)
		if n < 0 {
			return nil, false
		}
		fields[i], d = string(d[:n]), d[n+1:]
	}
	r.Region, r.City, r.PostalCode = fields[0], fields[1], fields[2]
	if db.UTF8 {
		r.City = latin1ToUTF8(r.City)
	}
	if len(d) < 6 {
		return nil, false
	}
	// Coordinates in ten-thousandths of a degree, offset by 180, as
	// libGeoIP turns them into its float fields.
	r.Latitude = float32(float64(le24(d[0:3]))/10000 - 180)
	r.Longitude = float32(float64(le24(d[3:6]))/10000 - 180)
	if (db.typ == CityRev1 || db.typ == CityRev1V6) && r.CountryCode == "US" {
		if len(d) < 9 {
			return nil, false
		}
		combo := int(le24(d[6:9]))
		r.MetroCode, r.AreaCode = combo/1000, combo%1000
	}
	return r, true
}

// Org returns the name that an Organization, ISP, Domain or ASNum
// edition (IPv4 or IPv6) holds for address a, and false where there is
// none.
func (db *DB) Org(a netip.Addr) (string, bool) {
	switch db.typ {
	case Org, ISP, Domain, ASNum, OrgV6, ISPV6, DomainV6, ASNumV6:
	default:
		return "", false
	}
	p, ok := db.record(db.seek(a))
	if !ok {
		return "", false
	}
	d := db.data[p:]
	n := indexNUL(d)
	if n < 0 {
		return "", false
	}
	s := string(d[:n])
	if db.UTF8 {
		s = latin1ToUTF8(s)
	}
	return s, true
}

// record returns where the record that the tree's pointer x leads to
// begins in the file, and false when x is the "no record" pointer or the
// record lies outside the file. A walk that failed (x is 0) is read as
// libGeoIP reads it, as any other pointer: a record inside the tree.
func (db *DB) record(x uint32) (int, bool) {
	if x == db.seg {
		return 0, false
	}
	p := uint64(x) + uint64(2*db.recLen-1)*uint64(db.seg)
	if p >= uint64(len(db.data)) {
		return 0, false
	}
	return int(p), true
}

func le24(b []byte) uint32 { return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 }

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// latin1ToUTF8 converts ISO-8859-1 text, as libGeoIP's
// _GeoIP_iso_8859_1__utf8 does.
func latin1ToUTF8(s string) string {
	b := make([]byte, 0, len(s)*2)
	for i := range len(s) {
		b = utf8.AppendRune(b, rune(s[i]))
	}
	return string(b)
}
