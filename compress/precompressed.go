package compress

import "net/http"

// Precompressed chooses, per request, the precompressed copies of a file
// (x.js.br, x.js.zst, x.js.gz) that a file server tries in its place, as
// brotli_static, zstd_static and gzip_static do. Everything is decided by
// NewPrecompressed: a request negotiates through a Table and picks a list
// computed in advance, without allocating.
//
// V is how the file server describes one copy (package static's Variant,
// for one): NewPrecompressed makes one per coding, so that this package
// needs no file server's types.
type Precompressed[V any] struct {
	table *Table
	// gate holds the gzip_* checks that gzip_static on applies, as NGINX
	// does (gzip_http_version, gzip_proxied, gzip_disable), and that
	// decide for gzip_static always whether gunzip decodes the copy; nil
	// when gzip_static is off, or always without gunzip.
	gate *GzipOptions
	// answers maps the codings the client accepts, in its order of
	// preference (see rankKey), to the copies to try.
	answers [1 << (2 * numCodings)][]V
	vary    bool
	// onCopies are the copies of the codings served on request ("on")
	// but brotli's, with gzip_vary: found and not served, they still make
	// the answer vary (VaryCopies).
	onCopies []V
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

// NewPrecompressed returns the chooser for the Static modes of opts, or nil
// when all three are off. It reads opts.Prefer (compress_prefer) for the
// server's order, opts.Gzip's checks for gzip_static on, opts.Vary
// (gzip_vary) and opts.Gunzip. variant describes the copy of one coding:
// its file name suffix is e.Extension() and its Content-Encoding
// e.String(); decoded says gunzip decodes it for the client it goes to
// (gzip_static always, to a client without gzip), so the file server must
// send it whole: a range of the gzip bytes cannot be decoded, and NGINX,
// whose gunzip turns ranges off, answers such a request with the whole
// decoded file.
func NewPrecompressed[V any](opts Options, variant func(e Encoding, decoded bool) V) *Precompressed[V] {
	modes := [numCodings + 1]StaticMode{Brotli: opts.Brotli.Static, Zstd: opts.Zstd.Static, Gzip: opts.Gzip.Static}
	var enabled, always []Encoding
	dependsOnClient := false
	for e := Brotli; e <= Gzip; e++ {
		switch modes[e] {
		case StaticOn:
			enabled = append(enabled, e)
			dependsOnClient = true
		case StaticAlways:
			enabled = append(enabled, e)
		}
	}
	if len(enabled) == 0 {
		return nil
	}
	offer := PreferredOffer(opts.Prefer, enabled...)
	for i := 0; i < offer.Len(); i++ {
		if modes[offer.At(i)] == StaticAlways {
			always = append(always, offer.At(i))
		}
	}
	p := &Precompressed[V]{
		table: NewTable(offer),
		// The file served depends on Accept-Encoding unless a single
		// coding is served always; only then does Vary not belong, unless
		// that coding is gzip and gunzip decodes it for some clients (the
		// filter varies such a 200; the copy's 304 must say the same).
		vary: opts.Vary && (dependsOnClient || len(always) > 1 || (opts.Gunzip && modes[Gzip] == StaticAlways)),
	}
	// gzip_static on serves the copy only to a client the gzip_* checks
	// allow; for one served always, the same checks decide whether gunzip
	// decodes it (NGINX's gzip_ok: an HTTP/1.0 client fails
	// gzip_http_version 1.1 even with gzip in Accept-Encoding), so a client
	// they fail must get the copy whole, as one without gzip does.
	if modes[Gzip] == StaticOn || modes[Gzip] == StaticAlways && opts.Gunzip {
		gate := opts.Gzip
		p.gate = &gate
	}
	var byCoding [numCodings + 1]V
	var decodedGzip V
	for _, e := range enabled {
		byCoding[e] = variant(e, false)
		if e == Gzip && modes[e] == StaticAlways && opts.Gunzip {
			decodedGzip = variant(e, true)
		}
		// Debian's ngx_brotli static module (1.0.0~rc-3) sends no Vary
		// to a client it declines, with gzip_vary on as without: only
		// gzip_static's copy marks the plain answer
		// (TestBrotliStaticVaryAsNGINX in cmd/mosaic).
		if modes[e] == StaticOn && opts.Vary && e != Brotli {
			p.onCopies = append(p.onCopies, byCoding[e])
		}
	}
	// Every ordered selection of the offered codings is a possible
	// negotiation outcome: list the copies for each, the client's choices
	// first, then the codings served always, in the server's order.
	var walk func(chosen []Encoding)
	walk = func(chosen []Encoding) {
		var try []V
		for _, e := range chosen {
			try = append(try, byCoding[e])
		}
		for _, e := range always {
			switch {
			case contains(chosen, e):
			case e == Gzip && opts.Gunzip:
				try = append(try, decodedGzip)
			default:
				try = append(try, byCoding[e])
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

func contains(list []Encoding, e Encoding) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// VaryCopies returns the copies whose presence beside a file makes its
// answer vary on Accept-Encoding even when they are not served
// (static.Options.VaryVariants): those of the codings served on request
// (brotli's excepted, see onCopies), when gzip_vary is on, as NGINX's
// gzip_static on marks the response once it has found the copy, before
// it declines for a client that does not accept it.
func (p *Precompressed[V]) VaryCopies() []V {
	if p == nil {
		return nil
	}
	return p.onCopies
}

// Choose returns the copies to try for r, best first (nil when none apply:
// the client accepts none of the codings and none is served always), and
// whether the copy served carries Vary: Accept-Encoding. Its signature is
// that of a file server's variant callback (static.VariantFunc, with V
// static.Variant), so the method value can be passed as it is.
func (p *Precompressed[V]) Choose(r *http.Request) (try []V, vary bool) {
	ranked := p.table.Negotiate(acceptEncoding(r.Header))
	var buf [numCodings]Encoding
	chosen := buf[:0]
	for i := 0; i < ranked.Len(); i++ {
		e := ranked.At(i)
		if e == Gzip && p.gate != nil && !gzipGateAllows(p.gate, nil, r, nil, false) {
			continue
		}
		chosen = append(chosen, e)
	}
	return p.answers[rankKey(chosen)], p.vary
}
