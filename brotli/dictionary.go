package brotli

import (
	"cmp"
	_ "embed"
	"math/bits"
	"slices"
	"sync"
)

// The static dictionary of RFC 7932 (section 8, appendix A): words of 4 to
// 24 bytes that a stream refers to with a distance beyond the bytes the
// decoder has produced. dictionary.bin is not a copy of the RFC's listing
// or of another implementation's table: TestDictionaryBin writes it (with
// -update) by decoding a stream, made by this package's command writer,
// that refers to every word in order, and checks it again on every run.
//
//go:embed dictionary.bin
var dictionary []byte

// dictBits is NDBITS of RFC 7932 section 8: a length has 1<<dictBits[len]
// words; lengths 0-3 have none.
var dictBits = [maxWordLen + 1]uint8{
	4: 10, 5: 10, 6: 11, 7: 11, 8: 10, 9: 10, 10: 10, 11: 10, 12: 10,
	13: 9, 14: 9, 15: 8, 16: 7, 17: 7, 18: 8, 19: 7, 20: 7, 21: 6, 22: 6,
	23: 5, 24: 5,
}

const (
	minWordLen = 4
	maxWordLen = 24
	// dictSize is the length of the dictionary: the sum of len<<dictBits[len].
	dictSize = 122784
)

// dictOffset[len] is where the words of length len start (DOFFSET).
var dictOffset = func() (o [maxWordLen + 2]uint32) {
	for l := minWordLen; l <= maxWordLen; l++ {
		o[l+1] = o[l] + uint32(l)<<dictBits[l]
	}
	return o
}()

// dictWord returns word idx of length l.
func dictWord(l, idx int) []byte {
	o := int(dictOffset[l]) + l*idx
	return dictionary[o : o+l]
}

// omitLast[k] is the transform (RFC 7932 appendix B) that yields a word
// without its last k bytes and adds nothing: OmitLast1 is transform 12,
// OmitLast2 27, and so on; omitLast[0] is the identity. TestOmitLast
// checks each through both decoders.
var omitLast = [10]uint8{0, 12, 27, 23, 42, 63, 56, 48, 59, 64}

// maxCut is the most bytes a transform without prefix or suffix can
// leave off a word's end.
const maxCut = len(omitLast) - 1

// dictDistance is the distance that codes word idx of length l with
// transform t when the largest backward distance is maxBack: every value
// above maxBack is a dictionary reference (RFC 7932 section 8).
func dictDistance(maxBack uint32, l, idx int, t uint8) uint32 {
	return maxBack + 1 + uint32(t)<<dictBits[l] + uint32(idx)
}

// dictIndex finds words by their first four bytes x: a key hashed from
// them selects pre[heads[key]:heads[key+1]] and ent[...], every word with
// that hash, grouped by first four bytes (the low half of pre), longest
// first in a group, each packed in ent as length<<11 | index. pre holds
// the dictionary's 8 bytes from there (the word's, then the next's), so
// that most comparisons with the input need not load the word. filter
// has a bit per 16-bit hash of the first four bytes of some word: most
// positions of a text start no word, and one load turns them away. Built
// once, on first use, by encoders of the qualities that search the
// dictionary.
type dictIndex struct {
	filter [1 << 16 / 64]uint64
	heads  [1<<dictKeyBits + 1]uint16
	pre    []uint64
	ent    []uint16
}

const (
	dictKeyBits = 14
	dictMul     = 0x1e35a7bd
)

// filterBit is where a filter (dictIndex.filter, omitFirstIndex.filter)
// keeps the bit of the words whose four bytes are x: word w, bit b.
func filterBit(x uint32) (w uint32, b uint64) {
	h := x * dictMul
	return h >> 22, 1 << (h >> 16 & 63)
}

// dictKey is the bucket of dictIndex.heads for the words whose four bytes
// are x.
func dictKey(x uint32) uint32 { return x * dictMul >> (32 - dictKeyBits) }

var (
	dictOnce  sync.Once
	dictTable *dictIndex
)

