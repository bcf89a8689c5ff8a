package brotli

import (
	"math/bits"
	"slices"
)

// Static dictionary references with the transforms of RFC 7932 appendix
// B that add text around a whole word, or write its first letter or all
// of it upper case: "word ", " word", "Word, ", "WORD=\"" and the like.
// Qualities 10 and 11 search them; the others use the identity and
// omit-last transforms alone (searchDict), and 11 the omit-first ones too
// (offerOmitFirst, in dictionary.go). The table lists, by prefix, the
// transforms that keep the word whole, as the decoders apply them
// (TestWordTransforms checks every entry through both).

// wordTransform is a transform that writes a prefix, the word and a
// suffix.
type wordTransform struct {
	id     uint8
	suffix string
}

// transformGroup holds the transforms of one prefix: those that write the
// word as it is, those that write its first letter upper case, and those
// that write all of it upper case (tried on words of ASCII bytes only:
// the decoders' upper case of other UTF-8 sequences flips bits that no
// text of ours would hold).
type transformGroup struct {
	prefix            string
	plain, upper, all []wordTransform
}

// wordTransforms holds them by prefix, "" (the word at the position)
// first.
var wordTransforms = []transformGroup{
	{"",
		[]wordTransform{
			{1, " "}, {5, " the "}, {8, " of "}, {10, " and "}, {14, ", "}, {16, " in "},
			{17, " to "}, {19, "\""}, {20, "."}, {21, "\">"}, {22, "\n"}, {24, "]"},
			{25, " for "}, {28, " a "}, {29, " that "}, {31, ". "}, {35, " with "},
			{36, "'"}, {37, " from "}, {38, " by "}, {43, ". The "}, {45, " on "},
			{46, " as "}, {47, " is "}, {50, "\n\t"}, {51, ":"}, {53, "ed "}, {57, "("},
			{60, " at "}, {61, "ly "}, {70, "=\""}, {75, ". This "}, {76, ","},
			{80, " not "}, {82, "er "}, {84, "al "}, {86, "='"}, {90, "ful "},
			{92, "ive "}, {93, "less "}, {95, "est "}, {100, "ize "}, {106, "ous "},
		},
		[]wordTransform{
			{9, ""}, {4, " "}, {58, ", "}, {66, "\""}, {69, "\">"}, {74, "'"}, {78, "("},
			{79, "."}, {88, ". "}, {99, ","}, {104, "=\""}, {108, "='"},
		},
		[]wordTransform{
			{44, ""}, {68, " "}, {87, "\""}, {94, "'"}, {97, "\">"}, {101, "."},
			{105, "=\""}, {107, ", "}, {112, ","}, {113, "("}, {114, ". "}, {116, "='"},
		},
	},
	{" ",
		[]wordTransform{
			{6, ""}, {2, " "}, {33, ", "}, {52, ". "}, {71, "."}, {81, "=\""}, {89, "("},
			{98, "='"}, {103, ","},
		},
		[]wordTransform{
			{30, ""}, {15, " "}, {65, ", "}, {91, ". "}, {96, "."}, {109, ","},
			{118, "=\""}, {120, "='"},
		},
		[]wordTransform{
			{85, ""}, {83, " "}, {110, "=\""}, {111, ", "}, {115, "."}, {117, ". "},
			{119, "='"},
		},
	},
	{".",
		[]wordTransform{
			{32, ""}, {77, " "}, {67, "("},
		},
		nil, nil,
	},
	{", ",
		[]wordTransform{
			{13, " "},
		},
		nil, nil,
	},
	{" the ",
		[]wordTransform{
			{41, ""}, {62, " of "},
		},
		nil, nil,
	},
	{"s ",
		[]wordTransform{
			{7, " "},
		},
		nil, nil,
	},
	{"e ",
		[]wordTransform{
			{18, " "},
		},
		nil, nil,
	},
	{".com/",
		[]wordTransform{
			{72, ""},
		},
		nil, nil,
	},
}

// groupsAt[all] has, for each byte, a bit for each group of
// wordTransforms whose prefix is empty or starts with that byte: the
// groups searchWords tries at a position that starts with it. When
// offerWords has tried the words as they are (all, quality 11), the empty
// prefix's group is left with its upper-case lists, and only upper-case
// letters start them.
var groupsAt = func() (t [2][256]uint16) {
	for g, group := range wordTransforms {
		for c := range 256 {
			if group.prefix == "" || group.prefix[0] == byte(c) {
				t[0][c] |= 1 << g
				if group.prefix != "" || c >= 'A' && c <= 'Z' {
					t[1][c] |= 1 << g
				}
			}
		}
	}
	return t
}()

