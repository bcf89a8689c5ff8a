package compress

import (
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Offer is the set of codings a server is willing to produce, in its order of
// preference, best first. The zero Offer offers nothing.
type Offer struct {
	list [numCodings]Encoding
	n    uint8
}

// NewOffer returns an Offer of the given codings in the given order.
// Identity, unknown values and repeats are ignored.
func NewOffer(order ...Encoding) Offer {
	var o Offer
	for _, e := range order {
		if e == Identity || e > Gzip || o.Contains(e) {
			continue
		}
		o.list[o.n] = e
		o.n++
	}
	return o
}

// Len returns how many codings are offered.
func (o Offer) Len() int { return int(o.n) }

// At returns the i-th offered coding, 0 being the most preferred.
func (o Offer) At(i int) Encoding { return o.list[i] }

// Contains reports whether e is offered.
func (o Offer) Contains(e Encoding) bool {
	for i := 0; i < int(o.n); i++ {
		if o.list[i] == e {
			return true
		}
	}
	return false
}

// Ranked is the outcome of negotiation: the offered codings that the client
// accepts, best first. It is a small value that never allocates. An empty
// Ranked means the response goes out as identity.
type Ranked struct {
	list [numCodings]Encoding
	n    uint8
}

// Len returns how many codings are acceptable.
func (r Ranked) Len() int { return int(r.n) }

// At returns the i-th acceptable coding, 0 being the best.
func (r Ranked) At(i int) Encoding { return r.list[i] }

// Best returns the best acceptable coding, or Identity when there is none.
func (r Ranked) Best() Encoding {
	if r.n == 0 {
		return Identity
	}
	return r.list[0]
}

// Contains reports whether e is acceptable.
func (r Ranked) Contains(e Encoding) bool {
	for i := 0; i < int(r.n); i++ {
		if r.list[i] == e {
			return true
		}
	}
	return false
}

// String lists the codings as a comma-separated list, for logs and tests.
func (r Ranked) String() string {
	if r.n == 0 {
		return "identity"
	}
	var b strings.Builder
	for i := 0; i < int(r.n); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.list[i].String())
	}
	return b.String()
}

// qUnset marks a coding the header did not name; q-values are kept in
// thousandths, 0..1000.
const qUnset = -1

// Negotiate parses an Accept-Encoding field value as RFC 9110 §12.5.3 defines
// it and ranks the offered codings the client accepts.
//
// Codings compare case-insensitively and x-gzip counts as gzip. A coding
// with q=0 is refused; "*" gives its weight to every coding not named
// otherwise, identity included. A coding ranks by its q-value; codings of
// equal weight keep the offer's order. A coding weighted below identity is
// dropped, because the client prefers no coding to it. Entries that do not
// parse (a bad token, a malformed q-value) are ignored and the rest of the
// header still counts; when a coding is named twice the first entry wins. An
// empty or missing header accepts no coding.
func Negotiate(header string, offer Offer) Ranked {
	var q [numCodings + 1]int
	for i := range q {
		q[i] = qUnset
	}
	star := qUnset
	for rest := header; rest != ""; {
		var entry string
		entry, rest = nextEntry(rest)
		name, weight, ok := parseCoding(entry)
		if !ok {
			continue
		}
		if name == "*" {
			if star == qUnset {
				star = weight
			}
			continue
		}
		if e, known := ParseEncoding(name); known && q[e] == qUnset {
			q[e] = weight
		}
	}
	for i := range q {
		if q[i] == qUnset {
			q[i] = star
		}
	}
	// Identity named by neither its own entry nor "*" stays acceptable
	// (RFC 9110), but below any coding the client accepts at all.
	floor := max(q[Identity], 0)

	var r Ranked
	for i := 0; i < int(offer.n); i++ {
		e := offer.list[i]
		w := q[e]
		if w <= 0 || w < floor {
			continue
		}
		// Insertion keeps the offer's order among equal weights.
		j := int(r.n)
		for j > 0 && q[r.list[j-1]] < w {
			r.list[j] = r.list[j-1]
			j--
		}
		r.list[j] = e
		r.n++
	}
	return r
}

// nextEntry splits the first member off a list such as Accept-Encoding.
func nextEntry(list string) (entry, rest string) {
	if i := strings.IndexByte(list, ','); i >= 0 {
		return list[:i], list[i+1:]
	}
	return list, ""
}

// parseCoding parses one list member: OWS codings *( OWS ";" OWS param ) OWS.
// It returns the coding token and its weight in thousandths (1000 when no q
// parameter is given). Parameters other than q are tolerated and ignored.
func parseCoding(entry string) (name string, weight int, ok bool) {
	s := header.TrimOWS(entry)
	if s == "" {
		return "", 0, false
	}
	end := tokenEnd(s)
	if end == 0 {
		return "", 0, false
	}
	name, s = s[:end], header.TrimOWS(s[end:])
	weight = 1000
	for s != "" {
		if s[0] != ';' {
			return "", 0, false
		}
		s = header.TrimOWS(s[1:])
		end = tokenEnd(s)
		if end == 0 || end == len(s) || s[end] != '=' {
			return "", 0, false
		}
		key := s[:end]
		s = s[end+1:]
		var value string
		value, s, ok = paramValue(s)
		if !ok {
			return "", 0, false
		}
		if header.EqualFoldASCII(key, "q") {
			if weight, ok = parseQValue(value); !ok {
				return "", 0, false
			}
		}
		s = header.TrimOWS(s)
	}
	return name, weight, true
}

// paramValue splits a token or quoted-string off the front of s.
func paramValue(s string) (value, rest string, ok bool) {
	if s != "" && s[0] == '"' {
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return s[1:i], s[i+1:], true
			}
		}
		return "", "", false
	}
	end := tokenEnd(s)
	if end == 0 {
		return "", "", false
	}
	return s[:end], s[end:], true
}

// parseQValue parses qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
// into thousandths.
func parseQValue(v string) (int, bool) {
	if v == "" || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
		return 0, false
	}
	q := int(v[0]-'0') * 1000
	if len(v) == 1 {
		return q, true
	}
	if v[1] != '.' {
		return 0, false
	}
	scale := 100
	for i := 2; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		q += int(c-'0') * scale
		scale /= 10
	}
	if q > 1000 {
		return 0, false
	}
	return q, true
}

// tokenEnd returns the length of the RFC 9110 token at the start of s.
func tokenEnd(s string) int {
	for i := 0; i < len(s); i++ {
		if !isTokenChar(s[i]) {
			return i
		}
	}
	return len(s)
}

func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// acceptEncoding returns the request's Accept-Encoding value, joining
// several field lines into one list as RFC 9110 §5.3 allows.
func acceptEncoding(h http.Header) string {
	return header.Join(h, "Accept-Encoding")
}