// getDictIndex returns the index, building it the first time.
func getDictIndex() *dictIndex {
	dictOnce.Do(func() {
		if len(dictionary) != dictSize {
			panic("brotli: dictionary.bin is not RFC 7932's dictionary (go test -run TestDictionaryBin -update writes it)")
		}
		dictTable = newWordIndex()
	})
	return dictTable
}

// newWordIndex indexes every word by its first four bytes: the index of
// the identity and omit-last searches.
func newWordIndex() *dictIndex {
	t := &dictIndex{}
	all := wordEntries(dictKeyBits, 0)
	t.pre = make([]uint64, len(all))
	t.ent = make([]uint16, len(all))
	k := 0
	for key := range uint32(1 << dictKeyBits) {
		t.heads[key] = uint16(k)
		for k < len(all) && all[k].key == key {
			t.pre[k], t.ent[k] = all[k].pre, uint16(all[k].v)
			w, b := filterBit(uint32(all[k].pre))
			t.filter[w] |= b
			k++
		}
	}
	t.heads[1<<dictKeyBits] = uint16(k)
	return t
}

// wordEntry is a word as an index lists it: key, the hash of the four
// bytes after the word's first skip (keyBits of them); pre, the
// dictionary's eight bytes from there; v, skip<<16 | length<<11 | index.
type wordEntry struct {
	key uint32
	pre uint64
	v   uint32
}

// wordEntries lists, for each of skips, the words of at least
// skip+minWordLen bytes by the four bytes after their first skip: by
// key, then by those four bytes, then by skip, then longest first (a
// word that matches whole beats a shorter one), then by index.
func wordEntries(keyBits int, skips ...int) []wordEntry {
	var all []wordEntry
	for _, skip := range skips {
		for l := skip + minWordLen; l <= maxWordLen; l++ {
			for idx := range 1 << dictBits[l] {
				// The last words are 24 bytes long: 8 bytes from skip
				// are in the dictionary.
				x8 := load64(dictionary, int(dictOffset[l])+l*idx+skip)
				key := uint32(x8) * dictMul >> (32 - keyBits)
				all = append(all, wordEntry{key, x8, uint32(skip<<16 | l<<11 | idx)})
			}
		}
	}
	slices.SortFunc(all, func(a, b wordEntry) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		if uint32(a.pre) != uint32(b.pre) {
			return cmp.Compare(uint32(a.pre), uint32(b.pre))
		}
		if a.v>>16 != b.v>>16 {
			return int(a.v>>16) - int(b.v>>16)
		}
		if a.v>>11&31 != b.v>>11&31 {
			return int(b.v>>11&31) - int(a.v>>11&31)
		}
		return int(a.v) - int(b.v)
	})
	return all
}

// omitFirst[k] is the transform (RFC 7932 appendix B) that writes a word
// without its first k bytes and adds nothing: OmitFirst1 is transform 3,
// OmitFirst2 11, and so on; the format has none for 8, and 0 here means
// none. TestOmitFirst checks each through both decoders.
var omitFirst = [10]uint8{1: 3, 2: 11, 3: 26, 4: 34, 5: 39, 6: 40, 7: 55, 9: 54}

// omitFirstIndex holds the words of every omit-first transform (each k
// that omitFirst has) by their four bytes after the first k, as
// dictIndex holds the words by their first four: a key hashed from the
// four bytes selects pre[heads[key]:heads[key+1]] and ent[...], grouped
// by the four bytes, then by k (a run), longest first. ent packs the
// run's length<<20 | k<<16 | length<<11 | index: a search tries the
// first words of a run and goes on to the next run. One lookup finds the
// words of every k, where an index per k took eight at each position
// (offerOmitFirst's 298,000 lookups on the 95 KB JSON at 11).
type omitFirstIndex struct {
	filter [1 << 16 / 64]uint64
	heads  [1<<omitKeyBits + 1]uint32
	pre    []uint64
	ent    []uint32
}

// omitKeyBits sizes omitFirstIndex.heads: about 100,000 words, one or
// two to a key.
const omitKeyBits = 16

var (
	omitFirstOnce  sync.Once
	omitFirstTable omitFirstIndex
)

