package pcre

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
)

// The parser reads PCRE2 syntax, as NGINX compiles it (no UTF mode, so a
// pattern and a subject are strings of bytes; the default "C" character
// tables, so case folding and \d \s \w are ASCII), into a tree that emit.go
// writes out for Go's regexp or for regexp2. Every character class is
// resolved here to a set of bytes, which is what makes the two engines
// agree with PCRE on bytes above 0x7f, on \s (which includes VT) and on
// case folding (ASCII letters only).

type op uint8

const (
	opEmpty   op = iota
	opSet        // one byte from set
	opConcat     // subs in order
	opAlt        // subs, first that matches wins
	opRepeat     // subs[0] min..max times (max -1: unbounded)
	opCapture    // group cap (1-based)
	opGroup      // non-capturing group (kept only to scope quantifiers)
	opAtomic     // (?>...)
	opLook       // lookahead or lookbehind, maybe negative
	opBackref    // \N
	opAssert     // zero-width assertions below
	opKeep       // \K: the reported match starts here (group cap holds where)
)

type assertKind uint8

const (
	assertBegin     assertKind = iota // ^ without multiline, \A, \G
	assertBeginLine                   // ^ with multiline
	assertEnd                         // $ without multiline, \Z: end or before a final \n
	assertEndLine                     // $ with multiline
	assertEndText                     // \z
	assertWord                        // \b
	assertNotWord                     // \B
)

type repMode uint8

const (
	greedy repMode = iota
	lazy
	possessive
)

type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) addRange(lo, hi int) {
	for c := lo; c <= hi; c++ {
		s.add(byte(c))
	}
}
func (s *byteSet) union(o *byteSet) {
	for i := range s {
		s[i] |= o[i]
	}
}
func (s *byteSet) invert() {
	for i := range s {
		s[i] = ^s[i]
	}
}
func (s *byteSet) count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

// fold adds the other case of every ASCII letter, as PCRE's default tables do.
func (s *byteSet) fold() {
	for c := 'A'; c <= 'Z'; c++ {
		if s.has(byte(c)) || s.has(byte(c+32)) {
			s.add(byte(c))
			s.add(byte(c + 32))
		}
	}
}

type node struct {
	op     op
	set    byteSet
	subs   []*node
	min    int
	max    int
	mode   repMode
	cap    int // opCapture, opBackref
	behind bool
	neg    bool
	assert assertKind
	fold   bool // opBackref: caseless
	// inside marks an opBackref within the group it names ((a\1)),
	// which a lookbehind cannot measure.
	inside bool
	// units is, where set, what PCRE2 compiles the node to, in code
	// units, where the tree spells it otherwise (compiledSize): a
	// character type (\d, \W, \h; \pL 3) is one opcode, not a class of
	// 33; \R one, not an atomic group.
	units int
}

// flags are the inline options that PCRE lets a pattern change.
type flags struct {
	caseless, multiline, dotall, extended, extendedMore, noAutoCapture, ungreedy bool
}

// syntaxError is a compile error with the offset where PCRE would report it.
type syntaxError struct {
	msg string
	off int
}

func (e *syntaxError) Error() string { return e.msg }

type parser struct {
	src     string
	pos     int
	ncap    int
	names   map[string]int
	capName []string // index: group number
	// refs, numbered and named in the pattern's order, are checked once
	// all groups are known (PCRE allows references to later groups).
	refs []namedRef
	// lookbehinds are checked for a fixed length once back references
	// are resolved; groups holds each capture node by number.
	lookbehinds []namedRef
	groups      []*node
	// open are the captures being parsed, innermost last; widths holds
	// each group's fixed width once measured (groupWidth).
	open           []*node
	widths         []measured
	needsBacktrack bool // lookaround, backreference, atomic, possessive, \K
	endSensitive   bool // $, \Z or multiline ^: PCRE treats a final \n specially
	// keeps are the \K nodes; lookDepth counts the lookarounds open, in
	// which PCRE2 10.42 refuses \K: keepInLook is where the first such
	// \K ends, or 0.
	keeps      []*node
	lookDepth  int
	keepInLook int
}

// namedRef is a back reference (name "" for a numbered one) or a
// lookbehind, with the offset of its error.
type namedRef struct {
	n    *node
	name string
	off  int
}

// checkRef fails a back reference to no group where PCRE2 points: at a
// name, or at the last character of a number.
func (p *parser) checkRef(n *node) {
	if n.cap > 0 && n.cap <= p.ncap {
		return
	}
	for _, r := range p.refs {
		if r.n == n {
			p.fail(r.off, "reference to non-existent subpattern")
		}
	}
}

const maxRepeat = 65535

func (p *parser) fail(off int, format string, args ...any) {
	panic(&syntaxError{fmt.Sprintf(format, args...), off})
}

// parse returns the tree of src, or a *syntaxError.
func parse(src string, caseless bool) (n *node, p *parser, err error) {
	p = &parser{src: src, names: map[string]int{}, capName: []string{""}, groups: []*node{nil}}
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*syntaxError)
			if !ok {
				panic(r)
			}
			n, err = nil, se
		}
	}()
	n = p.alternation(flags{caseless: caseless}, 0)
	if p.pos < len(p.src) {
		// Only an unmatched ")" stops the top level early.
		p.fail(p.pos, "unmatched closing parenthesis")
	}
	for _, r := range p.refs {
		if r.name != "" {
			r.n.cap = p.names[r.name] // 0: no such group
		}
	}
	// PCRE2 checks lookbehinds before it compiles, where it finds the
	// references to no group, in the pattern's order.
	for _, lb := range p.lookbehinds {
		p.checkLookbehind(lb.n, lb.off)
	}
	// Then it compiles, failing at the first of a reference to no
	// group and a \K in a lookaround: (a)\2(?=\K) points at the 2
	// (mosaic failed at the \K until rv-pcre27).
	for _, r := range p.refs {
		if p.keepInLook == 0 || r.off < p.keepInLook {
			p.checkRef(r.n)
		}
	}
	if p.keepInLook > 0 {
		p.fail(len(src), "\\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK)")
	}
	for _, k := range p.keeps {
		// A capture of its own past the pattern's, one for every \K:
		// the last one passed on the match's path holds the start.
		k.cap = p.ncap + 1
	}
	return n, p, nil
}

