package pcre

import (
	"fmt"
	"strings"
)

// dialect is the engine a tree is written out for.
type dialect uint8

const (
	dialectRE2     dialect = iota // Go's regexp, reading the subject byte by byte as runes 0-255
	dialectRegexp2                // regexp2's default (.NET) syntax, on the same runes
)

// btRune is the rune the backtracking engine reads for byte c: a byte
// above 0x7f is a character of the Private Use Area, which has no case,
// so that a caseless back reference folds ASCII letters only, as PCRE's
// tables do (regexp2 folds Latin-1 letters: (?i)(\xe9)\1 matched
// "\xe9\xc9" until pcre27). Every other construct is written as explicit
// sets of bytes, which byteLit maps the same way.
func btRune(c byte) rune {
	if c < 0x80 {
		return rune(c)
	}
	return 0xE000 + rune(c)
}

// The word characters of \b, written for lookarounds.
const wordClass = `[0-9A-Za-z_]`

type emitter struct {
	d dialect
	b strings.Builder
	// spare is a group number past the pattern's and \K's, for the
	// empty captures of loopBody.
	spare int
	// loops keeps every counted repeat a loop (see copiedRepeat).
	loops bool
}

// emit writes n for dialect d; loops (a client's pattern) writes no
// repeat as copies: regexp2 allocates about 140 bytes a copied code unit
// to compile them, 6.4 MB for the 11 bytes of (){0,3000}x, past what
// a compile in a short slot may take (compileSlotOver). Nor does a
// pattern PCRE2 would compile too large, which NGINX refuses: bounding
// each repeat alone let 40 copies of (?:){0,5000} (481 bytes) allocate
// 295 MB at load until rv-pcre27 (TestCompileCopiesBounded).
func emit(n *node, d dialect, loops bool) string {
	if d == dialectRegexp2 && !loops {
		// Only the backtracking dialect copies repeats.
		loops = compiledSize(n) > maxCompiled
	}
	e := &emitter{d: d, spare: maxCap(n) + 2, loops: loops}
	e.node(n)
	return e.b.String()
}

func (e *emitter) node(n *node) {
	switch n.op {
	case opEmpty:
		e.b.WriteString("(?:)")
	case opSet:
		e.set(&n.set)
	case opConcat:
		for _, s := range n.subs {
			e.node(s)
		}
	case opAlt:
		e.b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				e.b.WriteByte('|')
			}
			e.node(s)
		}
		e.b.WriteByte(')')
	case opRepeat:
		if e.d == dialectRegexp2 && !e.loops && copiedRepeat(n) {
			e.copies(n)
			return
		}
		e.loopBody(n)
		switch {
		case n.min == 0 && n.max == -1:
			e.b.WriteByte('*')
		case n.min == 1 && n.max == -1:
			e.b.WriteByte('+')
		case n.min == 0 && n.max == 1:
			e.b.WriteByte('?')
		case n.max == -1:
			fmt.Fprintf(&e.b, "{%d,}", n.min)
		case n.min == n.max:
			fmt.Fprintf(&e.b, "{%d}", n.min)
		default:
			fmt.Fprintf(&e.b, "{%d,%d}", n.min, n.max)
		}
		switch n.mode {
		case lazy:
			e.b.WriteByte('?')
		case possessive:
			e.b.WriteByte('+') // regexp2 only: the tree needs backtracking
		}
	case opCapture:
		// Unnamed for RE2: names are kept on the side. Numbered for
		// regexp2, where a repeat's copies (copies) hold the same group.
		if e.d == dialectRegexp2 {
			fmt.Fprintf(&e.b, "(?<%d>", n.cap)
		} else {
			e.b.WriteByte('(')
		}
		e.node(n.subs[0])
		e.b.WriteByte(')')
	case opGroup:
		e.b.WriteString("(?:")
		e.node(n.subs[0])
		e.b.WriteByte(')')
	case opAtomic:
		e.b.WriteString("(?>")
		e.node(n.subs[0])
		e.b.WriteByte(')')
	case opLook:
		e.b.WriteString("(?")
		if n.behind {
			e.b.WriteByte('<')
		}
		if n.neg {
			e.b.WriteByte('!')
		} else {
			e.b.WriteByte('=')
		}
		e.node(n.subs[0])
		e.b.WriteByte(')')
	case opBackref:
		if n.fold {
			fmt.Fprintf(&e.b, `(?i:\k<%d>)`, n.cap)
		} else {
			fmt.Fprintf(&e.b, `(?:\k<%d>)`, n.cap)
		}
	case opAssert:
		e.assert(n.assert)
	case opKeep:
		// regexp2 only (\K needs backtracking): an empty group numbered
		// past the pattern's own, the same for every \K.
		fmt.Fprintf(&e.b, "(?<%d>)", n.cap)
	}
}

// loopBody writes the group a repeat of n's item loops over. regexp2
// folds a greedy loop around a possessive loop of one character into
// one possessive loop ((?:a++)* as a*+, (?:a++){2} as a{2,}+), which
// gives back no iteration: (?:a++)*ab did not match "aab". An empty
// capture of a spare group number keeps the two loops apart.
func (e *emitter) loopBody(n *node) {
	e.b.WriteString("(?:")
	e.node(n.subs[0])
	if e.d == dialectRegexp2 && n.mode != lazy && possessiveItem(n.subs[0]) {
		fmt.Fprintf(&e.b, "(?<%d>)", e.spare)
	}
	e.b.WriteByte(')')
}

