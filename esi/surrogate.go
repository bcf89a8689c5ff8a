package esi

import (
	"net/http"
	"strings"
)

// surrogateCapability is what the handler announces to the origin in
// surrogate mode (Options.Surrogate), as the Edge Architecture
// specification has surrogates do: the device "mosaic" processes ESI 1.0.
const surrogateCapability = `mosaic="Surrogate/1.0 ESI/1.0"`

// withCapability returns r with surrogateCapability added to its
// Surrogate-Capability header, unless it is there already (a fragment
// request carries its page's).
func withCapability(r *http.Request) *http.Request {
	for _, v := range r.Header.Values("Surrogate-Capability") {
		if strings.Contains(v, surrogateCapability) {
			return r
		}
	}
	r = r.Clone(r.Context())
	r.Header.Add("Surrogate-Capability", surrogateCapability)
	return r
}

// asksForESI reports whether Surrogate-Control header values hold a
// content directive that names ESI/1.0, such as content="ESI/1.0" or
// max-age=60, content="ESI/1.0 ESI-Inline/1.0";mosaic. A directive aimed
// at a named device (";name") counts whatever the name: this handler is
// the surrogate the origin answers through.
func asksForESI(values []string) bool {
	for _, v := range values {
		for _, d := range splitDirectives(v) {
			name, value, _ := strings.Cut(d, "=")
			if !strings.EqualFold(strings.TrimSpace(name), "content") {
				continue
			}
			value = strings.TrimSpace(value)
			if strings.HasPrefix(value, `"`) {
				if end := strings.IndexByte(value[1:], '"'); end >= 0 {
					value = value[1 : 1+end]
				}
			} else {
				value, _, _ = strings.Cut(value, ";")
			}
			for _, c := range strings.Fields(value) {
				if strings.EqualFold(c, "ESI/1.0") {
					return true
				}
			}
		}
	}
	return false
}

// splitDirectives splits a header value at the commas outside quotes.
func splitDirectives(v string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, v[start:i])
				start = i + 1
			}
		}
	}
	return append(out, v[start:])
}