// alternation parses branches up to ")" or the end; f may change inside
// (an inline option carries on into later branches of the same group).
func (p *parser) alternation(f flags, depth int) *node {
	if depth > 250 {
		p.fail(p.pos, "parentheses are too deeply nested")
	}
	var alts []*node
	for {
		br := p.branch(&f, depth)
		alts = append(alts, br)
		if p.pos < len(p.src) && p.src[p.pos] == '|' {
			p.pos++
			continue
		}
		break
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &node{op: opAlt, subs: alts}
}

// skipIgnored skips what PCRE2 drops before it reads a quantifier:
// with x, spaces and # comments; and always (?#...) comments, \E and
// \Q\E, so that a(?#c)+ is a+ and a+\E? is a+?.
func (p *parser) skipIgnored(f *flags) {
	for {
		p.skipExtended(f)
		rest := p.src[p.pos:]
		switch {
		case strings.HasPrefix(rest, `(?#`):
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				p.fail(len(p.src), "missing ) after (?# comment")
			}
			p.pos += end + 1
		case strings.HasPrefix(rest, `\E`):
			p.pos += 2
		case strings.HasPrefix(rest, `\Q\E`):
			p.pos += 4
		default:
			return
		}
	}
}

// skipExtended skips x-mode's spaces and comments: its spaces are
// Unicode's Pattern_White_Space within a byte, NEL (0x85) among them.
func (p *parser) skipExtended(f *flags) {
	if !f.extended {
		return
	}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x85:
			p.pos++
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		default:
			return
		}
	}
}

// branch parses a sequence of quantified atoms.
func (p *parser) branch(f *flags, depth int) *node {
	cat := &node{op: opConcat}
	for {
		p.skipExtended(f)
		if p.pos >= len(p.src) {
			break
		}
		c := p.src[p.pos]
		if c == '|' || c == ')' {
			break
		}
		atom, repeatable := p.atom(f, depth)
		if atom == nil {
			continue // an option setting, a comment, \E
		}
		p.skipIgnored(f)
		if p.pos < len(p.src) {
			atom = p.quantifier(f, atom, repeatable)
		}
		cat.subs = append(cat.subs, atom)
	}
	switch len(cat.subs) {
	case 0:
		return &node{op: opEmpty}
	case 1:
		return cat.subs[0]
	}
	return cat
}

// quantifier applies a following *, +, ?, {n,m} (with ? or + after it).
func (p *parser) quantifier(f *flags, atom *node, repeatable bool) *node {
	min, max, ok := p.readQuantifier()
	if !ok {
		return atom
	}
	if !repeatable {
		// PCRE2 points at the quantifier's last character.
		p.fail(p.pos-1, "quantifier does not follow a repeatable item")
	}
	mode := greedy
	if f.ungreedy {
		mode = lazy
	}
	p.skipIgnored(f)
	if p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '?':
			p.pos++
			if mode == lazy {
				mode = greedy
			} else {
				mode = lazy
			}
		case '+':
			p.pos++
			mode = possessive
			p.needsBacktrack = true
		}
	}
	n := &node{op: opRepeat, subs: []*node{atom}, min: min, max: max, mode: mode}
	p.skipIgnored(f)
	if last, again := p.quantifierAt(); again {
		p.fail(last, "quantifier does not follow a repeatable item")
	}
	return n
}

// quantifierAt reports a quantifier at p.pos, and the offset of its last
// character, where PCRE2 points when it follows nothing.
func (p *parser) quantifierAt() (last int, ok bool) {
	save := p.pos
	defer func() { p.pos = save }()
	_, _, ok = p.readQuantifier()
	return p.pos - 1, ok
}

