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
	"fmt"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// Map is a built table. It is read-only, safe for concurrent use.
type Map[V any] struct {
	exact   map[string]V
	head    map[string]headEntry[V] // "*.example.com", ".example.com", keyed by "example.com"
	tail    map[string]V            // "www.example.*", keyed by "www.example"
	regexes []Regex[V]
	def     V
	hasDef  bool
	// hostnames: keys may be wildcards, and a trailing dot is ignored.
	hostnames bool
}

type headEntry[V any] struct {
	val V
	dot bool // ".example.com": example.com itself matches too
}

// Regex is one "~" or "~*" key with its value.
type Regex[V any] struct {
	Re    *pcre.Regexp
	Value V
}

// Builder collects the lines of a map block, refusing what NGINX refuses.
type Builder[V any] struct {
	m         Map[V]
	exactKeys map[string]bool // every exact name taken, ".example.com"'s included
}

// NewBuilder returns an empty Builder.
func NewBuilder[V any]() *Builder[V] {
	return &Builder[V]{
		m:         Map[V]{exact: map[string]V{}, head: map[string]headEntry[V]{}, tail: map[string]V{}},
		exactKeys: map[string]bool{},
	}
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
		return b.addHost(key, val)
	}
	return b.addExact(key, val)
}

func (b *Builder[V]) addExact(key string, val V) error {
	low := lower(key)
	if b.exactKeys[low] {
		return fmt.Errorf("conflicting parameter %q", key)
	}
	b.exactKeys[low] = true
	b.m.exact[low] = val
	return nil
}

// addHost adds a key under "hostnames": "*.example.com", ".example.com",
// "www.example.*" or an exact name; any other "*", a "..", or a NUL is
// refused, as ngx_hash_add_key does.
func (b *Builder[V]) addHost(key string, val V) error {
	invalid := fmt.Errorf("invalid hostname or wildcard %q", key)
	if strings.Count(key, "*") > 1 || strings.Contains(key, "..") || strings.IndexByte(key, 0) >= 0 {
		return invalid
	}
	low := lower(key)
	conflict := fmt.Errorf("conflicting parameter %q", key)
	switch {
	case len(key) > 1 && key[0] == '.':
		name := low[1:]
		if b.exactKeys[name] {
			return conflict
		}
		if _, dup := b.m.head[name]; dup {
			return conflict
		}
		b.exactKeys[name] = true
		b.m.head[name] = headEntry[V]{val: val, dot: true}
	case len(key) > 2 && strings.HasPrefix(key, "*."):
		name := low[2:]
		if _, dup := b.m.head[name]; dup {
			return conflict
		}
		b.m.head[name] = headEntry[V]{val: val}
	case len(key) > 2 && strings.HasSuffix(key, ".*"):
		name := low[:len(low)-2]
		if _, dup := b.m.tail[name]; dup {
			return conflict
		}
		b.m.tail[name] = val
	case strings.Contains(key, "*"):
		return invalid
	default:
		return b.addExact(key, val)
	}
	return nil
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
	low := lower(s)
	if v, ok := m.exact[low]; ok {
		res.Value, res.Found = v, true
		return res, nil
	}
	if s != "" {
		if v, ok := m.findHead(low); ok {
			res.Value, res.Found = v, true
			return res, nil
		}
		if v, ok := m.findTail(low); ok {
			res.Value, res.Found = v, true
			return res, nil
		}
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

// findHead finds the longest "*.suffix" or ".suffix" key that name lies
// under; ".name" also matches name itself.
func (m *Map[V]) findHead(name string) (V, bool) {
	var zero V
	if len(m.head) == 0 {
		return zero, false
	}
	if e, ok := m.head[name]; ok && e.dot {
		return e.val, true
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '.' {
			continue
		}
		if e, ok := m.head[name[i+1:]]; ok {
			return e.val, true
		}
	}
	return zero, false
}

// findTail finds the longest "prefix.*" key that name starts with,
// followed by a dot.
func (m *Map[V]) findTail(name string) (V, bool) {
	var zero V
	if len(m.tail) == 0 {
		return zero, false
	}
	for i := len(name) - 1; i > 0; i-- {
		if name[i] != '.' {
			continue
		}
		if v, ok := m.tail[name[:i]]; ok {
			return v, true
		}
	}
	return zero, false
}

// lower is strings.ToLower for ASCII letters only, as NGINX's hash keys
// are: other bytes stay as they are.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; c >= 'A' && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
