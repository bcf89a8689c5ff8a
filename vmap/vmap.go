// Package vmap is the table of NGINX's map block: it chooses a value for
// a string by exact match, by host name wildcard and by regular expression,
// with NGINX's rules of precedence. It knows nothing of configuration files
// or requests; modules/mapmod turns "map $source $target { ... }" into a
// variable with it.
//
// Lookup order, as ngx_http_map_find: an exact key (ignoring ASCII case);
// with Hostnames, then the longest matching "*.example.com" or
// ".example.com" key, then the longest matching "www.example.*" key; then
// the regular expressions in the order they were added (never for an empty
// string); else the default.
package vmap

import (
	"errors"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/hostname"
	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// Map is a built table. It is read-only, safe for concurrent use.
type Map[V any] struct {
	names   *hostname.Table[V] // exact keys, and with hostnames the wildcards
	regexes []Regex[V]
	def     V
	hasDef  bool
	// hostnames: keys may be wildcards, and a trailing dot is ignored.
	hostnames bool
}

// Regex is one "~" or "~*" key with its value.
type Regex[V any] struct {
	Re    *pcre.Regexp
	Value V
}

// Builder collects the lines of a map block, refusing what NGINX refuses.
type Builder[V any] struct {
	m Map[V]
}

// NewBuilder returns an empty Builder.
func NewBuilder[V any]() *Builder[V] {
	return &Builder[V]{m: Map[V]{names: hostname.New[V]()}}
}

// Hostnames is the block's "hostnames" line: the keys added after it are
// host names, which may carry wildcards, and Find ignores one trailing dot
// of the string it looks up.
func (b *Builder[V]) Hostnames() { b.m.hostnames = true }

// ErrDuplicateDefault is Add's error for a second "default" line.
var ErrDuplicateDefault = errors.New("duplicate default map parameter")

// Add adds one line of the block: key as written ("default", "~regex",
// "~*regex", "\\~literal", a host name with wildcards after Hostnames, or
// a plain string) and its value. The errors are NGINX's words.
func (b *Builder[V]) Add(key string, val V) error {
	if key == "default" {
		if b.m.hasDef {
			return ErrDuplicateDefault
		}
		b.m.def, b.m.hasDef = val, true
		return nil
	}
	if strings.HasPrefix(key, "~") {
		expr, caseless := key[1:], false
		if strings.HasPrefix(expr, "*") {
			expr, caseless = expr[1:], true
		}
		re, err := pcre.Compile(expr, caseless)
		if err != nil {
			return err
		}
		b.m.regexes = append(b.m.regexes, Regex[V]{Re: re, Value: val})
		return nil
	}
	// A backslash lets a key start with "~" or be the word "default".
	key = strings.TrimPrefix(key, `\`)
	if b.m.hostnames {
		return b.m.names.AddWildcard(key, val)
	}
	return b.m.names.AddExact(key, val)
}

// Map returns the table. It shares the Builder's storage: add nothing
// after calling it.
func (b *Builder[V]) Map() *Map[V] {
	m := b.m
	return &m
}

// Result is what Find chose.
type Result[V any] struct {
	Value V
	// Regex is the index in Regexes of the expression that matched, -1
	// for any other key or the default.
	Regex int
	// Captures are the regular expression's: [0] the whole match, [i]
	// group i; nil when no expression matched.
	Captures []string
	// Found is false when no key matched and Value is the default (or the
	// zero V when the block has no default line, NGINX's empty string).
	Found bool
}

// Regexes returns the regular expression keys in order, for callers that
// give their named groups a meaning (NGINX makes them variables).
func (m *Map[V]) Regexes() []Regex[V] { return m.regexes }

// Find returns the value for s. err is set when a regular expression could
// not finish (pcre's time limit); NGINX then gives the default, which
// Result holds.
func (m *Map[V]) Find(s string) (Result[V], error) {
	res := Result[V]{Regex: -1}
	if m.hostnames && strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	if v, ok := m.names.Find(s); ok {
		res.Value, res.Found = v, true
		return res, nil
	}
	if s != "" {
		for i, r := range m.regexes {
			caps, err := r.Re.Match(s)
			if err != nil {
				res.Value = m.def
				return res, err
			}
			if caps != nil {
				res.Value, res.Regex, res.Captures, res.Found = r.Value, i, caps, true
				return res, nil
			}
		}
	}
	res.Value = m.def
	return res, nil
}
