package brotli

import (
	"errors"
	"fmt"
)

// Mode tells the encoder what kind of data it compresses, as in Google's
// encoder.
type Mode int

const (
	// ModeGeneric makes no assumption about the data.
	ModeGeneric Mode = iota
	// ModeText is for UTF-8 text. Qualities 5 and up model literals by
	// their UTF-8 context in every mode but font; the mode is accepted for
	// the API's sake and codes like ModeGeneric.
	ModeText
	// ModeFont is for WOFF 2.0 and other font data: distances are coded
	// with NPOSTFIX 1 and NDIRECT 12, which suits the 2- and 4-byte
	// alignment of font tables.
	ModeFont
)

// Options configure an encoder.
type Options struct {
	// Quality is 0 (fastest) to 11 (densest); see MinQuality and
	// MaxQuality for the ones this version implements.
	Quality int
	// LGWin is the base-2 logarithm of the sliding window, 10 to 24; 0
	// means 22. The stream header declares the window, and no distance
	// reaches farther, so a decoder never needs more memory than that.
	LGWin int
	// SizeHint, when positive, is the expected length of the whole body
	// (Content-Length). The streaming Writer declares the smallest window
	// that holds it (never more than LGWin) and sizes its hash table to it.
	SizeHint int
	// Mode is the kind of data.
	Mode Mode
	// Dictionary, when set, is a raw dictionary that the decoder holds
	// too (RFC 9842's shared dictionaries, Google's decoder's
	// BROTLI_SHARED_DICTIONARY_RAW): the stream may copy from it as if it
	// came just before the stream's first byte, and a decoder must be
	// given the same bytes to decode it (NewDictionary prepares it, once
	// for any number of encoders). Encode, the Writer and the first piece
	// of EncodeSegment copy from it; later pieces do not, but code their
	// static dictionary references as a decoder that holds it reads them.
	Dictionary *Dictionary
}

// MaxDictionary bounds a Dictionary: distances into it and past it
// into the static dictionary stay within what the format codes (64 MiB)
// with a 16 MiB window.
const MaxDictionary = 16 << 20

// The qualities implemented so far. Each has its own match finder settings
// (see the README); the others are refused with ErrQuality rather than
// mapped silently onto one of these.
const (
	MinQuality = 0
	MaxQuality = 11
)

// ErrQuality is returned for a quality outside MinQuality..MaxQuality.
var ErrQuality = errors.New("brotli: quality not implemented by this encoder")

// The windows RFC 7932 codes: Options.LGWin's range.
const (
	MinLGWin = 10
	MaxLGWin = 24
)

// errWindow is returned for an LGWin outside MinLGWin..MaxLGWin.
var errWindow = errors.New("brotli: window must be 10 to 24 bits")