// getOmitFirstIndex returns the omit-first transforms' index, building
// it the first time (by the encoders of quality 11, which search it).
func getOmitFirstIndex() *omitFirstIndex {
	omitFirstOnce.Do(func() {
		getDictIndex() // checks dictionary.bin
		var skips []int
		for k, tr := range omitFirst {
			if tr != 0 {
				skips = append(skips, k)
			}
		}
		all := wordEntries(omitKeyBits, skips...)
		t := &omitFirstTable
		t.pre = make([]uint64, len(all))
		t.ent = make([]uint32, len(all))
		k := 0
		for key := range uint32(1 << omitKeyBits) {
			t.heads[key] = uint32(k)
			for k < len(all) && all[k].key == key {
				run := k + 1
				for run < len(all) && all[run].key == key && uint32(all[run].pre) == uint32(all[k].pre) && all[run].v>>16 == all[k].v>>16 {
					run++
				}
				if run-k >= 1<<12 {
					panic("brotli: an omit-first run too long for omitFirstIndex.ent")
				}
				for ; k < run; k++ {
					t.pre[k], t.ent[k] = all[k].pre, uint32(run-k)<<20|all[k].v
					w, b := filterBit(uint32(all[k].pre))
					t.filter[w] |= b
				}
			}
		}
		t.heads[1<<omitKeyBits] = uint32(k)
	})
	return &omitFirstTable
}

// searchDict finds the best static dictionary reference at data[i:] of
// at most maxLen bytes that scores above minScore, trying the first
// q.dictDepth words that start with data[i:i+4]; l is 0 when there is
// none. reach is the largest backward distance the decoder allows at i
// (max distance in RFC 7932); perByte weighs a byte copied in the score,
// as the match finder's own scores do. A word matches when its first l
// bytes equal the input, l >= 4 and at most maxCut bytes of it are left
// over (cut): the identity transform codes a whole word, an omit-last
// one a prefix. The copy length coded is the word's length, l+cut; the
// distance d says which word and transform, and is scored like a
// backward distance.
//
// When fewer than one search in 64 has found a reference, the stream's
// data is not text the dictionary knows, and the rest of it is not
// searched (searching would only cost time); dictOpen says whether the
// searches go on.
func (e *encoder) searchDict(data []byte, i, maxLen int, reach uint32, perByte, minScore int) (l int, d uint32, score, cut int) {
	e.dictSearches++
	t := e.dict
	x := load32(data, i)
	if w, b := filterBit(x); t.filter[w]&b == 0 {
		e.dictOn = e.dictOpen()
		return 0, 0, 0, 0
	}
	key := dictKey(x)
	k, hi := int(t.heads[key]), int(t.heads[key+1])
	pre, ent := t.pre[:hi], t.ent[:hi]
	for k < hi && uint32(pre[k]) != x {
		k++
	}
	score = minScore
	// Every reference's distance is above reach, so none costs less than
	// floor in the score: a word whose bytes could not beat the score
	// even at that cost is passed over before its distance is worked
	// out, and since a group lists its words longest first, the first
	// word too short to beat it ends the search (on the 2 KB JSON at
	// quality 6 the search took 12% of the instructions, most of them
	// for words that could not win).
	floor := 4*bits.Len32(reach+1) + 16
	// The input has 8 bytes at i (the match finders search no closer to
	// the end), and so has the dictionary at every word's start: the
	// last word is 24 bytes long.
	x8 := load64(data, i)
	for end := min(hi, k+e.q.dictDepth); k < end && uint32(pre[k]) == x; k++ {
		v := ent[k]
		wl := int(v >> 11)
		n := min(wl, maxLen)
		if perByte*n-floor <= score {
			break
		}
		m := 8
		if y := pre[k] ^ x8; y != 0 {
			m = bits.TrailingZeros64(y) / 8
		} else {
			o := int(dictOffset[wl&31]) + wl*int(v&(1<<11-1))
			for m < n && dictionary[o+m] == data[i+m] {
				m++
			}
		}
		m = min(m, n)
		c := wl - m
		if c > maxCut || perByte*m-floor <= score {
			continue
		}
		dd := dictDistance(reach, wl, int(v&(1<<11-1)), omitLast[c])
		if s := perByte*m - 4*bits.Len32(dd) - 16; s > score {
			l, d, score, cut = m, dd, s, c
		}
	}
	if l > 0 {
		e.dictHit++
	}
	e.dictOn = e.dictOpen()
	return l, d, score, cut
}

