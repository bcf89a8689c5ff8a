package sub

import "io"

// Set is a compiled list of search patterns, lower-cased, in the order
// they were given.
type Set struct {
	pats    [][]byte
	from    []int      // each pattern's place in the list given to Compile
	byFirst [256][]int // the patterns starting with a (lower-case) byte, in order
}

// Compile returns the Set of patterns, matched case-insensitively (ASCII
// letters only, as NGINX's ngx_tolower). Empty patterns are left out, as
// NGINX leaves out a pattern whose variables came out empty; nil when none
// is left.
func Compile(patterns []string) *Set {
	s := &Set{}
	for i, p := range patterns {
		if p == "" {
			continue
		}
		b := []byte(p)
		for j, c := range b {
			b[j] = lower(c)
		}
		s.byFirst[b[0]] = append(s.byFirst[b[0]], len(s.pats))
		s.pats = append(s.pats, b)
		s.from = append(s.from, i)
	}
	if len(s.pats) == 0 {
		return nil
	}
	return s
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c | 0x20
	}
	return c
}

// Replacer rewrites a stream: the text written to it goes to the
// underlying writer with the patterns of its Set replaced. It holds back
// only the bytes that may begin a match the next write completes, fewer
// than the longest pattern.
//
// Its results are those of NGINX's sub filter (1.9.4 and later): at each
// position, from the left, the first pattern in the configured order that
// matches there is replaced, and the search goes on after the match, so
// matches never overlap; a pattern that matches a prefix of the rest of
// the stream waits for more text even when a later pattern matches there
// already, and when the stream then ends, everything from that position on
// is written as it is.
type Replacer struct {
	set     *Set
	w       io.Writer
	value   func(i int) []byte // the replacement of pattern i
	once    bool
	applied []bool
	nApp    int
	held    []byte
	out     []byte
	err     error
}

// NewReplacer returns a Replacer writing to w. value(i) is the replacement
// of the pattern at index i of the list given to Compile, asked for at
// each match (the filter evaluates it at the first and keeps it, as NGINX
// does for a response). With once, each pattern is
// replaced at its first match only (sub_filter_once on), and the stream
// passes untouched after every pattern has been.
func NewReplacer(w io.Writer, set *Set, once bool, value func(i int) []byte) *Replacer {
	return &Replacer{set: set, w: w, value: value, once: once,
		applied: make([]bool, len(set.pats))}
}

// Write replaces in p what it can and writes the result; an error is the
// underlying writer's.
func (z *Replacer) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.done() {
		// Every pattern replaced once: the rest passes as it is, uncopied.
		if _, err := z.w.Write(p); err != nil {
			z.err = err
		}
		return len(p), z.err
	}
	buf := p
	if len(z.held) > 0 {
		buf = append(z.held, p...)
		z.held = nil
	}
	z.scan(buf, false)
	return len(p), z.err
}

// Close writes the bytes held back, as they are: the stream ended before
// they could become a match.
func (z *Replacer) Close() error {
	if z.err == nil && len(z.held) > 0 {
		held := z.held
		z.held = nil
		z.scan(held, true)
	}
	return z.err
}

// done reports whether nothing can be replaced any more.
func (z *Replacer) done() bool { return z.once && z.nApp == len(z.set.pats) }

func (z *Replacer) scan(buf []byte, final bool) {
	out := z.out[:0]
	start := 0 // the first byte not yet put out
	p := 0
scan:
	for p < len(buf) && !z.done() {
		matched := -1
		for _, i := range z.set.byFirst[lower(buf[p])] {
			if z.once && z.applied[i] {
				continue
			}
			m := compare(buf[p:], z.set.pats[i])
			if m == mismatch {
				continue
			}
			if m == partial {
				if !final {
					// Held, copied: buf may be the caller's.
					z.held = append(make([]byte, 0, len(buf)-p+len(z.set.pats[i])), buf[p:]...)
					buf = buf[:p]
				}
				break scan
			}
			matched = i
			break
		}
		if matched < 0 {
			p++
			continue
		}
		out = append(out, buf[start:p]...)
		if !z.applied[matched] {
			z.applied[matched] = true
			z.nApp++
		}
		out = append(out, z.value(z.set.from[matched])...)
		p += len(z.set.pats[matched])
		start = p
	}
	out = append(out, buf[start:]...)
	if len(out) > 0 {
		if _, err := z.w.Write(out); err != nil {
			z.err = err
		}
	}
	// Kept for the next write unless one write made it large.
	if cap(out) <= 64<<10 {
		z.out = out
	}
}

const (
	mismatch = iota
	partial  // text ran out, all of it matching
	full
)

// compare tells whether pat (lower-case) matches at the start of text.
func compare(text, pat []byte) int {
	for j, c := range pat {
		if j == len(text) {
			return partial
		}
		if lower(text[j]) != c {
			return mismatch
		}
	}
	return full
}
