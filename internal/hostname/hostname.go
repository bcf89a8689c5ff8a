// Package hostname is NGINX's table of host names (its combined hash:
// ngx_hash_add_key with NGX_HASH_WILDCARD_KEY, ngx_hash_find_combined):
// exact names, "*.example.com" and ".example.com", "www.example.*", with
// NGINX's errors for keys it refuses. The map block's hostnames
// (package vmap) and valid_referers (package referer) look names up in
// it.
package hostname

import (
	"fmt"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Table holds names and their values. Add every key before the first
// Find; once built it is read-only, safe for concurrent use.
type Table[V any] struct {
	exact map[string]V
	head  map[string]headEntry[V] // "*.example.com", ".example.com", keyed by "example.com"
	tail  map[string]V            // "www.example.*", keyed by "www.example"
	// exactKeys: every exact name taken, ".example.com"'s included.
	exactKeys map[string]bool
}

type headEntry[V any] struct {
	val V
	dot bool // ".example.com": example.com itself matches too
}

// New returns an empty Table.
func New[V any]() *Table[V] {
	return &Table[V]{exact: map[string]V{}, head: map[string]headEntry[V]{}, tail: map[string]V{}, exactKeys: map[string]bool{}}
}

// Len returns the number of keys added.
func (t *Table[V]) Len() int { return len(t.exact) + len(t.head) + len(t.tail) }

// AddExact adds key as an exact name, compared ignoring ASCII case.
func (t *Table[V]) AddExact(key string, val V) error {
	low := header.LowerASCII(key)
	if t.exactKeys[low] {
		return fmt.Errorf("conflicting parameter %q", key)
	}
	t.exactKeys[low] = true
	t.exact[low] = val
	return nil
}

// AddWildcard adds a key that may be a wildcard: "*.example.com",
// ".example.com", "www.example.*" or an exact name; any other "*", a
// "..", or a NUL is refused, as ngx_hash_add_key does.
func (t *Table[V]) AddWildcard(key string, val V) error {
	invalid := fmt.Errorf("invalid hostname or wildcard %q", key)
	if strings.Count(key, "*") > 1 || strings.Contains(key, "..") || strings.IndexByte(key, 0) >= 0 {
		return invalid
	}
	low := header.LowerASCII(key)
	conflict := fmt.Errorf("conflicting parameter %q", key)
	switch {
	case len(key) > 1 && key[0] == '.':
		name := low[1:]
		if t.exactKeys[name] {
			return conflict
		}
		if _, dup := t.head[name]; dup {
			return conflict
		}
		t.exactKeys[name] = true
		t.head[name] = headEntry[V]{val: val, dot: true}
	case len(key) > 2 && strings.HasPrefix(key, "*."):
		name := low[2:]
		if _, dup := t.head[name]; dup {
			return conflict
		}
		t.head[name] = headEntry[V]{val: val}
	case len(key) > 2 && strings.HasSuffix(key, ".*"):
		name := low[:len(low)-2]
		if _, dup := t.tail[name]; dup {
			return conflict
		}
		t.tail[name] = val
	case strings.Contains(key, "*"):
		return invalid
	default:
		return t.AddExact(key, val)
	}
	return nil
}

// Find looks s up as NGINX's ngx_hash_find_combined does: exact
// (ignoring ASCII case), then the longest "*.suffix" or ".suffix", then
// the longest "prefix.*"; never a wildcard for the empty string. A
// trailing dot is part of the name (a caller that ignores one drops it
// first).
func (t *Table[V]) Find(s string) (V, bool) {
	low := header.LowerASCII(s)
	if v, ok := t.exact[low]; ok {
		return v, true
	}
	if s != "" {
		if v, ok := t.findHead(low); ok {
			return v, true
		}
		if v, ok := t.findTail(low); ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// findHead finds the longest "*.suffix" or ".suffix" key that name lies
// under; ".name" also matches name itself.
func (t *Table[V]) findHead(name string) (V, bool) {
	var zero V
	if len(t.head) == 0 {
		return zero, false
	}
	if e, ok := t.head[name]; ok && e.dot {
		return e.val, true
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '.' {
			continue
		}
		if e, ok := t.head[name[i+1:]]; ok {
			return e.val, true
		}
	}
	return zero, false
}

// findTail finds the longest "prefix.*" key that name starts with,
// followed by a dot.
func (t *Table[V]) findTail(name string) (V, bool) {
	var zero V
	if len(t.tail) == 0 {
		return zero, false
	}
	for i := len(name) - 1; i > 0; i-- {
		if name[i] != '.' {
			continue
		}
		if v, ok := t.tail[name[:i]]; ok {
			return v, true
		}
	}
	return zero, false
}