// possessiveItem reports an atomic group or a possessive repeat, bare or
// in a group of its own.
func possessiveItem(n *node) bool {
	switch n.op {
	case opAtomic:
		return true
	case opRepeat:
		return n.mode == possessive
	case opGroup:
		return possessiveItem(n.subs[0])
	case opConcat:
		return len(n.subs) == 1 && possessiveItem(n.subs[0])
	}
	return false
}

// maxCap is the highest group number in the tree under n.
func maxCap(n *node) int {
	m := 0
	if n.op == opCapture {
		m = n.cap
	}
	for _, s := range n.subs {
		m = max(m, maxCap(s))
	}
	return m
}

// copiedRepeat reports a counted repeat of a group that can match the
// empty string ((a?){2}, (?:x|()){1,3}, ({2,} too): PCRE2 compiles it
// as copies of the group, not as a loop, so no copy is cut short for
// matching empty, where regexp2's loop stops at an empty iteration: ^(?:
// ()|(a)\1){1,3}$ matched "a" in PCRE2 and not in mosaic until pcre27.
// emit asks only within PCRE2's size limit, which bounds the copies.
func copiedRepeat(n *node) bool {
	switch n.subs[0].op {
	case opCapture, opGroup, opAtomic:
	default:
		return false
	}
	counted := n.max > 1 || n.max == -1 && n.min > 1
	return counted && canBeEmpty(n.subs[0])
}

// copies writes n as PCRE2 compiles it: min copies of the group (min-1
// and a loop for an unbounded repeat), then each optional copy nested
// in the one before, all in an atomic group for a possessive repeat.
func (e *emitter) copies(n *node) {
	sub := n.subs[0]
	mark := ""
	if n.mode == lazy {
		mark = "?"
	}
	if n.mode == possessive {
		e.b.WriteString("(?>")
	}
	fixed, optional := n.min, n.max-n.min
	if n.max == -1 {
		fixed, optional = n.min-1, 0
	}
	for i := 0; i < fixed; i++ {
		e.node(sub)
	}
	if n.max == -1 {
		e.loopBody(n)
		e.b.WriteString("+" + mark)
	}
	for i := 0; i < optional; i++ {
		e.b.WriteString("(?:")
		e.node(sub)
	}
	for i := 0; i < optional; i++ {
		e.b.WriteString(")?" + mark)
	}
	if n.mode == possessive {
		e.b.WriteByte(')')
	}
}

func (e *emitter) assert(k assertKind) {
	if e.d == dialectRE2 {
		// A subject ending in "\n" never reaches the RE2 program of a
		// pattern with $, \Z or multiline ^ (see Regexp.endSensitive).
		switch k {
		case assertBegin:
			e.b.WriteString(`\A`)
		case assertBeginLine:
			e.b.WriteString(`(?m:^)`)
		case assertEnd, assertEndText:
			e.b.WriteString(`\z`)
		case assertEndLine:
			e.b.WriteString(`(?m:$)`)
		case assertWord:
			e.b.WriteString(`\b`)
		case assertNotWord:
			e.b.WriteString(`\B`)
		}
		return
	}
	switch k {
	case assertBegin:
		e.b.WriteString(`\A`)
	case assertBeginLine:
		// Not after a newline that ends the subject.
		e.b.WriteString(`(?:\A|(?<=\n)(?!\z))`)
	case assertEnd:
		e.b.WriteString(`(?=\n?\z)`)
	case assertEndText:
		e.b.WriteString(`\z`)
	case assertEndLine:
		e.b.WriteString(`(?=\n|\z)`)
	case assertWord:
		e.b.WriteString(`(?:(?<=` + wordClass + `)(?!` + wordClass + `)|(?<!` + wordClass + `)(?=` + wordClass + `))`)
	case assertNotWord:
		e.b.WriteString(`(?:(?<=` + wordClass + `)(?=` + wordClass + `)|(?<!` + wordClass + `)(?!` + wordClass + `))`)
	}
}

func (e *emitter) byteLit(c byte) {
	switch {
	case c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '/':
		e.b.WriteByte(c)
	case c >= 0x80 && e.d == dialectRegexp2:
		// The backtracking engine reads such a byte as btRune(c). A
		// range from below 0x80 that ends here also covers the runes
		// between, which no subject holds.
		fmt.Fprintf(&e.b, `\u%04X`, btRune(c))
	default:
		fmt.Fprintf(&e.b, `\x%02x`, c)
	}
}

// set writes a byte set as a literal or a class of explicit ranges, so
// that neither engine applies its own idea of case or Unicode classes.
func (e *emitter) set(s *byteSet) {
	switch n := s.count(); n {
	case 0:
		// Go's syntax has no lookahead; an empty class matches nothing.
		if e.d == dialectRE2 {
			e.b.WriteString(`[^\x00-\x{10FFFF}]`)
		} else {
			e.b.WriteString(`(?!)`)
		}
		return
	case 1:
		for c := 0; c < 256; c++ {
			if s.has(byte(c)) {
				e.byteLit(byte(c))
				return
			}
		}
	}
	e.b.WriteByte('[')
	for c := 0; c < 256; {
		if !s.has(byte(c)) {
			c++
			continue
		}
		lo := c
		for c < 256 && s.has(byte(c)) {
			c++
		}
		e.byteLit(byte(lo))
		if c-1 > lo {
			if c-1 > lo+1 {
				e.b.WriteByte('-')
			}
			e.byteLit(byte(c - 1))
		}
	}
	e.b.WriteByte(']')
}