// readQuantifier reads *, +, ? or a well-formed {n}, {n,}, {n,m}; a "{"
// that starts none of these is a literal, as in PCRE2 10.42.
func (p *parser) readQuantifier() (min, max int, ok bool) {
	if p.pos >= len(p.src) {
		return 0, 0, false
	}
	switch p.src[p.pos] {
	case '*':
		p.pos++
		return 0, -1, true
	case '+':
		p.pos++
		return 1, -1, true
	case '?':
		p.pos++
		return 0, 1, true
	case '{':
	default:
		return 0, 0, false
	}
	i := p.pos + 1
	readNum := func() (int, bool) {
		j := i
		for i < len(p.src) && p.src[i] >= '0' && p.src[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
		v, err := strconv.Atoi(p.src[j:i])
		if err != nil || v > maxRepeat {
			p.fail(i, "number too big in {} quantifier")
		}
		return v, true
	}
	min, ok = readNum()
	if !ok || i >= len(p.src) {
		return 0, 0, false
	}
	max = min
	if p.src[i] == ',' {
		i++
		max = -1
		if v, ok := readNum(); ok {
			max = v
		}
	}
	if i >= len(p.src) || p.src[i] != '}' {
		return 0, 0, false
	}
	if max >= 0 && max < min {
		p.fail(i, "numbers out of order in {} quantifier")
	}
	p.pos = i + 1
	return min, max, true
}

func lit(b byte, fold bool) *node {
	n := &node{op: opSet}
	n.set.add(b)
	if fold {
		n.set.fold()
	}
	return n
}

func (p *parser) assert(k assertKind) *node {
	if k == assertEnd || k == assertBeginLine {
		p.endSensitive = true
	}
	return &node{op: opAssert, assert: k}
}

// atom parses one item; repeatable says whether a quantifier may follow.
func (p *parser) atom(f *flags, depth int) (*node, bool) {
	c := p.src[p.pos]
	switch c {
	case '(':
		return p.group(f, depth)
	case '[':
		// PCRE's spelling of the start and end of a word.
		for _, w := range []struct {
			s      string
			behind bool
		}{{"[[:<:]]", false}, {"[[:>:]]", true}} {
			if strings.HasPrefix(p.src[p.pos:], w.s) {
				p.pos += len(w.s)
				p.needsBacktrack = true
				word := &node{op: opSet, set: wordSet}
				look := &node{op: opLook, behind: w.behind, subs: []*node{word}}
				return &node{op: opConcat, subs: []*node{p.assert(assertWord), look}}, false
			}
		}
		return p.class(f), true
	case '.':
		p.pos++
		n := &node{op: opSet, units: 1} // OP_ANY or OP_ALLANY
		n.set.addRange(0, 255)
		if !f.dotall {
			n.set[0] &^= 1 << '\n'
		}
		return n, true
	case '^':
		p.pos++
		if f.multiline {
			return p.assert(assertBeginLine), false
		}
		return p.assert(assertBegin), false
	case '$':
		p.pos++
		if f.multiline {
			return p.assert(assertEndLine), false
		}
		return p.assert(assertEnd), false
	case '\\':
		return p.escape(f)
	case '*', '+', '?':
		p.fail(p.pos, "quantifier does not follow a repeatable item")
	case '{':
		if last, ok := p.quantifierAt(); ok {
			p.fail(last, "quantifier does not follow a repeatable item")
		}
	}
	p.pos++
	return lit(c, f.caseless), true
}

// escape parses a backslash sequence outside a class.
func (p *parser) escape(f *flags) (*node, bool) {
	start := p.pos
	p.pos++
	if p.pos >= len(p.src) {
		p.fail(p.pos, `\ at end of pattern`)
	}
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'A', 'G':
		return p.assert(assertBegin), false
	case 'z':
		return p.assert(assertEndText), false
	case 'Z':
		return p.assert(assertEnd), false
	case 'b':
		return p.assert(assertWord), false
	case 'B':
		return p.assert(assertNotWord), false
	case 'Q':
		end := strings.Index(p.src[p.pos:], `\E`)
		var quoted string
		if end < 0 {
			quoted, p.pos = p.src[p.pos:], len(p.src)
		} else {
			quoted, p.pos = p.src[p.pos:p.pos+end], p.pos+end+2
		}
		if quoted == "" {
			return nil, false
		}
		cat := &node{op: opConcat}
		for i := 0; i < len(quoted); i++ {
			cat.subs = append(cat.subs, lit(quoted[i], f.caseless))
		}
		if len(cat.subs) == 1 {
			return cat.subs[0], true
		}
		// A quantifier after \Q...\E applies to the last character only.
		last := cat.subs[len(cat.subs)-1]
		p.skipIgnored(f)
		if p.pos < len(p.src) {
			cat.subs[len(cat.subs)-1] = p.quantifier(f, last, true)
		}
		return cat, false
	case 'E':
		return nil, false
	case 'R':
		// \R is atomic in PCRE: (?>\r\n|\n|\v|\f|\r|\x85).
		p.needsBacktrack = true
		crlf := &node{op: opConcat, subs: []*node{lit('\r', false), lit('\n', false)}}
		one := &node{op: opSet}
		for _, b := range []byte{'\n', '\v', '\f', '\r', 0x85} {
			one.set.add(b)
		}
		return &node{op: opAtomic, subs: []*node{{op: opAlt, subs: []*node{crlf, one}}}, units: 1}, true
	case 'C':
		// One code unit: without UTF mode, any byte, a newline too.
		n := &node{op: opSet, units: 1} // OP_ALLANY
		n.set.addRange(0, 255)
		return n, true
	case 'K':
		p.needsBacktrack = true
		if p.lookDepth > 0 && p.keepInLook == 0 {
			p.keepInLook = p.pos
		}
		n := &node{op: opKeep, units: 1} // OP_SET_SOM
		p.keeps = append(p.keeps, n)
		return n, false
	case 'X':
		p.fail(p.pos, `\%c is not supported`, c)
	case 'g':
		return p.backrefG(f), true
	case 'k':
		return p.backrefK(f), true
	case 'N':
		p.failNamedChar()
		n := &node{op: opSet, units: 1} // OP_ANY
		n.set.addRange(0, 255)
		n.set[0] &^= 1 << '\n'
		return n, true
	}
	if c >= '1' && c <= '9' {
		// A decimal number is a back reference when it is below 10, starts
		// with 8 or 9, or there are that many groups before it; otherwise
		// up to three octal digits.
		j := p.pos - 1
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		num, err := strconv.Atoi(p.src[p.pos-1 : j])
		if err == nil && (num < 10 || c >= '8' || num <= p.ncap) {
			p.pos = j
			return p.backref(f, num), true
		}
		p.pos--
		return lit(p.octal(3), f.caseless), true
	}
	if set, ok := p.classEscape(c); ok {
		n := &node{op: opSet, set: set, units: 1}
		if c == 'p' || c == 'P' {
			n.units = 3 // OP_PROP and its two operands
		}
		// Caseless matching leaves \p and \P alone in PCRE2 10.42
		// (\p{Lu} matches capitals only), as its documentation says.
		if f.caseless && c != 'p' && c != 'P' {
			n.set.fold()
		}
		return n, true
	}
	p.pos = start + 1
	b := p.charEscape()
	return lit(b, f.caseless), true
}

// failNamedChar refuses, p.pos after \N, a brace that starts no
// quantifier (\N{2} is two bytes other than a newline): a character's
// name or code, which PCRE2 takes only in UTF mode, worded as it words
// them, in a class or not.
func (p *parser) failNamedChar() {
	if p.pos >= len(p.src) || p.src[p.pos] != '{' {
		return
	}
	brace := p.pos
	defer func() {
		// PCRE2 points at the brace of \N{2,1} too.
		if r := recover(); r != nil {
			if se, ok := r.(*syntaxError); ok {
				se.off = brace
			}
			panic(r)
		}
	}()
	if _, ok := p.quantifierAt(); ok {
		return
	}
	if strings.HasPrefix(p.src[p.pos+1:], "U+") {
		p.fail(p.pos, `\N{U+dddd} is supported only in Unicode (UTF) mode`)
	}
	p.fail(p.pos, `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u`)
}

