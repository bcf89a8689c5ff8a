package pcre

// maxCompiled is PCRE2's MAX_PATTERN_SIZE for the 8-bit library with its
// default LINK_SIZE 2: a compiled pattern of more code units is "regular
// expression is too large".
const maxCompiled = 1 << 16

// compiledSize estimates, in code units, what PCRE2 10.42 (8-bit) would
// compile the tree to, saturating past maxCompiled. The backtracking
// engine runs a repeat as a loop, so "((a{1000}){1000}){1000}" is a few
// kilobytes here, where PCRE2 copies a repeated group once per count and
// NGINX refuses it: a client's pattern that NGINX would refuse must be
// refused too. The costs are PCRE2's opcodes, checked against NGINX 1.22
// (nginx -t on repeated groups, TestCompiledSizeAgainstNginx): a
// character 2, a character type 1 (\d; \pL 3), a class 33, a group's
// brackets 6 (8 with a capture number), an alternative past the first
// 3, a repeated single item its repeat opcodes (itemRepeat), and each
// optional copy of a group 7 more (OP_BRAZERO and a bracket around it).
func compiledSize(n *node) int {
	return min(7+sizeOf(n), maxCompiled+1) // OP_BRA, OP_KET, OP_END
}

func sizeOf(n *node) int {
	switch n.op {
	case opSet:
		switch c := n.set.count(); {
		case n.units > 0:
			return n.units
		case c >= 255: // ., \N
			return 1
		case c == 1, c == 2 && foldPair(&n.set):
			return 2
		}
		return 33
	case opConcat, opAlt:
		s := 0
		for i, sub := range n.subs {
			s = satAdd(s, sizeOf(sub))
			if n.op == opAlt && i > 0 {
				s = satAdd(s, 3) // OP_ALT and its link
			}
		}
		return s
	case opRepeat:
		return repeatSize(n)
	case opCapture:
		return satAdd(sizeOf(n.subs[0]), 8)
	case opGroup, opAtomic, opLook:
		return satAdd(sizeOf(n.subs[0]), 6)
	case opBackref:
		return 3
	case opAssert:
		return 1
	}
	return 0
}

// repeatSize is a repeat: one opcode with its counts for a single item,
// and for a group as many copies as the counts ask, PCRE2's way.
func repeatSize(n *node) int {
	sub := n.subs[0]
	s := sizeOf(sub)
	switch sub.op {
	case opCapture, opGroup, opAtomic, opLook, opConcat, opAlt:
	default:
		return satAdd(s, itemRepeat(n, s))
	}
	fixed, optional := n.min, 0
	switch {
	case n.max < 0:
		fixed = max(n.min, 1)
	case n.max > n.min:
		optional = n.max - n.min
	}
	return satAdd(satMul(fixed, s), satMul(optional, satAdd(s, 7)))
}

// itemRepeat is what a repeat adds to a single item of size s: nothing
// for a character's ?, * and + (OP_STAR c), a count for {n} (OP_EXACT c
// n), two opcodes for other counts (OP_EXACT and OP_UPTO or OP_STAR); a
// class or back-reference takes one repeat opcode, with counts or not.
func itemRepeat(n *node, s int) int {
	simple := n.max < 0 && n.min <= 1 || n.min == 0 && n.max == 1
	switch {
	case s > 2 || n.subs[0].op == opBackref:
		if simple {
			return 1 // OP_CRSTAR and the like
		}
		return 5 // OP_CRRANGE min max
	case simple:
		return 0
	case n.min == n.max:
		return 2
	}
	return 6
}

// foldPair reports a set of one letter in both cases (a caseless
// character, one opcode in PCRE2).
func foldPair(s *byteSet) bool {
	for c := 'a'; c <= 'z'; c++ {
		if s.has(byte(c)) && s.has(byte(c-'a'+'A')) {
			return true
		}
	}
	return false
}

func satAdd(a, b int) int { return min(a+b, maxCompiled+1) }

func satMul(k, s int) int {
	if k > 0 && s > (maxCompiled+1)/k {
		return maxCompiled + 1
	}
	return k * s
}
