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

// variantKey is the store key of the variant of primary that the request
// selects under a marker's Vary names. The epoch ties variants to their
// marker; the request values follow, Accept-Encoding normalised and other
// fields with their lines joined as RFC 9110 allows.
func variantKey(primary, epoch string, names []string, r *http.Request) string {
	var b strings.Builder
	b.Grow(len(primary) + len(epoch) + 32)
	b.WriteString(primary)
	b.WriteByte(0)
	b.WriteString(epoch)
	for _, n := range names {
		b.WriteByte(0)
		b.WriteString(n)
		b.WriteByte('=')
		vv := r.Header[n]
		if n == "Accept-Encoding" {
			b.WriteString(normalizeAcceptEncoding(vv))
			continue
		}
		for i, v := range vv {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strings.TrimSpace(v))
		}
	}
	return b.String()
}

// newEpoch returns a fresh random identity for a Vary marker.
func newEpoch() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
