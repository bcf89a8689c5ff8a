package brotli

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// Raw dictionaries (Options.Dictionary). The dictionary comes before the
// stream in the match finder's data, as a segment's prefix does, and its
// positions enter the tables, so copies from it have their natural
// distances: for the decoder, a distance beyond the bytes the stream has
// produced (at most the window) reaches into the dictionary, as if it
// came just before the stream, while the stream is shorter than the
// window; after that the dictionary is out of reach, and the finders'
// reach (the window) keeps them from it. Three rules differ from a
// prefix: the decoder copies from the dictionary alone, so a copy that
// starts in it ends in it (rawCap, cutRawCopies); the static
// dictionary's distances start after the raw dictionary's length
// (window.dictReach); and the first literals' context is the two zeros
// of a stream's start, not the dictionary's last bytes
// (window.contextBytes).

// Dictionary is a raw (prefix) dictionary prepared for encoders
// (Options.Dictionary): its bytes and, made the first time an encoder at
// qualities 4-9 uses it, an index of them, which every encoder using the
// Dictionary shares, at once and read-only. A server builds one per
// dictionary and hands it to all its encoders; nothing of it is copied
// per encoder but the bytes, which each stream's history holds.
type Dictionary struct {
	data  []byte
	once  sync.Once
	table *rawTable
}

// NewDictionary prepares data as a raw dictionary: 1 to MaxDictionary
// bytes, kept, not copied (the caller must not change them).
func NewDictionary(data []byte) (*Dictionary, error) {
	if len(data) == 0 {
		return nil, errors.New("brotli: empty dictionary")
	}
	if len(data) > MaxDictionary {
		return nil, fmt.Errorf("brotli: dictionary over %d bytes", MaxDictionary)
	}
	return &Dictionary{data: data}, nil
}

// Len returns the dictionary's length in bytes.
func (d *Dictionary) Len() int { return len(d.data) }

// bytes returns d's bytes; none for a nil Dictionary.
func (d *Dictionary) bytes() []byte {
	if d == nil {
		return nil
	}
	return d.data
}

// index returns d's index, built on first use.
func (d *Dictionary) index() *rawTable {
	d.once.Do(func() { d.table = newRawTable(d.data) })
	return d.table
}

// rawCap bounds a copy of n bytes at absolute position abs from d back
// so that, if it starts in the raw dictionary, it ends there; 0 if what
// is left is shorter than minMatch. Without a dictionary in data it is n.
func (w *window) rawCap(abs, d uint32, n int) int {
	if src := abs - d; src < w.rawEnd && uint32(n) > w.rawEnd-src {
		if n = int(w.rawEnd - src); n < minMatch {
			return 0
		}
	}
	return n
}

// cutRawCopies makes every copy of e.cmds that starts in a raw dictionary
// before the stream (window.rawEnd) end in it, since the decoder copies
// from the dictionary alone. The match finders of qualities 4 and up do
// not bound their lengths so (those of 0-3 do, rawCap); a copy found
// running on into the stream is cut where the dictionary ends, and the
// rest, the stream's first bytes at the same distance, becomes a copy of
// its own. A piece shorter than two bytes, the shortest copy brotli
// codes, becomes literals.
func (e *encoder) cutRawCopies(w *window, start int) {
	if w.rawEnd == 0 {
		return
	}
	cuts := false
	p := w.base + uint32(start) // absolute position of the copy of the command at hand
	for _, c := range e.cmds {
		p += c.insert
		if w.crossesRaw(c, p) {
			cuts = true
			break
		}
		p += c.copy
	}
	if !cuts {
		return
	}
	out := e.rawCmds[:0]
	carry := uint32(0) // literals the next command takes over
	i := start         // index in data where the command at hand's own literals start
	for _, c := range e.cmds {
		at := i + int(c.insert) // index of the copy's first byte
		i = at + int(c.copy)
		c.insert += carry // the literals carried over come right before c's
		carry = 0
		if !w.crossesRaw(c, w.base+uint32(at)) {
			out = append(out, c)
			continue
		}
		// The bytes copied from the dictionary, and from the stream's start.
		head := w.rawEnd - (w.base + uint32(at) - c.dist)
		tail := c.copy - head
		switch {
		case head >= 2 && tail >= 2:
			out = append(out, command{insert: c.insert, copy: head, dist: c.dist},
				command{copy: tail, dist: c.dist})
		case head >= 2: // one byte left: a literal of the next command
			out = append(out, command{insert: c.insert, copy: head, dist: c.dist})
			carry = 1
			countLiterals(&e.litHist, w.data[at+int(head):i])
		case tail >= 2: // the dictionary's last byte as a literal
			out = append(out, command{insert: c.insert + 1, copy: tail, dist: c.dist})
			countLiterals(&e.litHist, w.data[at:at+1])
		default: // a copy of two bytes, one on each side: literals
			carry = c.insert + c.copy
			countLiterals(&e.litHist, w.data[at:i])
		}
	}
	if carry > 0 {
		out = append(out, command{insert: carry})
	}
	e.cmds, e.rawCmds = out, e.cmds
}

