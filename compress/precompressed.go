package compress

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
)

// precompressed chooses, per request, which precompressed files
// (brotli_static, zstd_static, gzip_static) the static module tries for a
// location. Everything is decided when the configuration loads: a request
// negotiates through a Table and picks a list computed in advance, without
// allocating.
type precompressed struct {
	table *Table
	// gate holds the gzip_* checks that gzip_static on applies, as NGINX
	// does (gzip_http_version, gzip_proxied, gzip_disable); nil when
	// gzip_static is off or always.
	gate *GzipOptions
	// answers maps the codings the client accepts, in its order of
	// preference (see rankKey), to the variants to try.
	answers [1 << (2 * numCodings)][]static.Variant
	vary    bool
}

// rankKey packs a list of distinct codings into a small index: two bits
// per coding, first coding lowest. Codings are 1..3, so lists of different
// lengths never share a key.
func rankKey(list []Encoding) int {
	k := 0
	for i, e := range list {
		k |= int(e) << (2 * i)
	}
	return k
}

// newPrecompressed returns the chooser for modes (indexed by Encoding), or
// nil when every mode is off. prefer is compress_prefer, gate the gzip
// checks, vary gzip_vary and gunzip gunzip.
func newPrecompressed(modes [numCodings + 1]staticMode, prefer []Encoding, gate GzipOptions, vary, gunzip bool) *precompressed {
	var enabled, always []Encoding
	dependsOnClient := false
	for e := Brotli; e <= Gzip; e++ {
		switch modes[e] {
		case staticOn:
			enabled = append(enabled, e)
			dependsOnClient = true
		case staticAlways:
			enabled = append(enabled, e)
		}
	}
	if len(enabled) == 0 {
		return nil
	}
	offer := PreferredOffer(prefer, enabled...)
	for i := 0; i < offer.Len(); i++ {
		if modes[offer.At(i)] == staticAlways {
			always = append(always, offer.At(i))
		}
	}
	p := &precompressed{
		table: NewTable(offer),
		// The file served depends on Accept-Encoding unless a single
		// coding is served always; only then does Vary not belong, unless
		// that coding is gzip and gunzip decodes it for some clients (the
		// filter varies such a 200; the variant's 304 must say the same).
		vary: vary && (dependsOnClient || len(always) > 1 || (gunzip && modes[Gzip] == staticAlways)),
	}
	if modes[Gzip] == staticOn {
		p.gate = &gate
	}
	// Every ordered selection of the offered codings is a possible
	// negotiation outcome: list the variants for each, the client's
	// choices first, then the codings served always, in the server's order.
	var walk func(chosen []Encoding)
	walk = func(chosen []Encoding) {
		var try []static.Variant
		for _, e := range chosen {
			try = append(try, variantOf(e))
		}
		for _, e := range always {
			if !contains(chosen, e) {
				try = append(try, variantOf(e))
			}
		}
		p.answers[rankKey(chosen)] = try
		for i := 0; i < offer.Len(); i++ {
			if e := offer.At(i); !contains(chosen, e) {
				walk(append(chosen[:len(chosen):len(chosen)], e))
			}
		}
	}
	walk(nil)
	return p
}

func variantOf(e Encoding) static.Variant {
	return static.Variant{Suffix: e.Extension(), Encoding: e.String()}
}

func contains(list []Encoding, e Encoding) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// variants is the static.VariantFunc of a location.
func (p *precompressed) variants(r *http.Request) ([]static.Variant, bool) {
	ranked := p.table.Negotiate(acceptEncoding(r.Header))
	var buf [numCodings]Encoding
	chosen := buf[:0]
	for i := 0; i < ranked.Len(); i++ {
		e := ranked.At(i)
		if e == Gzip && p.gate != nil && !gzipGateAllows(p.gate, r, nil) {
			continue
		}
		chosen = append(chosen, e)
	}
	return p.answers[rankKey(chosen)], p.vary
}

// staticOptions gives the static module what a location's directives say
// about its files, once per location: the precompressed variants it
// serves, and whether the 200s of the others vary on Accept-Encoding, for
// the 304s that this filter passes untouched.
func staticOptions(l *server.Location, so *static.Options) {
	o := locationOptions(l)
	if cfg, err := newConfig(o); err == nil && cfg.varies(true, false) {
		// Whatever their type: see decide.
		so.VaryEncoding = func(string) bool { return true }
	}
	lc := server.LocConf[*locConf](l, module)
	var modes [numCodings + 1]staticMode
	for e := Brotli; e <= Gzip; e++ {
		modes[e] = lc.coding[e].static.V
	}
	if p := newPrecompressed(modes, o.Prefer, o.Gzip, o.Vary, o.Gunzip); p != nil {
		so.Variants = p.variants
	}
}
