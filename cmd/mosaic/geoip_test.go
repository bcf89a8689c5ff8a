package main

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testgeoip"
)

const (
	geoipModule = "/usr/lib/nginx/modules/ngx_http_geoip_module.so"
	geoipLoad   = "load_module " + geoipModule + ";\n"
	geoipV4     = "/usr/share/GeoIP/GeoIP.dat"
	geoipV6     = "/usr/share/GeoIP/GeoIPv6.dat"
)

// geoipNeeds skips the test without NGINX, its geoip module (Debian's
// libnginx-mod-http-geoip) or the files named (Debian's geoip-database).
func geoipNeeds(t *testing.T, files ...string) {
	t.Helper()
	nginxPath(t)
	for _, f := range append([]string{geoipModule}, files...) {
		if _, err := os.Stat(f); err != nil {
			t.Skipf("%s is missing (.ci/run installs libnginx-mod-http-geoip and geoip-database)", f)
		}
	}
}

// geoipVars is every variable of the module, "|"-separated.
const geoipVars = "$geoip_country_code|$geoip_country_code3|$geoip_country_name|$geoip_org|" +
	"$geoip_city_continent_code|$geoip_city_country_code|$geoip_city_country_code3|" +
	"$geoip_city_country_name|$geoip_region|$geoip_region_name|$geoip_city|$geoip_postal_code|" +
	"$geoip_latitude|$geoip_longitude|$geoip_dma_code|$geoip_area_code"

// geoipServe starts NGINX and mosaic on the http-level lines given, a
// server that answers every variable of the module after them.
func geoipServe(t *testing.T, lines string) (mport, nport int) {
	t.Helper()
	return startBothMain(t, t.TempDir(), geoipLoad, func(_ string, port int) string {
		return fmt.Sprintf("%s\nserver { listen 127.0.0.1:%d; location / { return 200 \"%s\\n\"; } }", lines, port, geoipVars)
	})
}

// sameGeoIP compares the answers for a client that X-Forwarded-For lines
// (none, one or several) say is behind the test's own address.
func sameGeoIP(t *testing.T, mport, nport int, xff ...string) {
	t.Helper()
	head := "GET / HTTP/1.1\r\nHost: a.test"
	for _, x := range xff {
		head += "\r\nX-Forwarded-For: " + x
	}
	sameAnswer(t, mport, nport, head, "")
}

// geoipAnswer returns the variables that the server on port answers for
// a client behind the test's own address, so that a test knows that the
// answers it compares are not all empty.
func geoipAnswer(t *testing.T, port int, xff string) string {
	t.Helper()
	_, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port),
		"GET / HTTP/1.1\r\nHost: a.test\r\nX-Forwarded-For: "+xff+"\r\nConnection: close\r\n\r\n")
	return body
}