// dictFiltered reports whether the dictionary's filter rules out every
// word that starts with the four bytes x, and then counts the search as
// searchDict would have. Most searches end there (7 in 8 on jquery at
// quality 6): tested in line, before the call, they spare the finder
// the call's saving and reloading of its values.
func (e *encoder) dictFiltered(x uint32) bool {
	if w, b := filterBit(x); e.dict.filter[w]&b != 0 {
		return false
	}
	e.dictSearches++
	e.dictOn = e.dictOpen()
	return true
}

// lookup returns where the words whose first four bytes are x start in
// t.pre and t.ent, and where their key's entries end; k == hi when there
// are none. (searchDict, the search of qualities 4-9, does the same in
// line and returns at once when the filter misses: through this call the
// 2 KB JSON took 3.2% more instructions at 4 and 2.4% at 6, by
// cachegrind's count of BenchmarkEncode, where its margin over Google's
// encoder is thin.)
func (t *dictIndex) lookup(x uint32) (k, hi int) {
	if w, b := filterBit(x); t.filter[w]&b == 0 {
		return 0, 0
	}
	key := dictKey(x)
	k, hi = int(t.heads[key]), int(t.heads[key+1])
	for k < hi && uint32(t.pre[k]) != x {
		k++
	}
	return k, hi
}

// dictOpen says whether the stream's searches of the dictionary go on:
// not once fewer than one in 64 has found a reference, after the first
// dictSample searches (a text may open with what no word matches: the
// GPL's centred title in capitals and its date made 64 searches miss, and
// quality 11 then made no reference in the rest, 15% larger than Google's
// encoder).
func (e *encoder) dictOpen() bool {
	return e.dictSearches < dictSample || e.dictHit >= e.dictSearches>>6
}

// dictSample is how many searches dictOpen waits for before it judges:
// about 4 KB of text at qualities 10-11, which search nearly every
// position, and more at 4-9, which search where no copy was found. On
// random bytes a search costs a load and a test (the filter), so waiting
// costs little.
const dictSample = 4096

// refLengths gathers the static dictionary references found at one
// position for the optimal parser (qualities 10-11): for each length
// written, the one with the smallest distance, which codes with the
// fewest extra bits. The parser prices every length apart: a shorter
// reference can cost fewer bits than the longest, and leave a cheaper
// command to follow it.
type refLengths struct {
	dist [maxRefLen + 1]uint32 // 0: none of that length
	cut  [maxRefLen + 1]int8
	top  int
	// minLen is the shortest reference the parser will take at the
	// position (one byte longer than its longest copy, which costs
	// less): the searches skip the words that can give none as long.
	// On the 95 KB JSON at 11 most positions searched have a copy of
	// 4 bytes or more.
	minLen int
}

// maxRefLen bounds the bytes one reference writes: the longest word with
// the longest prefix and suffix of wordTransforms (TestRefLengthBound).
const maxRefLen = 40

// offer notes a reference writing n bytes at distance d, whose word is
// n+cut bytes long.
func (r *refLengths) offer(n int, d uint32, cut int) {
	if r.dist[n] == 0 || d < r.dist[n] {
		r.dist[n], r.cut[n] = d, int8(cut)
		r.top = max(r.top, n)
	}
}

// appendTo appends the references of minLen bytes and more to out,
// shortest first, and forgets them all.
func (r *refLengths) appendTo(out []optMatch, minLen int, all bool) []optMatch {
	for n := minWordLen; n <= r.top; n++ {
		if d := r.dist[n]; d != 0 && n >= minLen && (all || n == r.top) {
			out = append(out, optMatch{len: uint32(n), dist: d, cut: uint8(r.cut[n]), dict: true})
		}
		r.dist[n] = 0
	}
	r.top = 0
	return out
}

