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
// character 2 (and [^a], OP_NOT), a character type 1 (\d; \pL 3), a
// class 33, a group's brackets 6 (8 with a capture number; a lookbehind
// 3 more a branch), an alternative past the first 3, a repeated single
// item its repeat opcodes (itemRepeat), and each optional copy of a
// group 7 more (OP_BRAZERO and a bracket around it).
func compiledSize(n *node) int {
	return min(7+sizeOf(n), maxCompiled+1) // OP_BRA, OP_KET, OP_END
}

func sizeOf(n *node) int {
	if n.units > 0 {
		return n.units
	}
	switch n.op {
	case opSet:
		// . and \N are one opcode (units); a character, caseless or
		// not, is OP_CHAR c and a class of all bytes but one is OP_NOT
		// c ([^a], [^\n]); any other class, a full one ([\s\S])
		// included, is OP_CLASS and its 32-byte map.
		inv := n.set
		inv.invert()
		if oneChar(&n.set) || oneChar(&inv) {
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
	case opLook:
		if n.behind {
			// Each branch of a lookbehind starts with OP_REVERSE and
			// its length.
			return satAdd(sizeOf(n.subs[0]), 6+3*branches(n.subs[0]))
		}
		return satAdd(sizeOf(n.subs[0]), 6)
	case opGroup, opAtomic:
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
		if sub.units == 0 {
			break
		}
		fallthrough // \R: one opcode
	default:
		return itemRepeat(n, s)
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

// itemRepeat is a repeated single item of size s. A character or type
// (\d) takes a repeat opcode and its operand, 2 for ?, * and + (OP_STAR
// c), 4 with a count for {n} or {0,m} (OP_EXACT c n, OP_UPTO c m), the
// item itself and OP_UPTO for {1,m}, OP_EXACT and OP_STAR for {n,}, and
// OP_EXACT and OP_UPTO for {n,m}; a class or back-reference takes one
// repeat opcode after it, with counts or not. PCRE2 counts {0} as the
// item alone.
func itemRepeat(n *node, s int) int {
	simple := n.max < 0 && n.min <= 1 || n.min == 0 && n.max == 1
	switch {
	case n.max == 0:
		return s
	case s > 2 || n.subs[0].op == opBackref:
		if simple {
			return satAdd(s, 1) // OP_CRSTAR and the like
		}
		return satAdd(s, 5) // OP_CRRANGE min max
	case simple:
		return 2
	case n.min == n.max, n.min == 0:
		return 4
	case n.min == 1 && n.max > 0:
		return s + 4
	case n.max < 0:
		return 6
	}
	return 8
}

// oneChar reports a set that PCRE2 compiles as one character: a single
// byte, or one letter in both cases.
func oneChar(s *byteSet) bool {
	c := s.count()
	return c == 1 || c == 2 && foldPair(s)
}

// branches counts the alternatives of a group's body.
func branches(n *node) int {
	if n.op == opAlt {
		return len(n.subs)
	}
	return 1
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