// crossesRaw reports whether command c, whose copy is at absolute
// position p, copies from a raw dictionary before the stream and on past
// its end.
func (w *window) crossesRaw(c command, p uint32) bool {
	src := p - c.dist
	return !c.dict && c.copy > 0 && src < w.rawEnd && src+c.copy > w.rawEnd
}

// rawIndex finds long copies from a raw dictionary: for each hash of 16
// bytes, the last rawWays positions in the dictionary that have it. The
// longer hash tells apart the many places that share a short string (a
// script's indentation and keywords), so that a few ways find the place
// a line came from. The match finders' buckets hold the dictionary's
// positions too, but share them with the stream's, which push the older
// dictionary positions out where the text repeats itself (a line of a
// script, found in the previous version of the script); Google's
// encoder, too, searches a dictionary apart from the window.
//
// The table depends on the dictionary alone and is built once, when an
// encoder at 4-9 first uses the Dictionary, then shared read-only by
// every encoder that uses it; a use adds where the dictionary sits in
// the encoder's positions.
type rawIndex struct {
	*rawTable
	start uint32 // absolute position of the dictionary's first byte
}

type rawTable struct {
	slots []uint32 // 1 + a position in the dictionary; 0: none
	shift uint
	n     int // the dictionary's length
}

const (
	rawHashLen = 16
	rawMul     = 0x9E3779B97F4A7C15
	rawMul2    = 0xC2B2AE3D27D4EB4F
	// Positions kept per hash, newest first.
	rawWaysLog = 2
	rawWays    = 1 << rawWaysLog
	// rawMaxBits bounds the index at 4M buckets (64 MiB) for the largest
	// dictionaries; below, a bucket per 4 to 8 of the dictionary's bytes
	// (4 to 8 bytes of index per byte).
	rawMaxBits = 22
)

// rawFillSpan is how much of a dictionary's end enters the match
// finders' tables, per stream, at qualities 0-9. Entering every position
// costs each stream about 2 ms per MiB of dictionary at 1-3 and 3 ms at
// 5 and 9, which any client of a server can ask for by naming the
// dictionary; the bound holds that to what 1 MiB costs. At 4-9 the index
// finds the long copies from the rest, and what is lost are the short
// ones from further back, which the tables, shared with the body's
// positions, keep least anyway; at 0-3, which search no index, copies
// reach the dictionary's last MiB only. At 10 and 11 the tree takes every
// position, which is slow for a large dictionary (the server compresses
// against a dictionary at 9 at most).
const rawFillSpan = 1 << 20

// rawFillFrom returns where, in a dictionary of n bytes, its positions
// start to enter the match finder: at 0-9 its last rawFillSpan bytes, at
// 10 and 11 all of it.
func (q *quality) rawFillFrom(n int) int {
	if q.optimal {
		return 0
	}
	return max(n-rawFillSpan, 0)
}

// indexesRaw reports whether the quality's match finder searches a raw
// dictionary's index: 4-9. At 0-3 the finders take copies from the
// dictionary their tables find; at 10-11 the tree keeps every position
// and finds them without it.
func (q *quality) indexesRaw() bool { return !q.fast && !q.lazyLoop && !q.optimal }

// newRawTable indexes dict.
func newRawTable(dict []byte) *rawTable {
	b := min(max(bits.Len(uint(len(dict)))-rawWaysLog, 8), rawMaxBits)
	x := &rawTable{slots: make([]uint32, rawWays<<b), shift: uint(64 - b), n: len(dict)}
	for a := 0; a+rawHashLen <= len(dict); a++ {
		h := x.bucket(dict, a)
		ways := (*[rawWays]uint32)(x.slots[h : h+rawWays])
		copy(ways[1:], ways[:rawWays-1])
		ways[0] = uint32(a + 1)
	}
	return x
}

// bucket is the index of the first slot of the bucket of data[i:].
func (x *rawTable) bucket(data []byte, i int) int {
	return int((load64(data, i)*rawMul^load64(data, i+8)*rawMul2)>>(x.shift&63)) << rawWaysLog
}

// rawMatch returns the longest copy from the dictionary its index offers
// at data[i]: its length (0 if none of minMatch bytes or more) and
// distance, at most maxLen bytes, within reach, and ending in the
// dictionary.
func (w *window) rawMatch(i, maxLen int, reach uint32) (bestLen int, bestDist uint32) {
	x := w.raw
	if i+rawHashLen > len(w.data) {
		return 0, 0
	}
	h := x.bucket(w.data, i)
	for _, s := range (*[rawWays]uint32)(x.slots[h : h+rawWays]) {
		if s == 0 {
			break
		}
		d := w.base + uint32(i) - (x.start + s - 1)
		j := i - int(d)
		if d-1 >= reach || j < 0 {
			continue
		}
		if l := matchLen(w.data, j, i, min(maxLen, x.n-int(s-1))); l > bestLen {
			bestLen, bestDist = l, d
		}
	}
	if bestLen < minMatch {
		return 0, 0
	}
	return bestLen, bestDist
}