// backref is a reference to group num, read up to p.pos.
func (p *parser) backref(f *flags, num int) *node {
	if num == 0 {
		p.fail(p.pos, "reference to non-existent subpattern")
	}
	if num > maxRepeat {
		p.fail(p.pos, "subpattern number is too big")
	}
	p.needsBacktrack = true
	n := &node{op: opBackref, cap: num, fold: f.caseless, inside: p.isOpen(num)}
	p.refs = append(p.refs, namedRef{n, "", p.pos - 1})
	return n
}

// namedBackref is a reference to the group named at off.
func (p *parser) namedBackref(f *flags, name string, off int) *node {
	p.needsBacktrack = true
	// A name not yet defined is a later group's, which is not open.
	c, ok := p.names[name]
	n := &node{op: opBackref, fold: f.caseless, inside: ok && p.isOpen(c)}
	p.refs = append(p.refs, namedRef{n, name, off})
	return n
}

// gError is PCRE2's complaint about a \g it cannot read.
const gError = `\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number`

// backrefG reads \gN, \g{N}, \g{-N}, \g{+N}, \g{name}; \g<...> is a
// subroutine call.
func (p *parser) backrefG(f *flags) *node {
	if p.pos >= len(p.src) {
		p.fail(p.pos, gError)
	}
	var ref string
	brace := -1
	switch p.src[p.pos] {
	case '{':
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			p.fail(p.pos, gError)
		}
		brace = p.pos
		ref = p.src[p.pos+1 : p.pos+end]
		p.pos += end + 1
	case '<', '\'':
		p.fail(p.pos, "recursion and subroutine calls are not supported")
	default:
		j := p.pos
		if p.src[j] == '-' || p.src[j] == '+' {
			j++
		}
		digits := j
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		if j == digits {
			p.fail(p.pos, gError)
		}
		ref = p.src[p.pos:j]
		p.pos = j
	}
	if ref == "" {
		p.fail(p.pos, gError)
	}
	if num, err := strconv.Atoi(ref); err == nil {
		if ref[0] == '-' || ref[0] == '+' {
			// Relative to the groups opened so far; PCRE2 points at the
			// brace, or past an unbraced number.
			at := p.pos
			if brace >= 0 {
				at = brace
			}
			if num == 0 {
				p.fail(at, "a relative value of zero is not allowed")
			}
			if num < 0 {
				num += p.ncap + 1
			} else {
				num += p.ncap
			}
			if num <= 0 {
				p.fail(at, "reference to non-existent subpattern")
			}
		}
		return p.backref(f, num)
	}
	p.checkName(ref, brace+1)
	return p.namedBackref(f, ref, brace+1)
}

// backrefK reads \k<name>, \k'name', \k{name}.
func (p *parser) backrefK(f *flags) *node {
	if p.pos >= len(p.src) {
		p.fail(p.pos, `\k is not followed by a braced, angle-bracketed, or quoted name`)
	}
	var close byte
	switch p.src[p.pos] {
	case '<':
		close = '>'
	case '\'':
		close = '\''
	case '{':
		close = '}'
	default:
		p.fail(p.pos, `\k is not followed by a braced, angle-bracketed, or quoted name`)
	}
	end := strings.IndexByte(p.src[p.pos+1:], close)
	if end < 0 {
		p.fail(len(p.src), "syntax error in subpattern name (missing terminator?)")
	}
	name := p.src[p.pos+1 : p.pos+1+end]
	p.checkName(name, p.pos+1)
	p.pos += end + 2
	return p.namedBackref(f, name, p.pos-end-1)
}

func (p *parser) checkName(name string, off int) {
	if name == "" {
		p.fail(off, "subpattern name expected")
	}
	if len(name) > 32 {
		p.fail(off, "subpattern name is too long (maximum 32 code units)")
	}
	if name[0] >= '0' && name[0] <= '9' {
		p.fail(off, "subpattern name must start with a non-digit")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			p.fail(off+i, "syntax error in subpattern name (missing terminator?)")
		}
	}
}

// octal reads up to n octal digits at p.pos.
func (p *parser) octal(n int) byte {
	v := 0
	for i := 0; i < n && p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '7'; i++ {
		v = v*8 + int(p.src[p.pos]-'0')
		p.pos++
	}
	if v > 255 {
		p.fail(p.pos, "octal value is greater than \\377 in 8-bit non-UTF-8 mode")
	}
	return byte(v)
}

// charEscape reads an escape that stands for one byte, p.pos at the
// character after the backslash.
func (p *parser) charEscape() byte {
	c := p.src[p.pos]
	p.pos++
	switch c {
	case 'a':
		return 7
	case 'e':
		return 27
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case '0':
		return p.octal(2)
	case 'o':
		if p.pos >= len(p.src) || p.src[p.pos] != '{' {
			// At the character after \o, or at the o that ends the pattern.
			p.fail(min(p.pos, len(p.src)-1), `missing opening brace after \o`)
		}
		return p.bracedCode(8, `non-octal character in \o{} (closing brace missing?)`)
	case 'x':
		if p.pos < len(p.src) && p.src[p.pos] == '{' {
			return p.bracedCode(16, `non-hex character in \x{} (closing brace missing?)`)
		}
		v := 0
		for i := 0; i < 2 && p.pos < len(p.src) && isHex(p.src[p.pos]); i++ {
			v = v*16 + hexVal(p.src[p.pos])
			p.pos++
		}
		return byte(v)
	case 'c':
		if p.pos >= len(p.src) {
			p.fail(p.pos, `\c at end of pattern`)
		}
		x := p.src[p.pos]
		p.pos++
		if x < 32 || x > 126 {
			p.fail(p.pos-1, `\c must be followed by a printable ASCII character`)
		}
		if x >= 'a' && x <= 'z' {
			x -= 32
		}
		return x ^ 0x40
	case 'F', 'L', 'l', 'U', 'u':
		p.fail(p.pos, `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u`)
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		// PCRE2 points at the letter.
		p.fail(p.pos-1, "unrecognized character follows \\")
	}
	return c // an escaped non-alphanumeric stands for itself
}