// offerWords offers r the references at data[i:] (at most maxLen bytes)
// of the first q.dictDepth words that start with data[i:i+4], through the
// identity and omit-last transforms: a word whose first m bytes match
// gives every prefix of it, at least minWordLen bytes long, that leaves
// at most maxCut of it; a word that matches whole gives too the
// transforms of wordTransforms' empty prefix that add a suffix (the same
// words as searchWords would walk for them, which it leaves to this
// walk). reach is as for searchDict, and so is the count of searches that
// found a word (dictOpen).
func (e *encoder) offerWords(data []byte, i, maxLen int, reach uint32, r *refLengths) {
	e.dictSearches++
	x8 := load64(data, i)
	x := uint32(x8)
	k, hi := e.dict.lookup(x)
	pre, ent := e.dict.pre[:hi], e.dict.ent[:hi]
	hit := false
	sfx := &suffixLists[0][0]
	for end := min(hi, k+e.q.dictDepth); k < end && uint32(pre[k]) == x; k++ {
		v := ent[k]
		wl, idx := int(v>>11), int(v&(1<<11-1))
		// A word too short for r.minLen even with the longest suffix
		// offers nothing the parser takes, nor do the shorter ones after
		// it; once a word has matched (a hit for dictOpen, which the
		// searches must count as before) the walk ends there.
		useless := wl+int(sfx.longest) < r.minLen
		if useless && hit {
			break
		}
		n := min(wl, maxLen)
		// The first eight bytes from pre, as searchDict does.
		m := 8
		if y := pre[k] ^ x8; y != 0 {
			m = bits.TrailingZeros64(y) / 8
		} else {
			o := int(dictOffset[wl&31]) + wl*idx
			for m < n && dictionary[o+m] == data[i+m] {
				m++
			}
		}
		m = min(m, n)
		if m < wl-maxCut {
			continue
		}
		hit = true
		if useless {
			break
		}
		for l := max(minWordLen, wl-maxCut, r.minLen); l <= m; l++ {
			r.offer(l, dictDistance(reach, wl, idx, omitLast[wl-l]), wl-l)
		}
		if m == wl {
			// The word whole with a suffix: searchWords leaves these
			// words to this walk, which has found them.
			offerSuffixes(data, i, i, wl, idx, maxLen, reach, sfx, r)
		}
	}
	if hit {
		e.dictHit++
	}
	e.dictOn = e.dictOpen()
}

// headEqual reports whether the first min(n, 8) bytes of the eight in
// pre (a dictIndex's) and x8 (the input's) are the same: one compare in
// a register instead of a call that compares slices, which most words
// tried at a position fail within their first eight bytes.
func headEqual(pre, x8 uint64, n int) bool {
	y := pre ^ x8
	if n < 8 {
		y &= 1<<(8*n) - 1
	}
	return y == 0
}

// offerOmitFirst offers r the references at data[i:] (at most maxLen
// bytes) of the omit-first transforms: for each k that omitFirst has, the
// first q.omitDepth words whose bytes after the first k start with
// data[i:i+4], each matched whole; the copy length coded is the word's
// length, so cut is k.
func (e *encoder) offerOmitFirst(data []byte, i, maxLen int, reach uint32, r *refLengths) {
	t := e.omit
	x8 := load64(data, i)
	x := uint32(x8)
	if w, b := filterBit(x); t.filter[w]&b == 0 {
		return
	}
	key := x * dictMul >> (32 - omitKeyBits)
	j, hi := int(t.heads[key]), int(t.heads[key+1])
	pre, ent := t.pre[:hi], t.ent[:hi]
	for j < hi && uint32(pre[j]) != x {
		j++
	}
	for j < hi && uint32(pre[j]) == x {
		// A run: the words of one k, longest first. (ent holds, at
		// each word, how many are left in its run.)
		next := j + int(ent[j]>>20)
		for end := min(next, j+e.q.omitDepth); j < end; j++ {
			v := ent[j]
			k, wl, idx := int(v>>16&15), int(v>>11&31), int(v&(1<<11-1))
			n := wl - k
			if n < r.minLen {
				break // and so are the rest of the run (r.minLen)
			}
			if n > maxLen || !headEqual(pre[j], x8, n) ||
				n > 8 && string(data[i+8:i+n]) != string(dictWord(wl, idx)[k+8:]) {
				continue
			}
			r.offer(n, dictDistance(reach, wl, idx, omitFirst[k]), k)
		}
		j = next
	}
}
