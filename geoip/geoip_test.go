package geoip

import (
	"errors"
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testgeoip"
)

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func addr(s string) netip.Addr {
	if s == "" {
		return netip.Addr{} // a client without an address
	}
	return netip.MustParseAddr(s)
}

func open(t *testing.T, data []byte) *DB {
	t.Helper()
	db, err := New(data)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestCountryV4AndV6(t *testing.T) {
	nets := []testgeoip.Net{
		{Prefix: pfx("81.2.0.0/16"), Country: 77},        // GB
		{Prefix: pfx("81.2.69.0/24"), Country: 56},       // DE, inside GB's
		{Prefix: pfx("0.0.0.0/8"), Country: 225},         // US: 0.0.0.0 itself is never found
		{Prefix: pfx("255.255.255.255/32"), Country: 74}, // FR: the clients without an address
		{Prefix: pfx("2a00::/16"), Country: 56},
		{Prefix: pfx("::/96"), Country: 108}, // IT: where Teredo clients and "no address" go in IPv6
	}
	v4 := open(t, testgeoip.Build(testgeoip.Country, nets))
	v6 := open(t, testgeoip.Build(testgeoip.CountryV6, nets))
	if v4.Type() != Country || v4.IPv6() || v6.Type() != CountryV6 || !v6.IPv6() {
		t.Fatalf("types %d %v, %d %v", v4.Type(), v4.IPv6(), v6.Type(), v6.IPv6())
	}
	for _, c := range []struct {
		db           *DB
		addr         string
		code, code3  string
		name, nameU8 string
	}{
		{v4, "81.2.1.1", "GB", "GBR", "United Kingdom", "United Kingdom"},
		{v4, "81.2.69.160", "DE", "DEU", "Germany", "Germany"},
		{v4, "::ffff:81.2.69.160", "DE", "DEU", "Germany", "Germany"},
		{v4, "0.0.0.1", "US", "USA", "United States", "United States"},
		{v4, "0.0.0.0", "", "", "", ""},
		{v4, "10.0.0.1", "", "", "", ""},
		{v4, "2a00::1", "FR", "FRA", "France", "France"}, // IPv6 in IPv4: 255.255.255.255
		{v4, "", "FR", "FRA", "France", "France"},
		{v6, "81.2.69.160", "DE", "DEU", "Germany", "Germany"},
		{v6, "2a00:1450::1", "DE", "DEU", "Germany", "Germany"},
		{v6, "2001:0:4136:e378:8000:63bf:3fff:fdd2", "IT", "ITA", "Italy", "Italy"}, // Teredo: ::192.0.2.45
		{v6, "", "IT", "ITA", "Italy", "Italy"},
		{v6, "2600::1", "", "", "", ""},
	} {
		code, code3, name, _ := c.db.Country(addr(c.addr))
		if code != c.code || code3 != c.code3 || name != c.name {
			t.Errorf("%v %q: %q %q %q, want %q %q %q", c.db.Type(), c.addr, code, code3, name, c.code, c.code3, c.name)
		}
	}
	// The names of the two character sets differ where ISO-8859-1 has
	// no letter to write: Curacao (CW, number 10).
	cw := open(t, testgeoip.Build(testgeoip.Country, []testgeoip.Net{{Prefix: pfx("1.0.0.0/8"), Country: 10}}))
	if _, _, n, _ := cw.Country(addr("1.1.1.1")); n != "Curacao" {
		t.Errorf("latin1 %q", n)
	}
	cw.UTF8 = true
	if _, _, n, _ := cw.Country(addr("1.1.1.1")); n != "Curaçao" {
		t.Errorf("utf8 %q", n)
	}
}

func TestCity(t *testing.T) {
	sf := testgeoip.City{Country: 225, Region: "CA", City: "San Francisco", PostalCode: "94107",
		Latitude: 37.7697, Longitude: -122.3933, Metro: 807, Area: 415}
	zu := testgeoip.City{Country: 43, Region: "25", City: "Z\xfcrich", Latitude: 47.3667, Longitude: 8.55}
	for _, ed := range []int{testgeoip.CityRev1, testgeoip.CityRev0, testgeoip.CityRev1V6, testgeoip.CityRev0V6} {
		db := open(t, testgeoip.Build(ed, []testgeoip.Net{
			{Prefix: pfx("192.0.2.0/24"), Record: sf.Bytes(ed)},
			{Prefix: pfx("198.51.100.0/24"), Record: zu.Bytes(ed)},
		}))
		r, ok := db.City(addr("192.0.2.9"))
		if !ok {
			t.Fatalf("edition %d: no record", ed)
		}
		metro, area := 807, 415
		if ed == testgeoip.CityRev0 || ed == testgeoip.CityRev0V6 {
			metro, area = 0, 0
		}
		want := Record{CountryID: 225, ContinentCode: "NA", CountryCode: "US", CountryCode3: "USA",
			CountryName: "United States", Region: "CA", City: "San Francisco", PostalCode: "94107",
			Latitude: r.Latitude, Longitude: r.Longitude, MetroCode: metro, AreaCode: area}
		if *r != want || r.RegionName() != "California" {
			t.Errorf("edition %d: %+v %q", ed, *r, r.RegionName())
		}
		if d := r.Latitude - 37.7697; d > 1e-4 || d < -1e-4 {
			t.Errorf("latitude %v", r.Latitude)
		}
		r, ok = db.City(addr("198.51.100.1"))
		if !ok || r.City != "Z\xfcrich" || r.RegionName() != "Zurich" || r.MetroCode != 0 {
			t.Errorf("edition %d: %+v %q", ed, r, r.RegionName())
		}
		db.UTF8 = true
		if r, _ = db.City(addr("198.51.100.1")); r.City != "Zürich" {
			t.Errorf("utf8 %q", r.City)
		}
		if _, ok := db.City(addr("203.0.113.1")); ok {
			t.Errorf("edition %d: a record where there is none", ed)
		}
		if _, ok := db.Org(addr("192.0.2.9")); ok {
			t.Errorf("edition %d: an org from a city database", ed)
		}
	}
}

func TestOrg(t *testing.T) {
	for _, ed := range []int{testgeoip.Org, testgeoip.ISP, testgeoip.ASNum, testgeoip.Domain,
		testgeoip.OrgV6, testgeoip.ASNumV6} {
		db := open(t, testgeoip.Build(ed, []testgeoip.Net{
			{Prefix: pfx("192.0.2.0/24"), Record: testgeoip.Name("AS64500 Caf\xe9 Networks")},
			{Prefix: pfx("2001:db8::/32"), Record: testgeoip.Name("AS64501 Six")},
		}))
		if s, ok := db.Org(addr("192.0.2.1")); !ok || s != "AS64500 Caf\xe9 Networks" {
			t.Errorf("edition %d: %q %v", ed, s, ok)
		}
		db.UTF8 = true
		if s, _ := db.Org(addr("192.0.2.1")); s != "AS64500 Café Networks" {
			t.Errorf("edition %d utf8: %q", ed, s)
		}
		s, ok := db.Org(addr("2001:db8::1"))
		if db.IPv6() != ok || ok && s != "AS64501 Six" {
			t.Errorf("edition %d v6: %q %v", ed, s, ok)
		}
		if _, ok := db.Org(addr("203.0.113.1")); ok {
			t.Errorf("edition %d: an org where there is none", ed)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := Open("/nonexistent/GeoIP.dat"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	// A device without a size is read as libGeoIP reads it, as empty:
	// not up to MaxSize (gigabytes of memory, seconds) before refusing it.
	if _, err := Open(os.DevNull); !errors.Is(err, ErrCorrupt) {
		t.Errorf("%s: %v", os.DevNull, err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Open("/dev/zero"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := Open(t.TempDir()); err == nil {
		t.Error("a directory opens")
	}
	city := testgeoip.Build(testgeoip.CityRev1, []testgeoip.Net{{Prefix: pfx("192.0.2.0/24"), Record: testgeoip.City{Country: 1}.Bytes(2)}})
	for name, data := range map[string][]byte{
		"empty":            nil,
		"short":            {1, 2},
		"no room to look":  make([]byte, 10),
		"unknown edition":  {0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 15},
		"negative edition": {0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x90},
		"no type byte":     {0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff},
		"no segment":       {0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 2, 1},
		"tree too large":   {0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 2, 0xff, 0xff, 0},
		"truncated city":   city[len(city)-20:],
	} {
		if _, err := New(data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Without structure information, a file is a Country edition, as
	// libGeoIP takes it; a walk that leaves the file finds nothing.
	db := open(t, make([]byte, 40))
	if db.Type() != Country {
		t.Errorf("type %d", db.Type())
	}
	if _, _, _, ok := db.Country(addr("1.2.3.4")); ok {
		t.Error("a country from zeros")
	}
	// Editions of April 2003 and before were numbered from 106.
	if db := open(t, []byte{0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 106}); db.Type() != Country {
		t.Errorf("old numbering: %d", db.Type())
	}
}

func TestDebianCountryDatabases(t *testing.T) {
	for _, c := range []struct{ file, addr, code string }{
		{"GeoIP.dat", "8.8.8.8", "US"},
		{"GeoIP.dat", "81.2.69.160", "GB"},
		{"GeoIP.dat", "10.1.2.3", ""},
		{"GeoIPv6.dat", "2a00:1450:4001:81b::200e", "DE"},
		{"GeoIPv6.dat", "8.8.8.8", "US"},
	} {
		db, err := Open("/usr/share/GeoIP/" + c.file)
		if errors.Is(err, os.ErrNotExist) {
			t.Skip("Debian's geoip-database is not installed")
		}
		if err != nil {
			t.Fatal(err)
		}
		if code, _, _, _ := db.Country(addr(c.addr)); code != c.code {
			t.Errorf("%s %s: %q, want %q", c.file, c.addr, code, c.code)
		}
	}
}

func TestRegionName(t *testing.T) {
	for _, c := range []struct{ country, region, want string }{
		{"US", "CA", "California"},
		{"US", "CAX", "California"}, // the first two characters decide
		{"CA", "ON", "Ontario"},
		{"GB", "H9", "London, City of"},
		{"US", "C", ""},
		{"US", "ca", ""},
		{"XX", "01", ""},
	} {
		if got := RegionName(c.country, c.region); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.country, c.region, got, c.want)
		}
	}
	// RegionName searches the table by halves: it must be sorted, each
	// code once, and every entry found.
	lines := strings.Split(strings.TrimSuffix(regionTable, "\n"), "\n")
	if len(lines) != len(regionLines()) {
		t.Fatalf("%d lines, %d found", len(lines), len(regionLines()))
	}
	for i, l := range lines {
		code, name := l[:4], l[4:]
		if i > 0 && code <= lines[i-1][:4] {
			t.Fatalf("regionTable: %q after %q", code, lines[i-1][:4])
		}
		if got := RegionName(code[:2], code[2:]); got != name {
			t.Errorf("%s: %q, want %q", code, got, name)
		}
	}
}

// FuzzDatabase opens any bytes as a database and looks addresses up in
// it: nothing may read outside the file or panic.
func FuzzDatabase(f *testing.F) {
	f.Add(testgeoip.Build(testgeoip.CityRev1, []testgeoip.Net{{Prefix: pfx("192.0.2.0/24"), Record: testgeoip.City{Country: 225, City: "x"}.Bytes(2)}}), []byte{192, 0, 2, 1})
	f.Add(testgeoip.Build(testgeoip.OrgV6, []testgeoip.Net{{Prefix: pfx("2001:db8::/32"), Record: testgeoip.Name("o")}}), []byte{0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Add(testgeoip.Build(testgeoip.Country, []testgeoip.Net{{Prefix: pfx("1.0.0.0/8"), Country: 3}}), []byte{1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data, key []byte) {
		db, err := New(data)
		if err != nil {
			return
		}
		a, _ := netip.AddrFromSlice(key)
		for _, utf8 := range []bool{false, true} {
			db.UTF8 = utf8
			db.Country(a)
			if r, ok := db.City(a); ok {
				r.RegionName()
			}
			db.Org(a)
		}
	})
}

// A walk that never reaches a leaf (the first node points back at
// itself) ends on pointer 0, which libGeoIP reads as a record as it reads
// any other pointer: (2*record length-1)*segment bytes into the file;
// the countries of a Country edition are then not found.
func TestLoopingTree(t *testing.T) {
	org := testgeoip.Build(testgeoip.Org, []testgeoip.Net{{Prefix: pfx("192.0.2.0/24"), Record: testgeoip.Name("x")}})
	clear(org[:8])
	db := open(t, org)
	at := 7 * int(db.seg)
	if s, ok := db.Org(addr("192.0.2.1")); !ok || s != string(org[at:at+indexNUL(org[at:])]) {
		t.Errorf("org %q %v", s, ok)
	}
	city := testgeoip.Build(testgeoip.CityRev1, []testgeoip.Net{{Prefix: pfx("192.0.2.0/24"), Record: testgeoip.City{Country: 225, Region: "CA"}.Bytes(2)}})
	clear(city[:6])
	db = open(t, city)
	if r, ok := db.City(addr("10.0.0.1")); !ok || r.CountryID != int(city[5*db.seg]) {
		t.Errorf("city %+v %v", r, ok)
	}
	country := testgeoip.Build(testgeoip.Country, []testgeoip.Net{{Prefix: pfx("192.0.2.0/24"), Country: 3}})
	clear(country[:6])
	if _, _, _, ok := open(t, country).Country(addr("192.0.2.1")); ok {
		t.Error("a country from a looping tree")
	}
}

// countryTable has a line of five fields for each of the 256 numbers a
// record's byte can hold, and countryAt reads them back.
func TestCountryTable(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(countryTable, "\n"), "\n")
	if len(lines) != numCountries || len(countryLines()) != numCountries {
		t.Fatalf("%d lines, %d starts found; want %d", len(lines), len(countryLines()), numCountries)
	}
	for id, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 5 {
			t.Fatalf("line %d: %q has %d fields", id, l, len(f))
		}
		if c := countryAt(id); c != (country{f[0], f[1], f[2], f[3], f[4]}) {
			t.Fatalf("countryAt(%d) = %+v, want %q", id, c, f)
		}
	}
	for id, want := range map[int]country{
		0:   {"--", "--", "--", "N/A", "N/A"},
		225: {"US", "USA", "NA", "United States", "United States"},
		255: {"O1", "O1", "--", "Other", "Other"},
	} {
		if c := countryAt(id); c != want {
			t.Errorf("countryAt(%d) = %+v, want %+v", id, c, want)
		}
	}
	if c := countryAt(10); c.nameIn(false) != "Curacao" || c.nameIn(true) != "Cura\u00e7ao" {
		t.Errorf("countryAt(10) names %q, %q", c.nameIn(false), c.nameIn(true))
	}
}