// bracedCode reads the digits of \x{..} (base 16) or \o{..} (8), p.pos
// at the brace, failing with notDigit where PCRE2 does: at the first
// character that is no digit nor the closing brace, or at the last one
// of a pattern that ends first.
func (p *parser) bracedCode(base int, notDigit string) byte {
	digit := isHex
	if base == 8 {
		digit = func(c byte) bool { return c >= '0' && c <= '7' }
	}
	i := p.pos + 1
	for i < len(p.src) && digit(p.src[i]) {
		i++
	}
	switch {
	case i == p.pos+1 && (i == len(p.src) || p.src[i] == '}'):
		p.fail(i, `digits missing in \x{} or \o{} or \N{U+}`)
	case i == len(p.src):
		p.fail(i-1, "%s", notDigit)
	case p.src[i] != '}':
		p.fail(i, "%s", notDigit)
	}
	v, err := strconv.ParseUint(p.src[p.pos+1:i], base, 64)
	if err != nil || v > 255 {
		p.fail(i, `character code point value in \x{} or \o{} is too large`)
	}
	p.pos = i + 1
	return byte(v)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c <= '9':
		return int(c - '0')
	case c >= 'a':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

var (
	digitSet, spaceSet, wordSet, hspaceSet, vspaceSet byteSet
	posixSets                                         = map[string]byteSet{}
)

func init() {
	digitSet.addRange('0', '9')
	for _, b := range []byte{'\t', '\n', '\v', '\f', '\r', ' '} {
		spaceSet.add(b)
	}
	wordSet.addRange('0', '9')
	wordSet.addRange('A', 'Z')
	wordSet.addRange('a', 'z')
	wordSet.add('_')
	for _, b := range []byte{'\t', ' ', 0xa0} {
		hspaceSet.add(b)
	}
	for _, b := range []byte{'\n', '\v', '\f', '\r', 0x85} {
		vspaceSet.add(b)
	}
	mk := func(name string, pred func(c byte) bool) {
		var s byteSet
		for c := 0; c < 128; c++ {
			if pred(byte(c)) {
				s.add(byte(c))
			}
		}
		posixSets[name] = s
	}
	isAlpha := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isDigit := func(c byte) bool { return c >= '0' && c <= '9' }
	isPunct := func(c byte) bool { return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c) }
	mk("alpha", isAlpha)
	mk("digit", isDigit)
	mk("alnum", func(c byte) bool { return isAlpha(c) || isDigit(c) })
	mk("ascii", func(c byte) bool { return true })
	mk("blank", func(c byte) bool { return c == ' ' || c == '\t' })
	mk("cntrl", func(c byte) bool { return c < 32 || c == 127 })
	mk("graph", func(c byte) bool { return c > 32 && c < 127 })
	mk("print", func(c byte) bool { return c >= 32 && c < 127 })
	mk("punct", isPunct)
	mk("lower", func(c byte) bool { return c >= 'a' && c <= 'z' })
	mk("upper", func(c byte) bool { return c >= 'A' && c <= 'Z' })
	mk("space", func(c byte) bool { return spaceSet.has(c) })
	mk("word", func(c byte) bool { return wordSet.has(c) })
	mk("xdigit", func(c byte) bool { return isHex(c) })
}

// classEscape returns the set of \d \D \s \S \w \W \h \H \v \V \p \P, with
// p.pos after the letter.
func (p *parser) classEscape(c byte) (byteSet, bool) {
	var s byteSet
	switch c {
	case 'd', 'D':
		s = digitSet
	case 's', 'S':
		s = spaceSet
	case 'w', 'W':
		s = wordSet
	case 'h', 'H':
		s = hspaceSet
	case 'v', 'V':
		s = vspaceSet
	case 'p', 'P':
		s = p.property()
	default:
		return s, false
	}
	if c >= 'A' && c <= 'Z' {
		s.invert()
	}
	return s, true
}

// property reads the name of \p{..}, \pL: the bytes are taken as the code
// points U+0000 to U+00FF, as PCRE does without UTF mode.
func (p *parser) property() byteSet {
	var s byteSet
	if p.pos >= len(p.src) {
		p.fail(p.pos, `malformed \P or \p sequence`)
	}
	var name string
	if p.src[p.pos] == '{' {
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			p.fail(len(p.src), `malformed \P or \p sequence`)
		}
		name = p.src[p.pos+1 : p.pos+end]
		p.pos += end + 1
	} else {
		name = p.src[p.pos : p.pos+1]
		if c := name[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			p.fail(p.pos+1, `malformed \P or \p sequence`)
		}
		p.pos++
	}
	neg := strings.HasPrefix(name, "^")
	name = strings.TrimPrefix(name, "^")
	var pred func(r rune) bool
	switch name {
	case "Any":
		pred = func(rune) bool { return true }
	case "L&", "LC":
		pred = func(r rune) bool { return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt) }
	case "Xan":
		pred = func(r rune) bool { return unicode.In(r, unicode.L, unicode.N) }
	case "Xsp", "Xps":
		pred = func(r rune) bool { return unicode.In(r, unicode.Z) || r >= 9 && r <= 13 }
	case "Xwd":
		pred = func(r rune) bool { return unicode.In(r, unicode.L, unicode.N) || r == '_' }
	default:
		t, ok := unicode.Categories[name]
		if !ok {
			t, ok = unicode.Scripts[name]
		}
		if !ok {
			p.fail(p.pos, "unknown property after \\P or \\p")
		}
		pred = func(r rune) bool { return unicode.Is(t, r) }
	}
	for c := 0; c < 256; c++ {
		if pred(rune(c)) != neg {
			s.add(byte(c))
		}
	}
	return s
}

