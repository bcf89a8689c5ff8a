package main

import (
	"net/url"
	"slices"
	"strings"

	"github.com/mosaic-edge/mosaic/compress"
)

// explain names the documented class a difference falls in (KEPT: by
// design, LEFT: known and not mended; compress/README.md and, for 304s,
// server/README.md), or "". The first that fits names it, so a class
// hides nothing it does not explain.
func explain(r req, l loc, n, m ans) string {
	diff := strings.Split(n.diff(m), ",")
	coding := func() bool {
		for _, f := range diff {
			if !slices.Contains([]string{"Content-Encoding", "Vary", "ETag", "Content-Length", "Accept-Ranges", "body", ""}, f) {
				return false
			}
		}
		return true
	}
	// Another reading picks another coding, or another copy whose ETag a
	// conditional matches or not; what else differs is not its doing.
	// Each side's coding must be one its reading takes: one a reading
	// refuses (a "static always" copy, an origin's own coding) is another
	// class's doing, which the reading would otherwise hide.
	if ae, ok := r.header("Accept-Encoding"); ok && coding() {
		ngx, rfc := readings(ae, l)
		if !slices.Equal(ngx, rfc) && takenBy(m, rfc) && (takenBy(n, ngx) || n.f["Content-Encoding"] == "br" && l.brStatic != "" && nginxBrStatic(ae)) {
			return "KEPT Accept-Encoding read by RFC 9110: "
		}
	}
	// A compressed body that fits the buffers goes out with its length
	// from mosaic; NGINX's is always chunked (or closed, to HTTP/1.0).
	if ce := n.f["Content-Encoding"]; ce != "" && ce == m.f["Content-Encoding"] && n.f["Content-Length"] == "" && m.f["Content-Length"] != "" {
		diff = slices.DeleteFunc(diff, func(f string) bool { return f == "Content-Length" })
		if len(diff) == 0 && n.status == m.status {
			return "KEPT compressed length sent: "
		}
	}
	// A HEAD's or a 304's body is empty whatever its 200's would be: an
	// empty body there tells nothing of why the codings differ.
	if r.method != "HEAD" && n.status != "304" && n.f["body"] == "" && m.f["body"] == "" &&
		n.f["Content-Encoding"] != "" && m.f["Content-Encoding"] == "" && n.status == m.status {
		return "KEPT empty body not compressed: "
	}
	if r.proxied && r.query().Get("ce") == "3" && strings.HasPrefix(n.f["Content-Encoding"], "|") {
		// The origin's empty Content-Encoding: NGINX compresses beside
		// it and sends both lines, mosaic one.
		return "KEPT empty Content-Encoding replaced: "
	}
	only := func(fs ...string) bool {
		for _, f := range diff {
			if !slices.Contains(fs, f) {
				return false
			}
		}
		return true
	}
	// Before HEAD's class: a HEAD's 304 loses the origin's coding as a
	// GET's does.
	if r.proxied && n.status == "304" && r.query().Get("ce") != "" && only("Content-Encoding") {
		return "KEPT 304 without Content-Encoding: "
	}
	if r.method == "HEAD" && n.status == m.status && only("Content-Encoding", "Vary", "ETag", "Content-Length", "Accept-Ranges") {
		return "KEPT HEAD as GET: "
	}
	if _, ok := r.header("Range"); ok && (m.status == "206" || n.f["Content-Encoding"] != "") {
		return "KEPT Range honoured: "
	}
	if n.status == m.status && (n.status == "304" || n.status == "206") && only("Vary") {
		return "KEPT 304 and 206 vary: "
	}
	if !r.proxied && (l.gzipStatic == "always" && l.brStatic != "" || l.brStatic == "always" && l.gzipStatic != "") &&
		only("Content-Encoding", "Vary", "ETag", "Content-Length", "Accept-Ranges") {
		// Two static codings, one of them always: NGINX serves the
		// first module's copy whatever the client says and varies on
		// nothing; mosaic serves what the client accepts first, always
		// last, and varies.
		return "KEPT static always beside another: "
	}
	skipped := l.star && only("Vary", "Content-Encoding", "ETag", "Content-Length", "Accept-Ranges")
	if !r.proxied && skipped && strings.HasSuffix(r.path, ".png") {
		return "KEPT compress_skip_types: "
	}
	if ae, _ := r.header("Accept-Encoding"); !r.proxied && l.brStatic == "on" && nginxBrStatic(ae) &&
		n.f["Content-Encoding"] == "" && m.f["Content-Encoding"] == "gzip" {
		// ngx_brotli's static module marks a request that accepts br as
		// tested for gzip and refused, .br file or not: the gzip filter
		// then leaves a file without a .br alone.
		return "KEPT gzip after brotli_static declined: "
	}
	if r.proxied {
		q := r.query()
		if ct := q.Get("ct"); ct == "6" || ct == "8" {
			return "KEPT type parameters: "
		}
		if ct := q.Get("ct"); (ct == "7" || ct == "9") && skipped {
			return "KEPT compress_skip_types: "
		}
		if va := q.Get("va"); va != "" && va != "1" && only("Vary") {
			return "KEPT Vary beside the origin's: "
		}
	}
	return ""
}

// query is a proxied request's query: what the origin answers.
func (r req) query() url.Values {
	_, q, _ := strings.Cut(r.path, "?")
	v, _ := url.ParseQuery(q)
	return v
}