// quality holds the settings of one quality level.
type quality struct {
	hashBits  uint // log2 of the number of hash buckets
	ways      int  // positions kept per bucket
	hashLen   uint // bytes hashed: 5 or 6 (findFast is written for 6)
	fast      bool // findFast: one way, 6-byte hashes, greedy
	copyTail  int  // findFast: the last positions of each copy entered in the table, 2 or 5
	lazyLoop  bool // findLazy: one or two ways, 5-byte hashes, lazy, every position filled, no dictionary
	skipShift uint // misses before the search step grows by one; 0 never grows (fast: fastSkip, at quality 0 one less; deep: sparseStep)
	blockBits uint // log2 of the meta-block length
	// Qualities 5 and up (deep): buckets kept as rings of ways positions,
	// searched newest first; the distances the decoder holds tried first
	// (ringCands of them: 4 = the ring, 10 = also the last ±1..3, 16 =
	// also the second to last ±1..3; quality 8 takes 10, the others 4: the
	// neighbours cost 7 and 9 a tenth of their time for 0.1-0.3% of
	// size); up to lazySteps positions tried ahead of a match shorter than
	// niceLen; literals coded with context-modeled trees (at most
	// maxTrees) and split into blocks.
	deep      bool
	ringCands int
	lazySteps int
	niceLen   int
	// The search ahead of a match (lazySteps; quality 4: one step; 2 and 3
	// have findLazy's) is made only while the match is shorter than
	// lazyBelow, and looks at the lazyWays newest positions of its bucket
	// (0: all of them).
	lazyBelow int
	lazyWays  int
	maxTrees  int
	// staticCtx: the UTF8 context ids grouped into trees by a fixed map
	// (staticMap) rather than by clustering, for meta-blocks of at least
	// minStaticLiterals literals.
	staticCtx bool
	// Block types for insert-and-copy symbols and for distances.
	cmdTypes, distTypes int
	// Qualities 10 and up: block types for literals (at most litTypes,
	// 0 for one), and rounds of moving block boundaries symbol by symbol
	// (refineSplit), the first wide of them with up to wideTypes types.
	litTypes int
	refine   int
	wide     int
	// typedCosts: a pass learning from the last prices literals by the
	// block types its literals split into (typedLiteralCosts); at 11,
	// whose second pass learns from a first of guessed costs, it made the
	// corpus 0.03% larger.
	typedCosts bool
	rounds     int // k-means rounds per cluster added (clusterer)
	// distParams (qualities 10-11): each meta-block's NPOSTFIX is chosen
	// for its distances (chooseDistParams); otherwise 0, or font mode's.
	distParams bool
	// lookahead: how many clusters in a row that do not pay the
	// clusterer adds before it stops (clusterer.lookahead). At 11 one
	// took 0.13% off the small sample beyond the corpus and 41 bytes off
	// the corpus for no measurable time; at 5-6 the same cost 0.9% more
	// instructions for 0.02% of the corpus.
	lookahead int
	// dictDepth is how many static dictionary words with the input's
	// first four bytes are tried where no backward match is found; 0
	// never.
	dictDepth int
	// dictBelow (qualities 5 and up): the dictionary is searched where
	// the best backward match is shorter than this.
	dictBelow int
	// allRefs (qualities 10-11): the optimal parser is offered every
	// length of static dictionary reference found at a position, each at
	// its smallest distance (refLengths), not the longest alone: 0.1%
	// smaller over the corpus at 11; at 10, whose one pass prices them
	// with a quick parse's costs, the CSS file came out 0.8% larger.
	allRefs bool
	// omitDepth (with allRefs): the words tried per omit-first transform
	// (RFC 7932's OmitFirst1-7 and 9, a word without its first bytes),
	// the longest first; 0: those transforms are not searched. Over the
	// corpus at 11, 4 came out as small as 64 (245,864 and 245,904 bytes,
	// against 246,167 without them) in a fraction of the time.
	omitDepth int
	// dictSpan is how far into a stream the dictionary is searched; 0:
	// all of it. Its words matter most where the window has little
	// history (small bodies, a body's start), and its searches cost a
	// large body's encoding a fifth to a third more time for 1-2% of size
	// at quality 4. At 6 they cost 3-4% of the time for 0.9% of size on
	// text beyond the corpus (brotli README, "Beyond the corpus"), so 6
	// searches throughout.
	dictSpan uint32
	// Qualities 10 and up (optimal): every position searched in a binary
	// tree (hashBits of roots) down to treeDepth nodes, matches up to
	// niceLen bytes; passes of the shortest-path parse, each trying
	// copies after the starts best places to begin a run of literals.
	optimal   bool
	treeDepth int
	passes    int
	starts    int
	// nearPairs (optimal): in text whose characters are mostly several
	// bytes long in UTF-8 (multiByteText, judged per piece the parse
	// takes at once), positions where the tree has no copy of 3 bytes or
	// more are also offered a copy from the nearest of the nearPairs
	// positions before them that hold the same next 2 bytes (collect,
	// nearCopy); 0: never.
	nearPairs int
}