// class parses [...] into one set.
func (p *parser) class(f *flags) *node {
	p.pos++ // [
	if p.pos < len(p.src) && (p.src[p.pos] == ':' || p.src[p.pos] == '.' || p.src[p.pos] == '=') {
		// PCRE2 points at the "[" and names [.x.] and [=x=] as it does in
		// a class.
		if name, ok := p.posixAt(p.pos - 1); ok && name[0] != ':' {
			p.fail(p.pos-1, "POSIX collating elements are not supported")
		} else if ok {
			p.fail(p.pos-1, "POSIX named classes are supported only within a class")
		}
	}
	// props holds what \p and \P add, which caseless matching leaves
	// alone (see escape).
	var set, props byteSet
	// PCRE2 skips \E, \Q\E and, with xx, spaces and tabs both before and
	// after a leading ^: [\Q\E^a] is negated, and [\E]] holds "]".
	neg := false
lead:
	for p.pos < len(p.src) {
		rest := p.src[p.pos:]
		switch {
		case strings.HasPrefix(rest, `\E`):
			p.pos += 2
		case strings.HasPrefix(rest, `\Q\E`):
			p.pos += 4
		case f.extendedMore && (rest[0] == ' ' || rest[0] == '\t'):
			p.pos++
		case rest[0] == '^' && !neg:
			neg = true
			p.pos++
		default:
			break lead
		}
	}
	first, quoted := true, false
	// The state of a range, carried as PCRE2 carries it across \Q, \E
	// and the spaces xx skips ([a\E-z] and [a-\Qz\E] are a to z): start
	// is the last literal, which a "-" may make the low end of a range,
	// or -1 after anything else; lo is that low end once its "-" is read,
	// or -1.
	start, lo := -1, -1
	literal := func(b int) {
		if lo < 0 {
			set.add(byte(b))
			start = b
			return
		}
		if b < lo {
			// PCRE2 points at the last byte of the range's end.
			p.fail(p.pos-1, "range out of order in character class")
		}
		set.addRange(lo, b)
		lo = -1
	}
	for {
		if p.pos >= len(p.src) {
			p.fail(len(p.src), "missing terminating ] for character class")
		}
		c := p.src[p.pos]
		if quoted {
			if strings.HasPrefix(p.src[p.pos:], `\E`) {
				quoted = false
				p.pos += 2
				continue
			}
			p.pos++
			first = false
			literal(int(c))
			continue
		}
		if f.extendedMore && (c == ' ' || c == '\t') {
			p.pos++
			continue
		}
		if c == ']' && !first {
			p.pos++
			break
		}
		first = false
		if c == '[' {
			if name, ok := p.posixAt(p.pos); ok {
				if lo >= 0 {
					p.fail(p.pos+1, "invalid range in character class")
				}
				s, neg := p.posix(name, f.caseless)
				if neg {
					s.invert()
				}
				if p.rangeFollows() {
					p.fail(p.pos, "invalid range in character class")
				}
				set.union(&s)
				start = -1
				continue
			}
		}
		if c == '-' && start >= 0 {
			// A "-" before "]" is a literal; the end of the class adds it.
			p.pos++
			lo, start = start, -1
			continue
		}
		if c == '\\' && p.pos+1 == len(p.src) {
			p.fail(len(p.src), `\ at end of pattern`)
		}
		if c == '\\' {
			e := p.src[p.pos+1]
			switch e {
			case 'Q':
				p.pos += 2
				quoted = true
				continue
			case 'E':
				p.pos += 2
				continue
			case 'b':
				p.pos += 2
				literal(8)
				continue
			case 'g':
				// \g names a group outside a class only: PCRE2 reads it
				// as "g" in one.
				p.pos += 2
				literal('g')
				continue
			case 'B', 'R', 'X':
				// PCRE2 points at the escape's letter.
				p.fail(p.pos+1, "escape sequence is invalid in character class")
			}
			if lo >= 0 && strings.IndexByte("dDsSwWhHvVpPNKkCAzZG", e) >= 0 {
				// Only a character can end a range; PCRE2 says so before
				// reading \p's braces, and before it refuses the escapes
				// a class cannot hold but \B, \R and \X.
				p.fail(p.pos+2, "invalid range in character class")
			}
			switch e {
			case 'N':
				p.pos += 2
				p.failNamedChar()
				p.fail(p.pos, `\N is not supported in a class`)
			case 'K', 'k', 'C', 'A', 'z', 'Z', 'G':
				p.fail(p.pos+1, "escape sequence is invalid in character class")
			}
			p.pos += 2
			if s, ok := p.classEscape(e); ok {
				if p.rangeFollows() {
					p.fail(p.pos, "invalid range in character class")
				}
				if e == 'p' || e == 'P' {
					props.union(&s)
				} else {
					set.union(&s)
				}
				start = -1
				continue
			}
			var b byte
			if e >= '1' && e <= '9' {
				// No back references in a class: octal digits, or the
				// character itself for 8 and 9.
				p.pos--
				if e >= '8' {
					p.pos++
					b = e
				} else {
					b = p.octal(3)
				}
			} else {
				p.pos--
				b = p.charEscape()
			}
			literal(int(b))
			continue
		}
		p.pos++
		literal(int(c))
	}
	if lo >= 0 {
		set.add('-')
	}
	if f.caseless {
		set.fold()
	}
	set.union(&props)
	if neg {
		set.invert()
	}
	return &node{op: opSet, set: set}
}

// rangeFollows reports a "-" that makes a range: not one before "]".
func (p *parser) rangeFollows() bool {
	return p.pos+1 < len(p.src) && p.src[p.pos] == '-' && p.src[p.pos+1] != ']'
}

