package brotli

import (
	"math/bits"
)

// Literal context modeling (RFC 7932 section 7), used from quality 5. The
// decoder picks the literal tree for each byte from a context id of the
// two bytes before it (0..63, by the meta-block's context mode) through a
// context map. The encoder counts each context's literals, groups
// contexts whose literals look alike into at most q.maxTrees clusters (a
// tree each), and writes the map.

// ctxLut holds, for one context mode, the part of the context id that the
// last byte gives (lut[0]) and the part the byte before gives (lut[1]).
type ctxLut [2][256]uint8

// utf8Lut is the UTF8 context mode. For ASCII the last byte gives a class
// times 4 (control, whitespace, space, punctuation, quotes, '%', opening
// and closing brackets, separators, '.', '=', digits, upper and lower case
// vowels and consonants) and the byte before one of 4 classes (control or
// space, punctuation, upper case or digit, lower case). A continuation
// byte gives 0 or 1 by its low bit and a lead byte 2 or 3; before it, lead
// bytes from 224 give 2 and every other byte above 127 gives 0.
var utf8Lut = func() (t ctxLut) {
	class := func(c byte) uint8 {
		switch {
		case c == '\t' || c == '\n' || c == '\r':
			return 1
		case c == ' ':
			return 2
		case c == '"' || c == '\'':
			return 4
		case c == '%':
			return 5
		case c == '(' || c == '<' || c == '[' || c == '{':
			return 6
		case c == ')' || c == '>' || c == ']' || c == '}':
			return 7
		case c == ',' || c == ';' || c == ':':
			return 8
		case c == '.':
			return 9
		case c == '=':
			return 10
		case c >= '0' && c <= '9':
			return 11
		case c >= 'A' && c <= 'Z':
			if isVowel(c + 'a' - 'A') {
				return 12
			}
			return 13
		case c >= 'a' && c <= 'z':
			if isVowel(c) {
				return 14
			}
			return 15
		case c < 32 || c == 127:
			return 0
		}
		return 3
	}
	for c := range 256 {
		b := byte(c)
		switch {
		case b < 128:
			t[0][c] = 4 * class(b)
			switch cl := class(b); {
			case cl <= 2 || b == 127:
				t[1][c] = 0
			case cl >= 14:
				t[1][c] = 3
			case cl >= 11:
				t[1][c] = 2
			default:
				t[1][c] = 1
			}
		case b < 192:
			t[0][c] = b & 1
		default:
			t[0][c] = 2 | b&1
			if b >= 224 {
				t[1][c] = 2
			}
		}
	}
	return t
}()

