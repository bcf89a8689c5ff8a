package cache

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// codings are the content codings the cache distinguishes in
// Accept-Encoding, in the order of the normalised value.
var codings = [...]string{"br", "deflate", "gzip", "zstd"}

// normalizeAcceptEncoding reduces an Accept-Encoding header to the sorted
// set of known codings the client accepts ("br,gzip,zstd"), so that the
// many spellings browsers send select one of at most sixteen variants. The
// cache also sends this value upstream, so that what the origin chose is
// right for every client that maps to it.
func normalizeAcceptEncoding(values []string) string {
	var accepted, refused [len(codings)]bool
	star := false
	for _, line := range values {
		for item := range strings.SplitSeq(line, ",") {
			name, params, _ := strings.Cut(item, ";")
			name = strings.ToLower(strings.TrimSpace(name))
			zero := qIsZero(params)
			if name == "*" {
				star = !zero
				continue
			}
			if name == "x-gzip" {
				name = "gzip"
			}
			if i := slices.Index(codings[:], name); i >= 0 {
				if zero {
					refused[i] = true
				} else {
					accepted[i] = true
				}
			}
		}
	}
	var b strings.Builder
	for i, c := range codings {
		if refused[i] || !(accepted[i] || star) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	return b.String()
}

// qIsZero reports whether the parameters of an Accept-Encoding item carry
// q=0 (in any of its spellings: 0, 0.0, 0.000).
func qIsZero(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return err == nil && q == 0
	}
	return false
}

// parseVary returns the canonical, sorted, de-duplicated field names of
// the Vary header, and whether it holds "*".
func parseVary(h http.Header) (names []string, star bool) {
	for _, line := range h["Vary"] {
		for f := range strings.SplitSeq(line, ",") {
			f = strings.TrimSpace(f)
			switch f {
			case "":
				continue
			case "*":
				return nil, true
			}
			names = append(names, http.CanonicalHeaderKey(f))
		}
	}
	slices.Sort(names)
	return slices.Compact(names), false
}

// maxVaryLine is NGINX's NGX_HTTP_CACHE_VARY_LEN: the longest Vary line of
// a response it stores.
const maxVaryLine = 128

// varyTooLong reports a Vary line longer than maxVaryLine. NGINX 1.22
// does not store such a response (ngx_http_upstream_process_vary judges
// each line), and neither does the cache: it bounds how many request
// fields, and so how many bytes of them, one response's variant key may
// take. The number of variants of a key is bounded as NGINX bounds it, by
// the store's size: each variant is an entry of its own.
func varyTooLong(h http.Header) bool {
	for _, line := range h["Vary"] {
		if len(line) > maxVaryLine {
			return true
		}
	}
	return false
}

// variantKey is the store key of the variant of primary that the request
// selects under a marker's Vary names (RFC 9111 section 4.1). The epoch
// ties variants to their marker; each field's normalised request value
// follows (see normalizeVaried), and a field the request lacks matches
// only requests that lack it too (RFC 9111 section 4.1).
func variantKey(primary, epoch string, names []string, r *http.Request) string {
	var b strings.Builder
	b.Grow(len(primary) + len(epoch) + 32)
	b.WriteString(primary)
	b.WriteByte(0)
	b.WriteString(epoch)
	for _, n := range names {
		b.WriteByte(0)
		b.WriteString(n)
		vv, present := r.Header[n]
		if !present && n != "Accept-Encoding" {
			// Accept-Encoding is not: its absence and an empty set are
			// both sent upstream as no Accept-Encoding.
			continue
		}
		b.WriteByte('=')
		b.WriteString(normalizeVaried(n, vv))
	}
	return b.String()
}

// normalizeVaried is the form in which a request field's value selects a
// variant, so that spellings with one meaning share an entry:
// Accept-Encoding is the set of codings accepted; Accept, Accept-Charset
// and Accept-Language are their items lower-cased (tokens, media types,
// charsets and language tags are case-insensitive), without whitespace
// and with q=1 left out, in descending q-value order (items of equal
// weight keep their order); other fields are their lines trimmed and
// joined with commas, which RFC 9110 section 5.3 makes equivalent.
func normalizeVaried(name string, vv []string) string {
	switch name {
	case "Accept-Encoding":
		return normalizeAcceptEncoding(vv)
	case "Accept", "Accept-Charset", "Accept-Language":
		return normalizeAcceptList(vv, name == "Accept")
	}
	var b strings.Builder
	for i, v := range vv {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strings.TrimSpace(v))
	}
	return b.String()
}

// normalizeAcceptList canonicalises an Accept-style list (RFC 9110
// section 12.4.2). Media type parameters (mediaType) keep the case of their
// values, which may be significant; in the other lists every item is a
// case-insensitive token.
func normalizeAcceptList(vv []string, mediaType bool) string {
	type item struct {
		text string
		q    int // weight in thousandths
	}
	var items []item
	for _, line := range vv {
		for line != "" {
			var raw string
			raw, line = nextListItem(line)
			if raw == "" {
				continue
			}
			it := item{q: 1000}
			var b strings.Builder
			for i, part := range strings.Split(raw, ";") {
				part = strings.TrimSpace(part)
				k, v, hasValue := strings.Cut(part, "=")
				k = strings.ToLower(strings.TrimSpace(k))
				v = strings.TrimSpace(v)
				if i > 0 && k == "q" && hasValue {
					it.q = parseQ(v)
					continue
				}
				if i > 0 {
					b.WriteByte(';')
				}
				b.WriteString(k)
				if hasValue {
					b.WriteByte('=')
					if !mediaType {
						v = strings.ToLower(v)
					}
					b.WriteString(v)
				}
			}
			it.text = b.String()
			items = append(items, it)
		}
	}
	slices.SortStableFunc(items, func(a, b item) int { return b.q - a.q })
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(it.text)
		if it.q != 1000 {
			b.WriteString(";q=")
			b.WriteString(strconv.FormatFloat(float64(it.q)/1000, 'f', -1, 64))
		}
	}
	return b.String()
}

// parseQ reads a qvalue in thousandths; one that does not parse counts as
// the default weight, 1, as the item is then taken at face value.
func parseQ(v string) int {
	q, err := strconv.ParseFloat(v, 64)
	if err != nil || q < 0 || q > 1 {
		return 1000
	}
	return int(q*1000 + 0.5)
}

// newEpoch returns a fresh random identity for a Vary marker.
func newEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
