package brotli

// Static dictionary references with the transforms of RFC 7932 appendix
// B that add text around a whole word, or write its first letter upper
// case: "word ", " word", "Word, ", "word=\"" and the like. Qualities 10
// and 11 search them; the others use the identity and omit-last
// transforms alone (searchDict). The table lists, by prefix, the
// transforms that keep the word whole, as the decoders apply them
// (TestWordTransforms checks every entry through both).

// wordTransform is a transform that writes prefix, the word (its first
// letter upper case if upper) and suffix.
type wordTransform struct {
	id     uint8
	upper  bool
	suffix string
}

// wordTransforms holds them by prefix: "" (the word at the position)
// and the prefixes of transformPrefixes.
var wordTransforms = map[string][]wordTransform{
	"": {
		{1, false, " "}, {5, false, " the "}, {8, false, " of "}, {10, false, " and "},
		{14, false, ", "}, {16, false, " in "}, {17, false, " to "}, {19, false, "\""},
		{20, false, "."}, {21, false, "\">"}, {22, false, "\n"}, {24, false, "]"},
		{25, false, " for "}, {28, false, " a "}, {29, false, " that "}, {31, false, ". "},
		{35, false, " with "}, {36, false, "'"}, {37, false, " from "}, {38, false, " by "},
		{43, false, ". The "}, {45, false, " on "}, {46, false, " as "}, {47, false, " is "},
		{50, false, "\n\t"}, {51, false, ":"}, {53, false, "ed "}, {57, false, "("},
		{60, false, " at "}, {61, false, "ly "}, {70, false, "=\""}, {75, false, ". This "},
		{76, false, ","}, {80, false, " not "}, {82, false, "er "}, {84, false, "al "},
		{86, false, "='"}, {90, false, "ful "}, {92, false, "ive "}, {93, false, "less "},
		{95, false, "est "}, {100, false, "ize "}, {106, false, "ous "},
		{9, true, ""}, {4, true, " "}, {58, true, ", "}, {66, true, "\""}, {69, true, "\">"},
		{74, true, "'"}, {78, true, "("}, {79, true, "."}, {88, true, ". "}, {99, true, ","},
		{104, true, "=\""}, {108, true, "='"},
	},
	" ": {
		{6, false, ""}, {2, false, " "}, {33, false, ", "}, {52, false, ". "}, {71, false, "."},
		{81, false, "=\""}, {89, false, "("}, {98, false, "='"}, {103, false, ","},
		{30, true, ""}, {15, true, " "}, {65, true, ", "}, {91, true, ". "}, {96, true, "."},
		{109, true, ","}, {118, true, "=\""}, {120, true, "='"},
	},
	".":     {{32, false, ""}, {77, false, " "}, {67, false, "("}},
	", ":    {{13, false, " "}},
	" the ": {{41, false, ""}, {62, false, " of "}},
	"s ":    {{7, false, " "}},
	"e ":    {{18, false, " "}},
	".com/": {{72, false, ""}},
}

// transformPrefixes are wordTransforms' keys, the empty one first.
var transformPrefixes = []string{"", " ", ".", ", ", " the ", "s ", "e ", ".com/"}

// searchWords finds the longest static dictionary reference at data[i:]
// of at most maxLen bytes through wordTransforms: n is the bytes it
// writes, d its distance, and cut the word's length less n (negative: the
// transform adds text). n is 0 when there is none.
func (e *encoder) searchWords(data []byte, i, maxLen int, reach uint32) (n int, d uint32, cut int) {
	t := e.dict
	for _, pre := range transformPrefixes {
		j := i + len(pre)
		if string(data[i:j]) != pre || j+minWordLen > i+maxLen {
			continue
		}
		for _, upper := range [2]bool{false, true} {
			x := load32(data, j)
			if upper {
				if c := byte(x); c < 'A' || c > 'Z' {
					continue
				}
				x += 'a' - 'A' // the word's own first letter
			}
			h := x * dictMul
			if t.filter[h>>22]&(1<<(h>>16&63)) == 0 {
				continue
			}
			key := h >> (32 - dictKeyBits)
			k, hi := int(t.heads[key]), int(t.heads[key+1])
			for k < hi && t.pre[k] != x {
				k++
			}
			for end := min(hi, k+e.q.dictDepth); k < end && t.pre[k] == x; k++ {
				v := t.ent[k]
				wl, idx := int(v>>11), int(v&(1<<11-1))
				if j+wl > i+maxLen || n >= len(pre)+wl+8 {
					continue // too long here, or cannot beat the best
				}
				w := dictWord(wl, idx)
				if string(data[j+4:j+wl]) != string(w[4:]) {
					continue // whole words only: the first four bytes are x
				}
				for _, tr := range wordTransforms[pre] {
					if tr.upper != upper {
						continue
					}
					m := len(pre) + wl + len(tr.suffix)
					if m <= n || i+m > i+maxLen || string(data[j+wl:j+wl+len(tr.suffix)]) != tr.suffix {
						continue
					}
					n, d, cut = m, dictDistance(reach, wl, idx, tr.id), wl-m
				}
			}
		}
	}
	return n, d, cut
}