// posixAt recognises [:name:] (or [.x.], [=x=], which PCRE refuses) at i.
func (p *parser) posixAt(i int) (string, bool) {
	if i+1 >= len(p.src) {
		return "", false
	}
	d := p.src[i+1]
	if d != ':' && d != '.' && d != '=' {
		return "", false
	}
	// As PCRE2 scans: \] and \\ are skipped, "[" ends the scan only
	// before the delimiter, so [.z\h.] is a collating element.
	for j := i + 2; j+1 < len(p.src); j++ {
		switch c := p.src[j]; {
		case c == '\\' && (p.src[j+1] == ']' || p.src[j+1] == '\\'):
			j++
		case c == '[' && p.src[j+1] == d || c == ']':
			return "", false
		case c == d && p.src[j+1] == ']':
			return p.src[i+1 : j+1], true
		}
	}
	return "", false
}

// posix consumes [:name:] and returns its set. Caseless, PCRE2 reads
// [:lower:] and [:upper:] as [:alpha:] and folds no POSIX class: so
// (?i)[[:^lower:]] is [:^alpha:], where folding the set of everything but
// a-z would give every byte.
func (p *parser) posix(name string, caseless bool) (byteSet, bool) {
	if name[0] != ':' {
		p.fail(p.pos, "POSIX collating elements are not supported")
	}
	n := name[1 : len(name)-1]
	neg := strings.HasPrefix(n, "^")
	n = strings.TrimPrefix(n, "^")
	s, ok := posixSets[n]
	if caseless && (n == "lower" || n == "upper") {
		s = posixSets["alpha"]
	}
	if !ok {
		// PCRE2 points at the name, after "[:" and any "^".
		p.fail(p.pos+len(name)-len(n), "unknown POSIX class name")
	}
	p.pos += len(name) + 2
	return s, neg
}

// group parses what starts with "(".
func (p *parser) group(f *flags, depth int) (*node, bool) {
	open := p.pos
	p.pos++
	if p.pos < len(p.src) && p.src[p.pos] == '*' {
		p.fail(p.pos, "(*VERB) items and (*alpha: assertions are not supported")
	}
	if strings.HasPrefix(p.src[p.pos:], "?*") || strings.HasPrefix(p.src[p.pos:], "?<*") {
		p.fail(p.pos+1, "non-atomic assertions (?* and (?<* are not supported")
	}
	if p.pos >= len(p.src) || p.src[p.pos] != '?' {
		if f.noAutoCapture {
			return p.body(f, depth, &node{op: opGroup}), true
		}
		return p.capture(f, depth, ""), true
	}
	p.pos++
	if p.pos >= len(p.src) {
		p.fail(p.pos, "missing closing parenthesis")
	}
	c := p.src[p.pos]
	switch c {
	case ':':
		p.pos++
		return p.body(f, depth, &node{op: opGroup}), true
	case '>':
		p.pos++
		p.needsBacktrack = true
		return p.body(f, depth, &node{op: opAtomic}), true
	case '=', '!':
		p.pos++
		p.needsBacktrack = true
		return p.body(f, depth, &node{op: opLook, neg: c == '!'}), true
	case '#':
		end := strings.IndexByte(p.src[p.pos:], ')')
		if end < 0 {
			p.fail(len(p.src), "missing ) after (?# comment")
		}
		p.pos += end + 1
		return nil, false
	case '|':
		p.fail(p.pos, "branch reset groups (?|...) are not supported")
	case '(':
		p.fail(p.pos, "conditional groups (?(...)...) are not supported")
	case 'R', '&', '+', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if c != '-' || p.pos+1 < len(p.src) && p.src[p.pos+1] >= '0' && p.src[p.pos+1] <= '9' {
			p.fail(p.pos, "recursion and subroutine calls are not supported")
		}
	case 'C':
		p.fail(p.pos, "callouts are not supported")
	case 'P':
		if p.pos+1 < len(p.src) {
			switch p.src[p.pos+1] {
			case '<':
				p.pos += 2
				return p.capture(f, depth, p.groupName('>')), true
			case '=':
				p.pos += 2
				off := p.pos
				name := p.groupName(')')
				return p.namedBackref(f, name, off), true
			case '>':
				p.fail(p.pos, "recursion and subroutine calls are not supported")
			}
		}
		if p.pos+1 >= len(p.src) {
			p.fail(len(p.src), "missing closing parenthesis")
		}
		p.fail(p.pos+1, "unrecognized character after (?P")
	case '<':
		if p.pos+1 < len(p.src) && (p.src[p.pos+1] == '=' || p.src[p.pos+1] == '!') {
			neg := p.src[p.pos+1] == '!'
			p.pos += 2
			p.needsBacktrack = true
			n := p.body(f, depth, &node{op: opLook, behind: true, neg: neg})
			p.lookbehinds = append(p.lookbehinds, namedRef{n: n, off: open})
			return n, true
		}
		p.pos++
		return p.capture(f, depth, p.groupName('>')), true
	case '\'':
		p.pos++
		return p.capture(f, depth, p.groupName('\'')), true
	}
	// Option settings: (?imnsxUJ-imnsxUJ) or (?^...), alone or opening a group.
	nf := *f
	on, hyphen := true, true
	if c == '^' {
		// (?^) unsets imnsx (not U); nothing is left to take back.
		hyphen = false
		nf.caseless, nf.multiline, nf.dotall, nf.extended, nf.extendedMore, nf.noAutoCapture = false, false, false, false, false, false
		p.pos++
	}
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '-':
			if !hyphen {
				p.fail(p.pos-1, "invalid hyphen in option setting")
			}
			on, hyphen = false, false
		case 'i':
			nf.caseless = on
		case 'm':
			nf.multiline = on
		case 's':
			nf.dotall = on
		case 'n':
			nf.noAutoCapture = on
		case 'U':
			nf.ungreedy = on
		case 'x':
			if p.pos < len(p.src) && p.src[p.pos] == 'x' {
				p.pos++
				nf.extendedMore = on
			} else if !on {
				nf.extendedMore = false
			}
			nf.extended = on
		case 'J':
			p.fail(p.pos, "duplicate group names (?J) are not supported")
		case ')':
			*f = nf
			return nil, false
		case ':':
			return p.body(&nf, depth, &node{op: opGroup}), true
		default:
			p.fail(p.pos-1, "unrecognized character after (? or (?-")
		}
	}
	p.fail(len(p.src), "missing closing parenthesis")
	return nil, false
}