func isVowel(c byte) bool { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' }

// signedLut is the signed context mode (font data): each byte falls in one
// of 8 ranges that group small magnitudes of signed integers; the last
// byte's range is the high 3 bits of the id, the one before the low 3.
var signedLut = func() (t ctxLut) {
	for c := range 256 {
		var r uint8
		switch {
		case c == 0:
			r = 0
		case c < 16:
			r = 1
		case c < 64:
			r = 2
		case c < 128:
			r = 3
		case c < 192:
			r = 4
		case c < 240:
			r = 5
		case c < 255:
			r = 6
		default:
			r = 7
		}
		t[0][c] = r << 3
		t[1][c] = r
	}
	return t
}()

// maxTrees bounds the literal trees of a meta-block (q.maxTrees), and the
// block types of each kind of symbol.
const maxTrees = 16

// ctxState is the context modeling state of an encoder.
type ctxState struct {
	lut *ctxLut
	// cl clusters the 64 contexts of each literal block type, by their
	// literals: item t*64+id is context id of type t.
	cl     clusterer
	ntypes int         // literal block types
	flat   [256]uint32 // the literals whatever their context
	// The map from block type and context id to tree, and the trees.
	cmap   [64 * maxTrees]uint8
	ntrees int
	lens   [maxTrees * 256]uint8
	codes  [maxTrees * 256]uint32
	// lookup is the context map for the writer: tree<<8 per block type
	// and context id.
	lookup [64 * maxTrees]uint16
}

// count counts the literals of cmds, which code data[start:], by block
// type and context id, for clustering (group with a limit above 1); p1
// and p2 are the two bytes before start, and runs the literals' blocks
// (nil for one type).
func (c *ctxState) count(cmds []command, data []byte, start int, p1, p2 byte, runs []blockRun) {
	c.ntypes = 1
	if len(runs) > 1 {
		for _, r := range runs {
			c.ntypes = max(c.ntypes, int(r.typ)+1)
		}
		countTypes(c.lut, c.cl.prepare(64*c.ntypes, 256), cmds, data, start, p1, p2, runs)
		return
	}
	countOne(c.lut, (*[64 << 8]uint32)(c.cl.prepare(64, 256)), cmds, data, start, p1, p2)
}

// countTypes counts the literals of several block types (qualities 10
// and up), carrying the two bytes before each literal along.
func countTypes(lut *ctxLut, hist []uint32, cmds []command, data []byte, p int, p1, p2 byte, runs []blockRun) {
	left, off := runs[0].n, 0
	runs = runs[1:]
	_ = lut[0] // lut is not nil: the literal loop then tests it no more
	for k := range cmds {
		cmd := &cmds[k]
		lits := data[p : p+int(cmd.insert)]
		for _, b := range lits {
			id := int(lut[0][p1]|lut[1][p2]) & 63
			if left == 0 {
				left, off = runs[0].n, int(runs[0].typ)<<14
				runs = runs[1:]
			}
			left--
			hist[off|id<<8|int(b)]++
			p2, p1 = p1, b
		}
		p += len(lits)
		if cmd.copy > 0 {
			p += int(cmd.copy)
			p2, p1 = data[p-2], data[p-1]
		}
	}
}

// countOne counts the literals of one block type, most meta-blocks below
// quality 10, into one array of 64 contexts whose index needs no bounds
// check. Past the meta-block's first two bytes the two bytes before a
// literal are those before it in data, copied or not: each literal reads
// them there, and no context is carried from one literal to the next or
// reloaded after a copy (on jquery at 6 the carried bytes and the loop's
// other values outgrew the registers, and two were reloaded per literal:
// 0.15M of 21.0M instructions a call).
func countOne(lut *ctxLut, one *[64 << 8]uint32, cmds []command, data []byte, p int, p1, p2 byte) {
	if len(cmds) == 0 {
		return
	}
	// The literals among the first two bytes take p1 and p2: before a
	// stream's start the decoder sees zeros, whatever a raw dictionary
	// puts in data, and a segment may not know what came before.
	c := &cmds[0]
	for _, b := range data[p : p+min(int(c.insert), 2)] {
		one[int(lut[0][p1]|lut[1][p2])&63<<8|int(b)]++
		p2, p1 = p1, b
	}
	countSpan(lut, one, data[p:p+int(c.insert)])
	p += int(c.insert) + int(c.copy)
	for k := 1; k < len(cmds); k++ {
		c := &cmds[k]
		countSpan(lut, one, data[p-2:p+int(c.insert)])
		p += int(c.insert) + int(c.copy)
	}
}

// countSpan counts the literals span[2:], each by the two bytes before
// it in span.
func countSpan(lut *ctxLut, one *[64 << 8]uint32, span []byte) {
	_, _ = lut[0], one[0] // neither is nil: the loop then tests them no more
	for j := 2; j < len(span); j++ {
		one[int(lut[0][span[j-1]]|lut[1][span[j-2]])&63<<8|int(span[j])]++
	}
}

// countFlat counts the literals of cmds, which code data[start:],
// whatever their context, for one tree (group with limit 1).
func (c *ctxState) countFlat(cmds []command, data []byte, start int) {
	c.ntypes = 1
	flat := &c.flat
	clear(flat[:])
	p := start
	for k := range cmds {
		for end := p + int(cmds[k].insert); p < end; p++ {
			flat[data[p]]++
		}
		p += int(cmds[k].copy)
	}
}

// group clusters the contexts into at most limit trees (one if limit is
// 1) and fills the map. Context ids without literals take the previous
// id's tree, which is cheapest in the map.
func (c *ctxState) group(limit, rounds int) {
	if limit <= 1 {
		// One tree for every context (countFlat has counted).
		c.ntrees = c.cl.single(c.flat[:])
		clear(c.cmap[:64])
		clear(c.lookup[:64])
		return
	}
	// The map costs about 2 bits per context id with literals and tree;
	// the ids without take the tree before them, which costs next to
	// nothing.
	ids := -1.0
	c.ntrees = c.cl.run(limit, rounds, func(k int) float64 {
		if ids < 0 {
			ids = 0
			for _, n := range c.cl.total {
				if n != 0 {
					ids++
				}
			}
		}
		return 2 * ids * float64(bits.Len(uint(k)))
	})
	prev := uint8(0)
	for id := range c.cmap[:64*c.ntypes] {
		if c.cl.total[id] != 0 {
			prev = c.cl.assign[id]
		}
		c.cmap[id] = prev
		c.lookup[id] = uint16(prev) << 8
	}
}

// static maps the UTF8 context ids to trees by staticMap (qualities 5
// and 6), the trees numbered in the map's order of the groups that have
// literals, and sums the counts of each tree's ids (count has counted
// them by id); it reports whether the map's trees pay for themselves
// against one tree, and leaves the map unset where they do not (the
// caller then clusters the ids from the same counts). The map replaces
// the clustering of the 64 ids (the clusterer's rounds were 3.6% of
// jquery's instructions at 6) at the cost of trees fitted to the data:
// brotli README, "A static context map at 5 and 6".
func (c *ctxState) static() bool {
	c.cl.clHist = grow(c.cl.clHist, maxTrees*256)
	hist := c.cl.clHist
	clear(hist[:maxTrees*256])
	// Each id's counts added to its group's in one pass, which also
	// tells which ids have literals.
	var idTotal [64]uint32
	var groupTotal [maxTrees]uint32
	for id := range 64 {
		row := (*[256]uint32)(c.cl.hist[id*256:])
		g := int(staticMap[id])
		h := (*[256]uint32)(hist[g*256:])
		n := addCounts(h, row)
		idTotal[id] = n
		groupTotal[g] += n
	}
	// The groups with literals become the trees, in the map's order,
	// their counts moved down over the empty groups'.
	var tree [maxTrees]uint8
	c.ntypes, c.ntrees = 1, 0
	for g, n := range groupTotal {
		if n == 0 {
			continue
		}
		if g != c.ntrees {
			copy(hist[c.ntrees*256:c.ntrees*256+256], hist[g*256:g*256+256])
		}
		tree[g] = uint8(c.ntrees)
		c.ntrees++
	}
	// The map's trees against one tree: where they save less than
	// staticSaving of the literals' bits (bytes alike in every context,
	// such as compressed or random data, alone or beside text, whose
	// 256 symbols every tree then codes), the ids are clustered instead,
	// which finds one tree for such bytes alone, and the few trees that
	// pay where they share the meta-block with text (one tree there lost
	// the text's contexts, 3.6% more bytes than clustering on jquery's
	// first 30 KB gzipped, then the same as text; the map was 1.4% larger
	// than clustering with 20 KB of random bytes inside jquery; README,
	// "A static context map at 5 and 6").
	flat := &c.flat
	clear(flat[:])
	split := 0.0
	total := uint32(0)
	for t, n := range groupTotal {
		if n == 0 {
			continue
		}
		h := (*[256]uint32)(hist[int(tree[t])*256:])
		addCounts(flat, h)
		split += histBits(h[:], n)
		total += n
	}
	if split > (1-staticSaving)*histBits(flat[:], total) {
		return false
	}
	prev := uint8(0)
	for id, n := range idTotal {
		// An id without literals takes the tree before it, which costs
		// next to nothing in the map.
		if n != 0 {
			prev = tree[staticMap[id]]
		}
		c.cmap[id] = prev
		c.lookup[id] = uint16(prev) << 8
	}
	return true
}

// addCounts adds src's counts to dst's and returns their sum. Four
// counts a step: a loop of one count a step spent as much on its test
// and index as on the adds (static passes over 64 rows of 256 counts a
// meta-block; about 5 instructions a count that way, under 4 this way).
func addCounts(dst, src *[256]uint32) uint32 {
	n := uint32(0)
	for b := 0; b < 256; b += 4 {
		v0, v1, v2, v3 := src[b], src[b+1], src[b+2], src[b+3]
		dst[b] += v0
		dst[b+1] += v1
		dst[b+2] += v2
		dst[b+3] += v3
		n += v0 + v1 + v2 + v3
	}
	return n
}

// staticSaving is the least share of the literals' estimated bits that
// the static map's trees must save against one tree. Every meta-block
// that took the map on the corpus saved 6.2% or more, on the samples
// beyond it 7.6%; meta-blocks mixing random bytes with text saved
// 0.2-2.8%, where the clustering came out 1.3-1.4% smaller than the map.
const staticSaving = 0.04

// staticMap groups the 64 UTF8 context ids (utf8Lut) into 16 trees: in
// the main by the class of the last byte, which tells most about the
// next one in text and code; the classes alike in what follows them
// ('%' and other punctuation, the upper case letters) share a tree, the
// bytes of multi-byte characters take two (after a lead byte, after any
// other), and a lower case consonant after another lower case letter
// (inside a word) has its own, apart from one after anything else. Tried
// on the corpus and the small sample beyond it at 5 and 6, other splits
// by the byte before (a vowel, a space, a quote) moved the sizes by under
// 0.1%.
var staticMap = func() (m [64]uint8) {
	// The tree of each class of the last byte (utf8Lut's classes).
	byClass := [16]uint8{0, 2, 3, 4, 5, 4, 6, 7, 8, 9, 10, 11, 12, 12, 13, 14}
	for id := range m {
		class, before := id>>2, id&3
		m[id] = byClass[class]
		switch {
		case class == 0 && before >= 2:
			m[id] = 1 // after a lead byte
		case class == 15 && before != 3:
			m[id] = 15 // a consonant not after a lower case letter
		}
	}
	return m
}()

// writeVarLen8 writes a value 0..255 as RFC 7932 codes NBLTYPES and
// NTREES: a 0 bit for 0, else a 1 bit, 3 bits of the position of its top
// bit, and the bits below it.
func writeVarLen8(w *bitWriter, v int) {
	if v == 0 {
		w.writeBits(1, 0)
		return
	}
	n := uint(bits.Len(uint(v)) - 1)
	w.writeBits(1, 1)
	w.writeBits(3, uint64(n))
	w.writeBits(n, uint64(v-1<<n))
}

// writeContextMap writes NTREES and, for two trees or more, the context
// map cmap (RFC 7932 section 7.3): move-to-front, runs of zeros coded
// with the run-length symbols, and the symbols with a prefix code of
// their own.
func (e *encoder) writeContextMap(w *bitWriter, cmap []uint8, ntrees int) {
	writeVarLen8(w, ntrees-1)
	if ntrees < 2 {
		return
	}
	// Move-to-front.
	var mtf [256]uint8
	for i := range mtf {
		mtf[i] = uint8(i)
	}
	vals := e.mapVals[:len(cmap)]
	for id, t := range cmap {
		j := 0
		for mtf[j] != t {
			j++
		}
		vals[id] = uint8(j)
		copy(mtf[1:j+1], mtf[:j])
		mtf[0] = t
	}
	// The longest run of zeros sets RLEMAX (at most 16).
	longest, run := 0, 0
	for _, v := range vals {
		if v == 0 {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	rlemax := 0
	if longest >= 2 {
		rlemax = min(bits.Len(uint(longest))-1, 16)
	}
	// The symbols and their extra bits.
	syms, extra := e.mapSyms[:0], e.mapExtra[:0]
	for i := 0; i < len(vals); {
		if vals[i] != 0 {
			syms = append(syms, uint16(vals[i])+uint16(rlemax))
			extra = append(extra, 0)
			i++
			continue
		}
		r := 0
		for i+r < len(vals) && vals[i+r] == 0 {
			r++
		}
		i += r
		for r > 0 {
			if r == 1 || rlemax == 0 {
				syms = append(syms, 0)
				extra = append(extra, 0)
				r--
				continue
			}
			k := min(bits.Len(uint(r))-1, rlemax)
			l := min(r, 2<<k-1)
			syms = append(syms, uint16(k))
			extra = append(extra, uint32(l-1<<k))
			r -= l
		}
	}
	if rlemax > 0 {
		w.writeBits(1, 1)
		w.writeBits(4, uint64(rlemax-1))
	} else {
		w.writeBits(1, 0)
	}
	alphabet := ntrees + rlemax
	var hist [maxMapAlphabet]uint32
	for _, s := range syms {
		hist[s]++
	}
	var lens [maxMapAlphabet]uint8
	var codes [maxMapAlphabet]uint32
	pc := prefixCode{lens: lens[:alphabet], codes: codes[:alphabet]}
	e.hs.storeCode(w, hist[:alphabet], &pc, uint(bits.Len(uint(alphabet-1))))
	for i, s := range syms {
		v := codes[s]
		w.writeBits(uint(v&15), uint64(v>>4))
		if s != 0 && int(s) <= rlemax {
			w.writeBits(uint(s), uint64(extra[i]))
		}
	}
	w.writeBits(1, 1) // IMTF
}

// maxMapAlphabet is the largest context map alphabet: the trees and 16
// run-length symbols.
const maxMapAlphabet = maxTrees + 16
