package brotli

import "math/bits"

// lazyBucket is a bucket of findLazy's table: each size is compiled apart
// (its own GC shape), so that the loop has no test of the size.
type lazyBucket interface{ [1]uint32 | [2]uint32 }

// findLazy is the match finder of qualities 2 and 3: buckets of one or
// two positions (B), 5-byte hashes, one step of lazy matching below
// lazyBelow, and every position of a copy entered in the table (of a long
// copy the first fillHead and the last fillTail). It chooses each
// command's symbols as it finds the command and returns the meta-block's
// extra bits. Candidates are scored as search scores them for quality 4,
// and the lazy step is findMatches', but in one loop whose every turn
// probes one position: a match shorter than lazyBelow waits a turn
// (pending), and the next position's probe decides whether it or the
// match one byte later is taken. Most matches here are short, so one
// probe serves the search and the lazy step alike. No match starts in the
// last 12 bytes, which the probe reads.
func findLazy[B lazyBucket](e *encoder, w *window, start int) (extraBits int) {
	if w.rawEnd != 0 {
		return findLazyIn[B, [1]byte](e, w, start)
	}
	return findLazyIn[B, [0]byte](e, w, start)
}

// findLazyIn is findLazy compiled for data with a raw dictionary before
// the stream ([1]byte) or without ([0]byte), as findFastIn.
func findLazyIn[B lazyBucket, R variant](e *encoder, w *window, start int) (extraBits int) {
	var bucket B
	two := len(bucket) == 2
	var r R
	raw := len(r) == 1
	data := w.data[:w.end]
	table := e.table
	hs := e.hashShift & 63
	base, maxDist := w.base, e.maxDist
	// Table entries of earlier streams are more than maxDist back (claim),
	// so a candidate is tested by its distance alone. last is the
	// decoder's last distance, or 0 (never valid) when it is unknown or
	// reaches before the stream at start.
	last := uint32(0)
	if d := e.ring.d[0]; e.ring.known > 0 && int64(d) <= int64(start)-max(int64(w.streamA)-int64(base), 0) {
		last = d
	}
	skip := e.q.skipShift & 63
	// A match waits for the next probe while shorter than lazyBelow:
	// lazyMax at quality 2, 8 at quality 3 (buckets of two), where the
	// wait cost more than the longer matches saved (a constant of each
	// compiled loop: a value read from the quality cost quality 2 2%
	// more instructions).
	lazyBelow := lazyMax
	if two {
		lazyBelow = 8
	}
	z := e.symbolizer()
	syms := e.syms[:0]
	lit, i, misses := start, start, 0
	// Every probe reads the 12 bytes at i (quickLen).
	limit := len(data) - quickMax
	// A match at i-1 that waits for the probe at i, packed in one word
	// (the loop has more live values than registers): its distance, its
	// length (below lazyBelow) and its score (positive, below 2^16); 0 when
	// none waits.
	var pending uint64
	for i <= limit {
		// The probe: the last distance and the bucket's positions, scored
		// as search scores them; i enters the bucket.
		x := load64(data, i)
		h := int(x * hashMul5 >> hs)
		abs := base + uint32(i)
		n := len(data) - i - minMatch
		var l, sc int
		var d uint32
		if last-1 < maxDist {
			if m := quickLen(data, i, last, x); m > 0 {
				if m == quickMax {
					m += matchLen(data, i-int(last)+quickMax, i+quickMax, n-quickMax+minMatch)
				}
				// A copy from a raw dictionary before the stream must end
				// in it (rawCap), here and below.
				if raw {
					m = w.rawCap(abs, last, m)
				}
				if m > 0 {
					l, d, sc = m, last, 22*m-8
				}
			}
		}
		var c0, c1 uint32
		if two {
			h <<= 1
			b := (*[2]uint32)(table[h : h+2])
			c0, c1 = b[0], b[1]
			b[0], b[1] = abs, c0
		} else {
			c0 = table[h]
			table[h] = abs
		}
		if c := abs - c0; c-1 < maxDist && c != last {
			if m := quickLen(data, i, c, x); m > 0 {
				if m == quickMax {
					m += matchLen(data, i-int(c)+quickMax, i+quickMax, n-quickMax+minMatch)
				}
				if raw {
					m = w.rawCap(abs, c, m) // 0 scores below any match
				}
				if s := 22*m - 4*bits.Len32(c) - 16; s > sc {
					l, d, sc = m, c, s
				}
			}
		}
		if c := abs - c1; two && c-1 < maxDist && c != last {
			if m := quickLen(data, i, c, x); m > 0 {
				if m == quickMax {
					m += matchLen(data, i-int(c)+quickMax, i+quickMax, n-quickMax+minMatch)
				}
				if raw {
					m = w.rawCap(abs, c, m) // 0 scores below any match
				}
				if s := 22*m - 4*bits.Len32(c) - 16; s > sc {
					l, d, sc = m, c, s
				}
			}
		}
		at := i
		switch {
		case pending != 0 && sc > int(pending&0xffff)+lazyMargin:
			// The match one byte later, after a literal more.
			e.litHist[data[i-1]]++
		case pending != 0:
			at, l, d = i-1, int(pending>>16&0xffff), uint32(pending>>32)
		case sc <= 0:
			// A position that starts no match is a literal: counted
			// here, as findFastIn's probes count theirs, rather than in
			// a loop over the command's literals (unprobe mends a run
			// crossed in steps).
			e.litHist[uint8(x)]++
			i += 1 + misses>>skip
			misses++
			continue
		case l < lazyBelow && i+1 <= limit:
			pending = uint64(d)<<32 | uint64(l)<<16 | uint64(sc)
			i++
			continue
		}
		pending, misses = 0, 0
		if f := lit + 1<<skip; at > f {
			unprobe(&e.litHist, data, f, at, skip)
			countLiterals(&e.litHist, data[f:at])
		}
		syms = append(syms, z.command(uint32(at-lit), uint32(l), 0, d, false))
		last = d
		// The copy's positions after those probed enter the table (of a
		// long copy the first fillHead and the last fillTail).
		end := min(at+l, limit+1)
		stop := min(at+fillHead, end)
		e.fillRun(data, base, i+1, stop)
		if tail := max(stop, end-fillTail); tail < end {
			e.fillRun(data, base, tail, end)
		}
		i = at + l
		lit = i
	}
	if lit < w.end {
		// The probes counted the literals they tested.
		f := min(i, lit+1<<skip)
		unprobe(&e.litHist, data, f, i, skip)
		countLiterals(&e.litHist, data[f:])
		syms = append(syms, z.tail(uint32(w.end-lit)))
	}
	e.syms, e.ring = syms, z.ring
	return z.extraBits
}

// quickMax is the longest match quickLen measures.
const quickMax = minMatch + 8

// quickLen is the length of the match at data[i] at distance c, up to
// quickMax (beyond which the caller measures on), or 0 when its first 4
// bytes, x's low 4, differ. It reads the 12 bytes at i.
func quickLen(data []byte, i int, c uint32, x uint64) int {
	if load32(data, i-int(c)) != uint32(x) {
		return 0
	}
	y := load64(data, i-int(c)+minMatch) ^ load64(data, i+minMatch)
	return minMatch + bits.TrailingZeros64(y)/8
}