// prefixWord is a prefix of wordTransforms in the low bytes of word, and
// mask the bytes it has: searchWords tests it against the input's eight
// bytes at a position with one compare, where comparing strings took a
// call (91,767 on the 95 KB JSON at 11).
type prefixWord struct{ word, mask uint64 }

var prefixWords = func() (t [16]prefixWord) {
	for g, group := range wordTransforms {
		t[g] = newPrefixWord(group.prefix)
	}
	return t
}()

// newPrefixWord packs s, a prefix or suffix of wordTransforms.
func newPrefixWord(s string) (p prefixWord) {
	if len(s) > 8 {
		panic("brotli: a prefix or suffix of wordTransforms longer than prefixWord holds")
	}
	for k := range len(s) {
		p.word |= uint64(s[k]) << (8 * k)
		p.mask |= 0xff << (8 * k)
	}
	return p
}

// suffixClass numbers, from 1, the bytes that some suffix of
// wordTransforms starts with; the other bytes are 0.
var suffixClass = func() (c [256]uint8) {
	n := uint8(0)
	for _, g := range wordTransforms {
		for _, tr := range slices.Concat(g.plain, g.upper, g.all) {
			if tr.suffix != "" && c[tr.suffix[0]] == 0 {
				n++
				c[tr.suffix[0]] = n
			}
		}
	}
	if n > maxSuffixClass {
		panic("brotli: more first bytes of suffixes than maxSuffixClass")
	}
	return c
}()

// maxSuffixClass bounds suffixClass's numbers (there are 16).
const maxSuffixClass = 20

// suffixList is a list of wordTransforms ordered by the suffixClass of
// its suffixes' first bytes, the empty suffixes first (class 0): after a
// word, searchWords tries only the transforms whose suffix starts with
// the next byte, tr[at[c]:at[c+1]] for its class c, where it tried all
// (a word of a JSON file matched whole and tried 43 suffixes, to find
// mostly none).
type suffixList struct {
	tr []wordTransform
	at [maxSuffixClass + 2]uint8
	// longest is the length of the longest suffix: a word found whole
	// gives a reference at most that much longer (refLengths.minLen).
	longest uint8
	// sfx[k] is tr[k]'s suffix as a prefixWord: offerSuffixes tests it
	// against the 8 bytes after the word with one compare, where
	// comparing strings took a call (38,618 on the 95 KB JSON at 11).
	sfx []prefixWord
}

// newSuffixList orders list by suffix class.
func newSuffixList(list []wordTransform) suffixList {
	class := func(tr wordTransform) int {
		if tr.suffix == "" {
			return 0
		}
		return int(suffixClass[tr.suffix[0]])
	}
	l := suffixList{tr: slices.Clone(list)}
	for _, tr := range list {
		l.longest = max(l.longest, uint8(len(tr.suffix)))
	}
	slices.SortStableFunc(l.tr, func(a, b wordTransform) int { return class(a) - class(b) })
	l.sfx = make([]prefixWord, len(l.tr))
	for k, tr := range l.tr {
		l.sfx[k] = newPrefixWord(tr.suffix)
	}
	for c := range l.at {
		l.at[c] = uint8(len(l.tr))
		for k := len(l.tr) - 1; k >= 0 && class(l.tr[k]) >= c; k-- {
			l.at[c] = uint8(k)
		}
	}
	return l
}

// suffixLists holds each group of wordTransforms' lists (plain, upper,
// all) as suffixLists.
var suffixLists = func() [][3]suffixList {
	t := make([][3]suffixList, len(wordTransforms))
	for g, group := range wordTransforms {
		for mode, list := range [3][]wordTransform{group.plain, group.upper, group.all} {
			t[g][mode] = newSuffixList(list)
		}
	}
	return t
}()

