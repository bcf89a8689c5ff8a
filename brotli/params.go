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
	// ModeText is for UTF-8 text. It is recorded as the literal context
	// mode; until literal context modeling lands it codes like ModeGeneric.
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
}

// The qualities implemented so far. Each has its own match finder settings
// (see the README); the others are refused with ErrQuality rather than
// mapped silently onto one of these.
const (
	MinQuality = 0
	MaxQuality = 4
)

// ErrQuality is returned for a quality outside MinQuality..MaxQuality.
var ErrQuality = errors.New("brotli: quality not implemented by this encoder")

// errWindow is returned for an LGWin outside 10..24.
var errWindow = errors.New("brotli: window must be 10 to 24 bits")

// quality holds the settings of one quality level.
type quality struct {
	hashBits  uint // log2 of the number of hash buckets
	ways      int  // positions kept per bucket
	hashLen   uint // bytes hashed: 5 or 6 (the greedy loop of qualities 0-1 is written for 6)
	lazy      bool // try the next position before taking a match
	skipShift uint // misses before the search step grows by one; 0 never grows
	fillStep  int  // every fillStep-th position inside a match enters the table; 0 none
	blockBits uint // log2 of the meta-block length
}

var qualities = [MaxQuality + 1]quality{
	0: {hashBits: 15, ways: 1, hashLen: 6, skipShift: 5, blockBits: 16},
	1: {hashBits: 16, ways: 1, hashLen: 6, skipShift: 5, fillStep: 2, blockBits: 17},
	2: {hashBits: 16, ways: 1, hashLen: 5, lazy: true, skipShift: 6, fillStep: 1, blockBits: 17},
	3: {hashBits: 16, ways: 2, hashLen: 5, lazy: true, skipShift: 7, fillStep: 1, blockBits: 17},
	4: {hashBits: 16, ways: 4, hashLen: 5, lazy: true, skipShift: 8, fillStep: 1, blockBits: 18},
}

// normalize checks o and fills in defaults.
func (o Options) normalize() (Options, error) {
	if o.Quality < MinQuality || o.Quality > MaxQuality {
		return o, fmt.Errorf("%w: %d (this version implements %d to %d)", ErrQuality, o.Quality, MinQuality, MaxQuality)
	}
	if o.LGWin == 0 {
		o.LGWin = 22
	}
	if o.LGWin < 10 || o.LGWin > 24 {
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
