package header

import (
	"net/http"
	"strings"
)

// An upstream's field name reaches NGINX's client as the upstream wrote
// it ("X_A", "x-custom", "ETag"), but for the fields NGINX's header
// filter writes itself; Go's header maps hold it in canonical case. The
// helpers below list the names a head spells otherwise, line by line
// where it matters, for a writer that sends them so (Speller).

// MaxSpellings bounds a list of spellings. The HTTP/1 writer compares
// each field it sends with the list, and a list is built by comparing
// each name with those listed: unbounded, the work grew with the square
// of the names, which a 64 KB head holds some 10,000 of. A head with more
// recased names (none seen from a real server) sends the rest in
// canonical case.
const MaxSpellings = 32

// Speller is a response writer that sends a field under a spelling of
// its caller's choosing rather than the header map's key: mosaic's
// HTTP/1 writer, and a cache's fill, which stores the list with the
// answer for its hits.
type Speller interface {
	// SpellFields makes the fields of the header whose keys differ
	// from one of names in case alone go out under that name; a key
	// that several of names spell sends its values under them in
	// turn, the last one for the values past them. It must come
	// before the header is sent.
	SpellFields(names []string)
}

// SpellFields hands names to the first Speller under w; no names, the
// usual case, is nothing to hand. Small enough to be inlined, so that
// the usual case costs its caller no call.
func SpellFields(w http.ResponseWriter, names []string) {
	if len(names) != 0 {
		spellFields(w, names)
	}
}

func spellFields(w http.ResponseWriter, names []string) {
	if s, ok := Under[Speller](w); ok {
		s.SpellFields(names)
	}
}

// OwnSpelling reports whether NGINX's header filter writes the field name
// under its own spelling whatever the upstream's
// (ngx_http_header_filter: the fields it keeps apart from the list of
// the others). Last-Modified and an absolute Location stay in the list,
// under the upstream's name; a Location that absolute_redirect completes
// NGINX writes as its own, which is not told apart here.
func OwnSpelling(name string) bool {
	for _, own := range ownNames {
		if len(name) == len(own) && strings.EqualFold(name, own) {
			return true
		}
	}
	return false
}

// OwnKey is OwnSpelling for a name in canonical case, by plain compares:
// strings.EqualFold of a recased name costs some 150 instructions, which
// PHP's "Content-type", on every FastCGI answer, would pay.
func OwnKey(key string) bool {
	for _, own := range ownNames {
		if key == own {
			return true
		}
	}
	return false
}

// ownNames are the fields NGINX's header filter writes itself, in
// canonical case (OwnSpelling); Content-Type first, the one an
// application most often writes otherwise (PHP's "Content-type"), which
// OwnKey then finds at the first compare.
var ownNames = [...]string{"Content-Type", "Server", "Date", "Content-Length",
	"Transfer-Encoding", "Connection", "Keep-Alive"}

// AddSpelling appends name, a field name of a head that the header map
// holds in another case, to names, and returns them: unless NGINX writes
// the field under its own name, names spells it already (the first
// line's spelling is listed) or holds MaxSpellings.
func AddSpelling(names []string, name string) []string {
	if len(names) >= MaxSpellings || OwnSpelling(name) || spelt(names, name) >= 0 {
		return names
	}
	return append(names, name)
}

// FieldNames steps through a head's field names in their order: given where
// the last one ended (0 at the start) it returns the next and where it
// ends, ok false past the last. (A function called, not an iter.Seq: a
// range over a sequence its caller passed makes the loop's body escape,
// an allocation each.)
type FieldNames[S ~string | ~[]byte] func(at int) (name S, end int, ok bool)

// LineSpellings completes names, the spellings AddSpelling listed from a
// head whose field names next steps through: a name the head writes on
// several lines, in one spelling or in several ("X-Dup: 1", "x-dup: 2"),
// is listed once a line, as the line spells it, so that each value goes
// out under its own line's name, as NGINX keeps each line's. names is
// returned as it is when each of them is on one line; the list made
// otherwise holds at most MaxSpellings names.
func LineSpellings[S ~string | ~[]byte](names []string, next FieldNames[S]) []string {
	if len(names) == 0 {
		// Inlined, this costs a head of canonical names no call.
		return names
	}
	return lineSpellings(names, next)
}

func lineSpellings[S ~string | ~[]byte](names []string, next FieldNames[S]) []string {
	n := 0
	for l, at, ok := next(0); ok; l, at, ok = next(at) {
		if spelt(names, l) >= 0 {
			n++
		}
	}
	if n == len(names) {
		return names
	}
	out := make([]string, 0, min(n, MaxSpellings))
	for l, at, ok := next(0); ok && len(out) < cap(out); l, at, ok = next(at) {
		if i := spelt(names, l); i >= 0 {
			if names[i] == string(l) {
				out = append(out, names[i])
			} else {
				out = append(out, string(l))
			}
		}
	}
	return out
}

// spelt returns the index of the name in names that is name in any case,
// or -1. Names are tokens, ASCII: a byte's case is folded by hand, which
// needs no string made of a line's bytes.
func spelt[S ~string | ~[]byte](names []string, name S) int {
	for i, n := range names {
		if len(n) == len(name) && asciiEqualFold(n, name) {
			return i
		}
	}
	return -1
}

func asciiEqualFold[S ~string | ~[]byte](a string, b S) bool {
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
