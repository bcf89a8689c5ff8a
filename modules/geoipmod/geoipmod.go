// Package geoipmod wires the geoip library to the server as NGINX's
// ngx_http_geoip_module: geoip_country, geoip_city and geoip_org open a
// legacy MaxMind database once, when the configuration loads;
// geoip_proxy and geoip_proxy_recursive name the proxies whose
// X-Forwarded-For is believed; and the $geoip_* variables look the
// client up.
package geoipmod

import (
	"fmt"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/mosaic-edge/mosaic/geoip"
	"github.com/mosaic-edge/mosaic/internal/forwarded"
	"github.com/mosaic-edge/mosaic/internal/inet"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// mainConf is the http level's settings: NGINX's module has no others.
type mainConf struct {
	country, org, city *geoip.DB
	proxies            []netip.Prefix
	recursive          server.Setting[bool]
}

var module = &server.Module{
	Name: "geoip",
	Directives: []server.Directive{
		{Name: "geoip_country", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 2, Set: setDB(
			func(m *mainConf) **geoip.DB { return &m.country }, "GeoIP",
			geoip.Country, geoip.CountryV6)},
		{Name: "geoip_org", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 2, Set: setDB(
			func(m *mainConf) **geoip.DB { return &m.org }, "GeoIP",
			geoip.ISP, geoip.Org, geoip.Domain, geoip.ASNum,
			geoip.ISPV6, geoip.OrgV6, geoip.DomainV6, geoip.ASNumV6)},
		{Name: "geoip_city", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 2, Set: setDB(
			func(m *mainConf) **geoip.DB { return &m.city }, "GeoIP City",
			geoip.CityRev0, geoip.CityRev1, geoip.CityRev0V6, geoip.CityRev1V6)},
		{Name: "geoip_proxy", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: setProxy},
		{Name: "geoip_proxy_recursive", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Main().(*mainConf).recursive)
		}},
	},
	NewMain: func() any { return &mainConf{} },
}

var remoteAddr vars.Getter

func init() {
	remoteAddr, _ = vars.Lookup("remote_addr")
	// NGINX's module defines its variables in every configuration, with
	// or without a database: without one they are not found (empty).
	// NGINX keeps each value once read in a request, though the realip
	// module of a location may change the client's address afterwards.
	country := func(pick func(code, code3, name string) string) vars.Getter {
		return lookup(func(m *mainConf, a netip.Addr) string {
			if m.country == nil {
				return ""
			}
			code, code3, name, _ := m.country.Country(a)
			return pick(code, code3, name)
		})
	}
	vars.RegisterCached("geoip_country_code", country(func(c, _, _ string) string { return c }))
	vars.RegisterCached("geoip_country_code3", country(func(_, c3, _ string) string { return c3 }))
	vars.RegisterCached("geoip_country_name", country(func(_, _, n string) string { return n }))
	vars.RegisterCached("geoip_org", lookup(func(m *mainConf, a netip.Addr) string {
		if m.org == nil {
			return ""
		}
		s, _ := m.org.Org(a)
		return s
	}))
	for name, field := range map[string]func(*geoip.Record) string{
		"geoip_city_continent_code": func(r *geoip.Record) string { return r.ContinentCode },
		"geoip_city_country_code":   func(r *geoip.Record) string { return r.CountryCode },
		"geoip_city_country_code3":  func(r *geoip.Record) string { return r.CountryCode3 },
		"geoip_city_country_name":   func(r *geoip.Record) string { return r.CountryName },
		"geoip_region":              func(r *geoip.Record) string { return r.Region },
		"geoip_region_name":         (*geoip.Record).RegionName,
		"geoip_city":                func(r *geoip.Record) string { return r.City },
		"geoip_postal_code":         func(r *geoip.Record) string { return r.PostalCode },
		"geoip_latitude":            func(r *geoip.Record) string { return degrees(r.Latitude) },
		"geoip_longitude":           func(r *geoip.Record) string { return degrees(r.Longitude) },
		"geoip_dma_code":            func(r *geoip.Record) string { return strconv.Itoa(r.MetroCode) },
		"geoip_area_code":           func(r *geoip.Record) string { return strconv.Itoa(r.AreaCode) },
	} {
		vars.RegisterCached(name, lookup(func(m *mainConf, a netip.Addr) string {
			if m.city == nil {
				return ""
			}
			if r, ok := m.city.City(a); ok {
				return field(r)
			}
			return ""
		}))
	}
	server.Register(module)
}

// lookup makes a variable of f, given the request's configuration and
// the client's address: $remote_addr (as the realip module left it), or
// behind the trusted geoip_proxy addresses the one X-Forwarded-For gives.
// An invalid address is a client without one (a Unix-domain client).
func lookup(f func(m *mainConf, a netip.Addr) string) vars.Getter {
	return func(r *http.Request, st *vars.State) string {
		l := server.CurrentLocation(r)
		if l == nil || l.Server() == nil {
			return ""
		}
		m := server.MainConf[*mainConf](l.Server().Config(), module)
		a, ok := inet.ParseAddr(remoteAddr(r, st))
		if !ok {
			a = netip.Addr{}
		} else {
			a = forwarded.Behind(a, r.Header["X-Forwarded-For"], m.proxies, m.recursive.V)
		}
		return f(m, a)
	}
}

// degrees formats a coordinate as NGINX's "%.4f" (ngx_sprintf): the
// fraction rounded half up on the float's double value.
func degrees(f32 float32) string {
	f := float64(f32)
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	whole := uint64(f)
	frac := uint64((f-float64(whole))*10000 + 0.5)
	if frac == 10000 {
		whole, frac = whole+1, 0
	}
	return fmt.Sprintf("%s%d.%04d", sign, whole, frac)
}

// setDB returns the setter of a database directive: the file is read
// now, and must be one of the editions accepted; kind names the
// directive's databases in NGINX's message for another edition.
func setDB(slot func(*mainConf) **geoip.DB, kind string, accepted ...geoip.Type) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		p := slot(c.Main().(*mainConf))
		if *p != nil {
			return c.Duplicate()
		}
		path := c.Args[0]
		db, err := geoip.Open(path)
		if err != nil {
			// NGINX's only word for a file libGeoIP cannot open or read.
			return c.Errorf("GeoIP_open(%q) failed", path)
		}
		if len(c.Args) == 2 {
			if c.Args[1] != "utf8" {
				return c.Errorf("invalid parameter %q", c.Args[1])
			}
			db.UTF8 = true
		}
		for _, t := range accepted {
			if db.Type() == t {
				*p = db
				return nil
			}
		}
		return c.Errorf("invalid %s database %q type:%d", kind, path, db.Type())
	}
}

func setProxy(c *server.Cmd) error {
	m := c.Main().(*mainConf)
	p, exact, err := inet.ParseNetwork(c.Args[0])
	if err != nil {
		return c.Errorf("invalid network %q", c.Args[0])
	}
	if !exact {
		c.Notice(fmt.Sprintf("low address bits of %s are meaningless", c.Args[0]))
	}
	m.proxies = append(m.proxies, p)
	return nil
}