func (p *parser) groupName(close byte) string {
	end := strings.IndexByte(p.src[p.pos:], close)
	if end < 0 {
		p.fail(len(p.src), "syntax error in subpattern name (missing terminator?)")
	}
	name := p.src[p.pos : p.pos+end]
	p.checkName(name, p.pos)
	p.pos += end + 1
	return name
}

func (p *parser) capture(f *flags, depth int, name string) *node {
	p.ncap++
	if p.ncap > maxRepeat {
		p.fail(p.pos, "too many capturing groups")
	}
	if name != "" {
		if _, dup := p.names[name]; dup {
			p.fail(p.pos, "two named subpatterns have the same name (PCRE2_DUPNAMES not set)")
		}
		p.names[name] = p.ncap
	}
	p.capName = append(p.capName, name)
	n := &node{op: opCapture, cap: p.ncap}
	p.groups = append(p.groups, n)
	p.open = append(p.open, n)
	defer func() { p.open = p.open[:len(p.open)-1] }()
	return p.body(f, depth, n)
}

// isOpen reports whether group num is being parsed: a reference to it
// now lies within it.
func (p *parser) isOpen(num int) bool {
	for _, g := range p.open {
		if g.cap == num {
			return true
		}
	}
	return false
}

// body parses a group's alternatives up to ")" into n. Options set inside
// end with the group.
func (p *parser) body(f *flags, depth int, n *node) *node {
	if n.op == opLook {
		p.lookDepth++
		defer func() { p.lookDepth-- }()
	}
	inner := p.alternation(*f, depth+1)
	if p.pos >= len(p.src) || p.src[p.pos] != ')' {
		p.fail(len(p.src), "missing closing parenthesis")
	}
	p.pos++
	n.subs = []*node{inner}
	return n
}

// checkLookbehind enforces PCRE's rule: each top-level branch of a
// lookbehind matches strings of one fixed length.
func (p *parser) checkLookbehind(n *node, open int) {
	body := n.subs[0]
	branches := []*node{body}
	if body.op == opAlt {
		branches = body.subs
	}
	for _, b := range branches {
		w, ok := p.fixedWidth(b, 0)
		if !ok {
			p.fail(open, "lookbehind assertion is not fixed length")
		}
		if w > maxLookbehind {
			p.fail(open, "lookbehind assertion is too long")
		}
	}
}

// maxLookbehind is PCRE2 10.42's LOOKBEHIND_MAX: a branch of a
// lookbehind longer than that many characters is refused. fixedWidth
// saturates just past it, so that nested repeats cannot overflow.
const maxLookbehind = 65535

func (p *parser) fixedWidth(n *node, depth int) (int, bool) {
	if depth > 1000 {
		// A chain of groups each referring to the next, too long to
		// follow: PCRE2 gives up on such a lookbehind too.
		return 0, false
	}
	fixedWidth := func(n *node) (int, bool) { return p.fixedWidth(n, depth+1) }
	switch n.op {
	case opEmpty, opAssert, opLook, opKeep:
		return 0, true
	case opSet:
		return 1, true
	case opConcat:
		t := 0
		for _, s := range n.subs {
			w, ok := fixedWidth(s)
			if !ok {
				return 0, false
			}
			t = min(t+w, maxLookbehind+1)
		}
		return t, true
	case opAlt:
		w0 := -1
		for _, s := range n.subs {
			w, ok := fixedWidth(s)
			if !ok || w0 >= 0 && w != w0 {
				return 0, false
			}
			w0 = w
		}
		return w0, true
	case opRepeat:
		// The item first, as PCRE2 reads it: a reference to no group
		// repeated a varying count fails as such ((?<=\1?) points at the
		// 1; mosaic said "not fixed length" until rv-pcre27).
		w, ok := fixedWidth(n.subs[0])
		if n.min != n.max {
			return 0, false
		}
		if w > 0 && n.min > maxLookbehind/w {
			return maxLookbehind + 1, ok
		}
		return w * n.min, ok
	case opCapture:
		return p.groupWidth(n, depth)
	case opGroup, opAtomic:
		return fixedWidth(n.subs[0])
	case opBackref:
		// PCRE takes a reference to a group of fixed length, and finds
		// one to no group here, before the other references.
		p.checkRef(n)
		if n.inside {
			// A reference inside the group it names: (a(?<=\1)).
			return 0, false
		}
		return p.groupWidth(p.groups[n.cap], depth)
	}
	return 0, false
}

// measured is a group's state in parser.widths: not measured yet,
// being measured, or measured (fixed or not, and the width).
type measured struct {
	state uint8 // 0, widthMeasuring or widthKnown
	fixed bool
	width int
}

const (
	widthMeasuring = 1 + iota
	widthKnown
)

// groupWidth measures capture g once, as PCRE2 caches a group's length
// (get_grouplength): each reference and each lookbehind it is in reads
// that, which without it measured the group again each time, so that
// (a)(\1\1)(\2\2)... doubled the work a group: 2^39 measures of the
// first group at 40 (TestLookbehindReferenceChain). A group
// reached again while it is measured refers to itself through others
// ((a\2)(b\1)), which no length fits.
func (p *parser) groupWidth(g *node, depth int) (int, bool) {
	if p.widths == nil {
		p.widths = make([]measured, len(p.groups))
	}
	w := &p.widths[g.cap]
	switch w.state {
	case widthKnown:
		return w.width, w.fixed
	case widthMeasuring:
		return 0, false
	}
	w.state = widthMeasuring
	width, fixed := p.fixedWidth(g.subs[0], depth+1)
	// p.widths is not appended to while measuring: w still points in it.
	*w = measured{state: widthKnown, fixed: fixed, width: width}
	return width, fixed
}