// searchWords offers r every static dictionary reference at data[i:] of
// at most maxLen bytes through wordTransforms, each with its cut: the
// word's length less the bytes it writes (negative: the transform adds
// text).
func (e *encoder) searchWords(data []byte, i, maxLen int, reach uint32, r *refLengths) {
	t := e.dict
	x8 := load64(data, i) // (the input has 8 bytes at i, as for searchDict)
	all := 0
	if e.q.allRefs {
		all = 1
	}
	for groups := groupsAt[all][byte(x8)]; groups != 0; groups &= groups - 1 {
		g := bits.TrailingZeros16(groups)
		pre := wordTransforms[g].prefix
		j := i + len(pre)
		if x8&prefixWords[g].mask != prefixWords[g].word || j+minWordLen > i+maxLen {
			continue
		}
		// Bytes 4 to 8 of the input, to test against those of the words
		// in t.pre (most words fail there) where the input has them.
		var tail uint64
		short := j+8 > len(data)
		if !short {
			tail = load64(data, j) >> 32
		}
		for mode := range suffixLists[g] {
			list := &suffixLists[g][mode]
			if len(list.tr) == 0 || g == 0 && mode == 0 && e.q.allRefs {
				continue // (the words as they are at i: offerWords tried them)
			}
			// The longest reference a word of the list could give.
			most := len(pre) + int(list.longest)
			if most+maxWordLen < r.minLen {
				continue
			}
			x := load32(data, j)
			if mode > 0 {
				if c := byte(x); c < 'A' || c > 'Z' {
					continue
				}
				x += 'a' - 'A' // the word's own first letter
			}
			if mode == caseAll {
				x = lowerASCII(x)
			}
			k, hi := t.lookup(x)
			for end := min(hi, k+e.q.dictDepth); k < end && uint32(t.pre[k]) == x; k++ {
				v := t.ent[k]
				wl, idx := int(v>>11), int(v&(1<<11-1))
				if most+wl < r.minLen {
					break // and so are the shorter words after it
				}
				if j+wl > i+maxLen || !e.q.allRefs && r.top >= len(pre)+wl+8 {
					continue // too long here, or (the longest alone kept) cannot beat the best
				}
				w := dictWord(wl, idx)
				if mode == caseAll {
					if !upperEqual(data[j:j+wl], w) {
						continue
					}
				} else if short && string(data[j+4:j+wl]) != string(w[4:]) ||
					!short && (!headEqual(t.pre[k]>>32, tail, wl-4) ||
						wl > 8 && string(data[j+8:j+wl]) != string(w[8:])) {
					continue // whole words only: the first four bytes are x
				}
				offerSuffixes(data, i, j, wl, idx, maxLen, reach, list, r)
			}
		}
	}
}

// offerSuffixes offers r the transforms of list on word idx of length
// wl, found whole at data[j:], that the bytes after it allow: a
// reference written from data[i:] (i <= j, the prefix between them), of
// at most maxLen bytes. reach is as for searchDict.
func offerSuffixes(data []byte, i, j, wl, idx, maxLen int, reach uint32, list *suffixList, r *refLengths) {
	m := j - i + wl // the caller found the word within maxLen
	for _, tr := range list.tr[:list.at[1]] {
		r.offer(m, dictDistance(reach, wl, idx, tr.id), wl-m)
	}
	if m == maxLen {
		return
	}
	c := suffixClass[data[j+wl]]
	if c == 0 {
		return
	}
	// The 8 bytes after the word where data has them (maxLen bounds
	// what a suffix may cover).
	next, have := uint64(0), j+wl+8 <= len(data)
	if have {
		next = load64(data, j+wl)
	}
	for k := list.at[c]; k < list.at[c+1]; k++ {
		sfx := list.tr[k].suffix
		n := m + len(sfx)
		if n > maxLen || n < r.minLen ||
			have && next&list.sfx[k].mask != list.sfx[k].word ||
			!have && string(data[j+wl+1:j+wl+len(sfx)]) != sfx[1:] {
			continue
		}
		r.offer(n, dictDistance(reach, wl, idx, list.tr[k].id), wl-n)
	}
}

// caseAll is searchWords' mode for a transformGroup's all list.
const caseAll = 2

// lowerASCII turns the upper-case ASCII letters of the four bytes in x
// to lower case.
func lowerASCII(x uint32) uint32 {
	for k := 0; k < 32; k += 8 {
		if c := byte(x >> k); c >= 'A' && c <= 'Z' {
			x |= 0x20 << k
		}
	}
	return x
}

// upperEqual reports whether b is word w written all upper case by an
// UppercaseAll transform, w being ASCII.
func upperEqual(b, w []byte) bool {
	for k, c := range w {
		if c >= 0x80 {
			return false
		}
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		if b[k] != c {
			return false
		}
	}
	return true
}