// geoipAddrs are addresses of every kind, and n random ones of each
// family, the IPv6 ones in 2000::/4 where the databases hold networks.
func geoipAddrs(n int) []string {
	addrs := []string{
		"8.8.8.8", "81.2.69.160", "1.1.1.1", "0.0.0.0", "0.0.0.1", "10.1.2.3", "127.0.0.1",
		"192.168.1.1", "224.0.0.1", "255.255.255.254", "255.255.255.255",
		"::ffff:8.8.8.8", "::ffff:81.2.69.160", "::8.8.8.8", "::", "::1", "fe80::1",
		"2001:4860:4860::8888", "2a00:1450:4001:81b::200e", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
		"2002:c000:0204::1", "2001:db8::1", "8.8.8.8:80", "[2001:4860::1]:443", "not-an-address", "",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range n {
		var b [4]byte
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		addrs = append(addrs, netip.AddrFrom4(b).String())
		var c [16]byte
		for i := range c {
			c[i] = byte(rng.IntN(256))
		}
		c[0] = 0x20 | c[0]&0x0f
		addrs = append(addrs, netip.AddrFrom16(c).String())
	}
	return addrs
}

// TestGeoIPCountryAsNGINX compares the country variables for many
// addresses, each behind the trusted test client, with Debian's IPv4
// and IPv6 country databases; and those of the client itself.
func TestGeoIPCountryAsNGINX(t *testing.T) {
	geoipNeeds(t, geoipV4, geoipV6)
	for _, lines := range []string{
		"geoip_country " + geoipV4 + "; geoip_proxy 127.0.0.1;",
		"geoip_country " + geoipV6 + " utf8; geoip_proxy 127.0.0.0/8;",
	} {
		mport, nport := geoipServe(t, lines)
		if got, want := geoipAnswer(t, mport, "8.8.8.8"), "US|USA|United States|"; !strings.HasPrefix(got, want) {
			t.Errorf("%s: 8.8.8.8 gets %q, want %q...", lines, got, want)
		}
		sameGeoIP(t, mport, nport)
		for _, a := range geoipAddrs(150) {
			sameGeoIP(t, mport, nport, a)
		}
	}
}

// TestGeoIPProxyAsNGINX compares the address looked up behind trusted
// proxies, with geoip_proxy_recursive off and on, for lists of several
// addresses and several X-Forwarded-For lines; and without geoip_proxy,
// where X-Forwarded-For is not read.
func TestGeoIPProxyAsNGINX(t *testing.T) {
	geoipNeeds(t, geoipV4)
	lists := [][]string{
		{"8.8.8.8"},
		{"8.8.8.8, 81.2.69.160"},
		{"8.8.8.8,81.2.69.161, 81.2.69.162"},
		{"81.2.69.160, 8.8.8.8"},
		{"1.1.1.1 8.8.8.8, 81.2.69.1"},
		{"junk, 81.2.69.160"},
		{"8.8.8.8, junk"},
		{"8.8.8.8", "81.2.69.160"},
		{"1.1.1.1", "8.8.8.8, 81.2.69.160"},
		{"81.2.69.160", "81.2.69.161"},
		{"::ffff:81.2.69.160"},
		{"8.8.8.8, ::ffff:81.2.69.160"},
		{", 8.8.8.8 ,"},
	}
	for _, lines := range []string{
		"geoip_country " + geoipV4 + ";",
		"geoip_country " + geoipV4 + "; geoip_proxy 127.0.0.1; geoip_proxy 81.2.69.1/24;",
		"geoip_country " + geoipV4 + "; geoip_proxy 127.0.0.1; geoip_proxy 81.2.69.0/24; geoip_proxy_recursive on;",
	} {
		mport, nport := geoipServe(t, lines)
		for _, l := range lists {
			sameGeoIP(t, mport, nport, l...)
		}
	}
}

// The records of the generated city databases: libGeoIP's country
// numbers (225 US, 43 CH, 77 GB, 0 none), regions it names and not.
var geoipCities = []struct {
	net  string
	city testgeoip.City
}{
	{"192.0.2.0/25", testgeoip.City{Country: 225, Region: "CA", City: "San Francisco", PostalCode: "94107",
		Latitude: 37.7697, Longitude: -122.3933, Metro: 807, Area: 415}},
	{"192.0.2.128/25", testgeoip.City{Country: 225, Region: "NY", City: "New York", Latitude: 40.7143, Longitude: -74.006}},
	{"198.51.100.0/24", testgeoip.City{Country: 43, Region: "25", City: "Z\xfcrich", PostalCode: "8001",
		Latitude: 47.3667, Longitude: 8.55}},
	{"203.0.113.0/26", testgeoip.City{Country: 77, Region: "H9", City: "London", Latitude: 51.5142, Longitude: -0.0931}},
	{"203.0.113.64/26", testgeoip.City{Country: 77, Region: "ZZ", Latitude: -0.0001, Longitude: 0.00005}},
	{"203.0.113.128/26", testgeoip.City{Country: 0, Region: "C", Latitude: -89.99995, Longitude: 179.99994}},
	{"2001:db8::/33", testgeoip.City{Country: 225, Region: "TX", City: "Austin", Latitude: 30.2672, Longitude: -97.7431, Metro: 635, Area: 512}},
	{"2001:db8:8000::/33", testgeoip.City{Country: 108, Region: "07", City: "Roma", Latitude: 41.9, Longitude: 12.4833}},
}

var geoipOrgs = []struct{ net, name string }{
	{"192.0.2.0/24", "AS64496 Example Caf\xe9 Networks"},
	{"198.51.100.0/25", "AS64497 Documentation"},
	{"2001:db8::/32", "AS64498 IPv6 Example"},
	{"2001:db8:1::/48", ""},
}

// geoipWrite writes a database of edition ed of the test's networks.
func geoipWrite(t *testing.T, dir string, ed int, org bool) string {
	t.Helper()
	var nets []testgeoip.Net
	if org {
		for _, o := range geoipOrgs {
			nets = append(nets, testgeoip.Net{Prefix: netip.MustParsePrefix(o.net), Record: testgeoip.Name(o.name)})
		}
	} else {
		for _, c := range geoipCities {
			nets = append(nets, testgeoip.Net{Prefix: netip.MustParsePrefix(c.net), Record: c.city.Bytes(ed)})
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("ed%d.dat", ed))
	if err := os.WriteFile(path, testgeoip.Build(ed, nets), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGeoIPCityAndOrgAsNGINX compares every variable with city and
// organization databases of each edition NGINX takes, IPv4 and IPv6,
// written by the test, and NGINX loading the same files.
func TestGeoIPCityAndOrgAsNGINX(t *testing.T) {
	geoipNeeds(t)
	dir := t.TempDir()
	var addrs []string
	for _, c := range geoipCities {
		p := netip.MustParsePrefix(c.net)
		addrs = append(addrs, p.Addr().String(), p.Addr().Next().String())
	}
	addrs = append(addrs, "192.0.2.200", "203.0.113.200", "2001:db8:1::5", "2001:db8:ffff::1",
		"::ffff:198.51.100.7", "10.0.0.1", "2600::1", "")
	for _, c := range []struct {
		city, org int
		utf8      string
	}{
		{testgeoip.CityRev1, testgeoip.Org, ""},
		{testgeoip.CityRev0, testgeoip.ASNum, " utf8"},
		{testgeoip.CityRev1V6, testgeoip.ISPV6, " utf8"},
		{testgeoip.CityRev0V6, testgeoip.DomainV6, ""},
		{testgeoip.CityRev1, testgeoip.ASNumV6, ""},
		{testgeoip.CityRev1V6, testgeoip.ISP, ""},
	} {
		lines := fmt.Sprintf("geoip_city %s%s; geoip_org %s%s; geoip_proxy 127.0.0.1;",
			geoipWrite(t, dir, c.city, false), c.utf8, geoipWrite(t, dir, c.org, true), c.utf8)
		mport, nport := geoipServe(t, lines)
		if got := geoipAnswer(t, mport, "192.0.2.1"); !strings.Contains(got, "|NA|US|USA|United States|CA|California|San Francisco|94107|37.7697|-122.3933|") {
			t.Errorf("%s: 192.0.2.1 gets %q", lines, got)
		}
		for _, a := range addrs {
			sameGeoIP(t, mport, nport, a)
		}
	}
}

// TestGeoIPErrorsAsNGINX compares the errors of bad lines.
func TestGeoIPErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	geoipNeeds(t, geoipV4)
	dir := t.TempDir()
	city := geoipWrite(t, dir, testgeoip.CityRev1, false)
	org := geoipWrite(t, dir, testgeoip.Org, true)
	junk := filepath.Join(dir, "junk.dat")
	writeFile(t, junk, "\xff\xff\xff\x0f\x00")
	zeros := filepath.Join(dir, "zeros.dat")
	writeFile(t, zeros, strings.Repeat("\x00", 10))
	for i, block := range []string{
		"geoip_country /nonexistent/GeoIP.dat;",
		"geoip_country /nonexistent/GeoIP.dat utf-8;",
		"geoip_country " + geoipV4 + " utf-8;",
		"geoip_country " + geoipV4 + ";\ngeoip_country " + geoipV4 + ";",
		"geoip_country " + city + ";",
		"geoip_country " + junk + ";",
		"geoip_country " + zeros + ";",
		"geoip_country /dev/zero;",
		"geoip_city " + geoipV4 + ";",
		"geoip_city " + org + ";",
		"geoip_org " + city + " utf8;",
		"geoip_org " + org + " utf8 x;",
		"geoip_proxy 10.0.0.0/33;",
		"geoip_proxy nowhere;",
		"geoip_proxy_recursive yes;",
		"geoip_proxy_recursive on;\ngeoip_proxy_recursive off;",
		"server { geoip_proxy 127.0.0.1; }",
	} {
		mout, err, want := testBothMain(t, dir, i, geoipLoad, block)
		if want == "" || err == nil || !strings.Contains(mout, want) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
}

// TestGeoIPMapBlocksCountriesAsNGINX runs what real sites write: a map
// of $geoip_country_code that blocks some countries and routes others.
func TestGeoIPMapBlocksCountriesAsNGINX(t *testing.T) {
	geoipNeeds(t, geoipV4)
	mport, nport := startBothMain(t, t.TempDir(), geoipLoad, func(_ string, port int) string {
		return fmt.Sprintf(`geoip_country %s; geoip_proxy 127.0.0.1;
			map $geoip_country_code $blocked { default 0; CN 1; RU 1; "" 1; }
			map $geoip_country_code $site { default world; GB uk; DE eu; FR eu; }
			server { listen 127.0.0.1:%d;
				location / { if ($blocked) { return 403; } return 200 "$site $geoip_country_code\n"; } }`,
			geoipV4, port)
	})
	for _, a := range []string{"8.8.8.8", "81.2.69.160", "1.2.4.8", "77.88.8.8", "10.0.0.1", "2.16.0.1", "5.39.0.1"} {
		sameGeoIP(t, mport, nport, a)
	}
	if got := geoipAnswer(t, mport, "81.2.69.160"); got != "uk GB\n" {
		t.Errorf("81.2.69.160 gets %q", got)
	}
}

// TestGeoIPLoopingTreeAsNGINX: a database whose tree never reaches a
// leaf (its first node points back at itself) opens in libGeoIP, and
// each lookup then answers the record where the record section begins,
// as a walk that fails ends on pointer 0; compared for city and
// organization editions, IPv4 and IPv6.
func TestGeoIPLoopingTreeAsNGINX(t *testing.T) {
	geoipNeeds(t)
	dir := t.TempDir()
	for _, c := range []struct{ city, org, orgLen int }{
		{testgeoip.CityRev1, testgeoip.Org, 4},
		{testgeoip.CityRev0V6, testgeoip.ASNumV6, 3},
	} {
		city, org := geoipWrite(t, dir, c.city, false), geoipWrite(t, dir, c.org, true)
		for path, n := range map[string]int{city: 6, org: 2 * c.orgLen} {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			clear(b[:n])
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mport, nport := geoipServe(t, fmt.Sprintf("geoip_city %s; geoip_org %s; geoip_proxy 127.0.0.1;", city, org))
		if got := geoipAnswer(t, mport, "192.0.2.1"); strings.Trim(got, "|\n") == "" {
			t.Errorf("edition %d: no record for a looping tree: %q", c.city, got)
		}
		for _, a := range []string{"192.0.2.1", "10.0.0.1", "2001:db8::1", ""} {
			sameGeoIP(t, mport, nport, a)
		}
	}
}

// TestGeoIPValueKeptAsNGINX: NGINX keeps a $geoip_* value once read in a
// request, as it keeps its cacheable variables: read in the server's
// rewrite phase, before the location's realip module sets the client's
// address, it is the value the response's fields read afterwards.
func TestGeoIPValueKeptAsNGINX(t *testing.T) {
	geoipNeeds(t, geoipV4)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "f.txt"), "f\n")
	mport, nport := startBothMain(t, dir, geoipLoad, func(_ string, port int) string {
		return fmt.Sprintf(`geoip_country %s;
			server { listen 127.0.0.1:%d; root %s/www;
				set $before $geoip_country_code;
				location / { set_real_ip_from 127.0.0.1; real_ip_header X-Real-IP;
					add_header X-Geo "$before|$geoip_country_code|$geoip_country_name|$remote_addr"; } }`,
			geoipV4, port, dir)
	})
	req := "GET /f.txt HTTP/1.1\r\nHost: a.test\r\nX-Real-IP: 8.8.8.8\r\nConnection: close\r\n\r\n"
	m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
	n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
	if mg, ng := m.Header.Get("X-Geo"), n.Header.Get("X-Geo"); mg != ng {
		t.Errorf("X-Geo: mosaic %q, nginx %q", mg, ng)
	}
}

// TestGeoIPAndBrowserLoggedAsNGINX compares the access log of the geoip
// and browser variables: a $geoip_* value not found is none ("-"), and
// so is a field a city record lacks, while $modern_browser, $ancient_browser
// and $msie always have a value, empty or not (written as nothing), as
// RegisterCached and RegisterChangeable make them.
func TestGeoIPAndBrowserLoggedAsNGINX(t *testing.T) {
	geoipNeeds(t, geoipV4)
	dir := t.TempDir()
	lines := fmt.Sprintf("geoip_country %s; geoip_city %s; geoip_org %s; geoip_proxy 127.0.0.1;", geoipV4,
		geoipWrite(t, dir, testgeoip.CityRev1, false), geoipWrite(t, dir, testgeoip.Org, true))
	addrs := []string{"192.0.2.200", "203.0.113.200", "10.0.0.1", "8.8.8.8", "", "::1"}
	for _, c := range geoipCities {
		addrs = append(addrs, netip.MustParsePrefix(c.net).Addr().String())
	}
	mport, nport := startBothMain(t, dir, geoipLoad, func(who string, port int) string {
		return fmt.Sprintf(`%s
		log_format g '%s|$modern_browser|$ancient_browser|$msie';
		access_log %s/%s/access.log g;
		modern_browser msie 9.0; ancient_browser Links;
		server { listen 127.0.0.1:%d; location / { return 204; } }`,
			lines, geoipVars, dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], port)
	})
	uas := []string{"", "Links (2.1)", "Mozilla/4.0 (compatible; MSIE 8.0)", "Mozilla/5.0 (compatible; MSIE 10.0)"}
	for _, a := range addrs {
		for _, ua := range uas {
			head := "GET / HTTP/1.1\r\nHost: a.test\r\nX-Forwarded-For: " + a
			if ua != "" {
				head += "\r\nUser-Agent: " + ua
			}
			sameAnswer(t, mport, nport, head, "")
		}
	}
	sameAccessLogs(t, dir, len(addrs)*len(uas))
	if got := strings.Join(refusedLines(t, filepath.Join(dir, "mosaic/access.log"), len(addrs)*len(uas)), "\n"); !strings.Contains(got, "|-|") || !strings.Contains(got, "||") {
		t.Errorf("the log has no value without one, or none empty: %q", got)
	}
}