var qualities = [MaxQuality + 1]quality{
	0:  {fast: true, hashBits: fastBits, ways: 1, hashLen: 6, copyTail: 2, blockBits: 17},
	1:  {fast: true, hashBits: fastBits, ways: 1, hashLen: 6, copyTail: 5, blockBits: 17},
	2:  {hashBits: 16, ways: 1, hashLen: 5, lazyLoop: true, skipShift: 6, blockBits: 17},
	3:  {hashBits: 16, ways: 2, hashLen: 5, lazyLoop: true, skipShift: 7, blockBits: 17},
	4:  {hashBits: 16, ways: 4, hashLen: 5, skipShift: 8, blockBits: 18, lazyBelow: 10, dictDepth: 32, dictSpan: 32 << 10},
	5:  {staticCtx: true, rounds: 1, hashBits: 14, ways: 16, hashLen: 4, blockBits: 18, deep: true, ringCands: 4, lazySteps: 1, niceLen: 48, lazyBelow: 24, lazyWays: 8, maxTrees: 16, cmdTypes: 8, distTypes: 8, dictDepth: 32, dictBelow: minMatch, dictSpan: 32 << 10},
	6:  {staticCtx: true, rounds: 1, hashBits: 14, ways: 32, hashLen: 4, blockBits: 18, deep: true, ringCands: 4, lazySteps: 2, niceLen: 64, lazyBelow: 16, lazyWays: 8, maxTrees: 16, cmdTypes: 8, distTypes: 8, dictDepth: 32, dictBelow: minMatch},
	7:  {rounds: 2, hashBits: 15, ways: 64, hashLen: 4, blockBits: 18, deep: true, ringCands: 4, lazySteps: 2, niceLen: 96, lazyBelow: 24, lazyWays: 16, maxTrees: 16, cmdTypes: 8, distTypes: 8, dictDepth: 32, dictBelow: minMatch},
	8:  {rounds: 2, hashBits: 15, ways: 64, hashLen: 4, blockBits: 18, deep: true, ringCands: 10, lazySteps: 3, niceLen: 128, lazyBelow: 32, lazyWays: 16, maxTrees: 16, cmdTypes: 8, distTypes: 8, dictDepth: 32, dictBelow: minMatch},
	9:  {rounds: 2, hashBits: 15, ways: 128, hashLen: 4, blockBits: 18, deep: true, ringCands: 4, lazySteps: 4, niceLen: 192, lazyBelow: 192, maxTrees: 16, cmdTypes: 8, distTypes: 8, dictDepth: 32, dictBelow: 10},
	10: {rounds: 3, lookahead: 1, distParams: true, hashBits: 17, hashLen: 4, blockBits: 21, deep: true, optimal: true, treeDepth: 64, niceLen: 150, passes: 1, starts: 1, maxTrees: 16, cmdTypes: 8, distTypes: 8, litTypes: 8, refine: 10, wide: 1, typedCosts: true, dictDepth: 32, dictBelow: 16},
	11: {rounds: 3, lookahead: 1, distParams: true, hashBits: 17, hashLen: 4, blockBits: 21, deep: true, optimal: true, treeDepth: 64, niceLen: 325, passes: 3, starts: 3, nearPairs: 8, maxTrees: 16, cmdTypes: 8, distTypes: 16, litTypes: 8, refine: 10, wide: 2, dictDepth: 64, dictBelow: 32, allRefs: true, omitDepth: 4},
}

// normalize checks o and fills in defaults.
func (o Options) normalize() (Options, error) {
	if o.Quality < MinQuality || o.Quality > MaxQuality {
		return o, fmt.Errorf("%w: %d (this version implements %d to %d)", ErrQuality, o.Quality, MinQuality, MaxQuality)
	}
	if o.LGWin == 0 {
		o.LGWin = 22
	}
	if o.LGWin < MinLGWin || o.LGWin > MaxLGWin {
		return o, fmt.Errorf("%w: %d", errWindow, o.LGWin)
	}
	if o.Mode < ModeGeneric || o.Mode > ModeFont {
		return o, fmt.Errorf("brotli: unknown mode %d", o.Mode)
	}
	return o, nil
}

// windowFor is the smallest window of at least 10 bits, at most lgwin,
// that holds n bytes.
func windowFor(n, lgwin int) int {
	w := 10
	for w < lgwin && 1<<w-16 < n {
		w++
	}
	return w
}

// variant is a type parameter that has a function compiled twice, once
// for [1]byte and once for [0]byte (two GC shapes, so two bodies): the
// function tests len of a zero value of it, a constant in each body, and
// the branches for the other case are compiled out of its loops.
type variant interface{ [0]byte | [1]byte }