// readings are the location's codings that ae takes by NGINX's two
// filters, br first (ngx_brotli's filter runs before gzip's and wins
// whenever it accepts, whatever the weights say), and by RFC 9110, best
// first.
func readings(ae string, l loc) (ngx, rfc []compress.Encoding) {
	br := l.br || l.brStatic != ""
	gz := l.gzip || l.gzipStatic != ""
	if br && nginxBr(ae) {
		ngx = append(ngx, compress.Brotli)
	}
	if gz && nginxGzip(ae) {
		ngx = append(ngx, compress.Gzip)
	}
	var offer []compress.Encoding
	if br {
		offer = append(offer, compress.Brotli)
	}
	if gz {
		offer = append(offer, compress.Gzip)
	}
	ranked := compress.Negotiate(ae, compress.NewOffer(offer...))
	for i := range ranked.Len() {
		rfc = append(rfc, ranked.At(i))
	}
	return ngx, rfc
}

// takenBy reports whether a's coding is none or one of taken.
func takenBy(a ans, taken []compress.Encoding) bool {
	switch a.f["Content-Encoding"] {
	case "":
		return true
	case "br":
		return slices.Contains(taken, compress.Brotli)
	case "gzip":
		return slices.Contains(taken, compress.Gzip)
	}
	return false
}

// nginxGzip is NGINX 1.22.1's reading of gzip in Accept-Encoding
// (ngx_http_gzip_ok, ngx_http_gzip_accept_encoding): the first "gzip"
// that follows the start, a comma or a space decides, alone or with a
// q of 0.001 to 1.000 read by its own digits.
func nginxGzip(ae string) bool {
	if len(ae) < 4 {
		return false
	}
	if strings.HasPrefix(ae, "gzip,") {
		return true
	}
	low := strings.ToLower(ae)
	start := 0
	p := -1
	for {
		i := strings.Index(low[start:], "gzip")
		if i < 0 {
			return false
		}
		p = start + i
		if p == 0 || ae[p-1] == ',' || ae[p-1] == ' ' {
			break
		}
		start = p + 4
	}
	rest := ae[p+4:]
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ',':
			return true
		case ' ':
			continue
		case ';':
			return nginxGzipQ(rest)
		default:
			return false
		}
	}
	return true
}

// nginxGzipQ reads what follows "gzip;": blanks, q or Q, "=", and a
// quantity above zero.
func nginxGzipQ(rest string) bool {
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case 'q', 'Q':
			if len(rest) < 2 || rest[0] != '=' {
				return false
			}
			return nginxQuantity(rest[1:]) > 0
		case ' ':
			continue
		default:
			return false
		}
	}
	return true
}

// nginxQuantity is ngx_http_gzip_quantity: 0 or 1, then "." and up to
// three digits, ended by a comma, a space or the value's end; 0 for
// anything else or above 1.
func nginxQuantity(s string) int {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0
	}
	q := int(s[0]-'0') * 100
	s = s[1:]
	if s == "" || s[0] == ',' || s[0] == ' ' {
		return q
	}
	if s[0] != '.' {
		return 0
	}
	s = s[1:]
	n := 0
	for len(s) > 0 {
		c := s[0]
		s = s[1:]
		if c == ',' || c == ' ' {
			break
		}
		if c < '0' || c > '9' {
			return 0
		}
		// NGINX adds each digit as it comes, whatever its place.
		q += int(c - '0')
		n++
	}
	if q > 100 || n > 3 {
		return 0
	}
	return q
}

// nginxBr is ngx_brotli's reading of br: any "br" between the start, a
// comma or a space and a comma, a space, a semicolon or the end, unless
// ";q=0" with up to three zeros follows (blanks allowed around ";", "q"
// and "="; anything else there accepts).
func nginxBr(ae string) bool {
	if len(ae) < 2 {
		return false
	}
	low := strings.ToLower(ae)
	// at returns the byte at i, NUL past the end as the C string's end
	// reads (the header's CR in NGINX's buffer: neither is what the
	// checks look for).
	at := func(i int) byte {
		if i < len(ae) {
			return ae[i]
		}
		return 0
	}
	cur := 0
	for {
		i := strings.Index(low[cur:], "br")
		if i < 0 {
			return false
		}
		p := cur + i
		before := byte(' ')
		if p > 0 {
			before = ae[p-1]
		}
		cur = p + 2
		after := byte(' ')
		if cur < len(ae) {
			after = ae[cur]
		}
		if before != ',' && before != ' ' {
			continue
		}
		if after != ',' && after != ' ' && after != ';' {
			continue
		}
		skip := func() {
			for at(cur) == ' ' {
				cur++
			}
		}
		next := func() byte { c := at(cur); cur++; return c }
		skip()
		if next() != ';' {
			return true
		}
		skip()
		if next() != 'q' {
			return true
		}
		skip()
		if next() != '=' {
			return true
		}
		skip()
		if next() != '0' {
			return true
		}
		if next() != '.' {
			return false
		}
		for range 3 {
			d := next()
			if d < '0' || d > '9' {
				return false
			}
			if d > '0' {
				return true
			}
		}
		return false
	}
}

// nginxBrStatic is ngx_brotli's static module's reading of br: the value
// starts with "br,", or its first "br" stands between the start, a comma
// or a space and the end, a comma, a semicolon or a space; no q is read.
func nginxBrStatic(ae string) bool {
	if len(ae) < 2 {
		return false
	}
	if strings.HasPrefix(ae, "br,") {
		return true
	}
	p := strings.Index(strings.ToLower(ae), "br")
	if p < 0 || p > 0 && ae[p-1] != ',' && ae[p-1] != ' ' {
		return false
	}
	rest := ae[p+2:]
	return rest == "" || rest[0] == ',' || rest[0] == ';' || rest[0] == ' '
}
