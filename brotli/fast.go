package brotli

import "math/bits"

const fastSkip = 5

// copyTail stands for how many of a copy's last positions findFast enters
// in the table, 2 (quality 0) or 5 (quality 1): each is compiled apart
// (its own GC shape), so that the loop neither tests nor keeps the
// number.
type copyTail interface{ [2]byte | [5]byte }

// findFast is the match finder of qualities 0 and 1: one position per
// bucket, 6-byte hashes, greedy. Most positions miss, so the probe is a
// loop of its own with few live values; and each command's symbols are
// chosen and counted as it is found, so that no symbolize pass follows.
// A repeated distance is coded only as the last one (distance code 0):
// the other ring codes saved 0.2% over the corpus at these qualities for
// a fifth of the instructions spent per command. It returns the number of
// extra bits of the meta-block's commands.
//
// After k<<fastSkip positions without a match (k<<(fastSkip-1) at
// quality 0) the search moves k+1 bytes at a time, so that data without
// matches is crossed quickly.
func findFast[T copyTail](e *encoder, w *window, start int) (extraBits int) {
	switch {
	case w.rawEnd != 0:
		return findFastIn[T, [1]byte](e, w, start)
	case e.hashShift != 64-fastBits:
		return findFastIn[T, [0]byte](e, w, start)
	case int(w.base+uint32(w.end)-w.streamA) > 1<<fastBits:
		return findFastIn[T, [3]byte](e, w, start)
	}
	return findFastIn[T, [2]byte](e, w, start)
}

// fastBits is the hash bits of qualities 0 and 1, unless a size hint
// takes fewer.
const fastBits = 16

// The whole table's probe loop indexes it by a uint16 (findFastIn): a
// change of fastBits must change that too, and fails to compile here.
var _ = [1]struct{}{}[fastBits-16]

// fastVariant is findFastIn's variant: data with a raw dictionary before
// the stream ([1]byte), or without, hashed into a table the size hint
// made smaller ([0]byte) or into the quality's whole table ([2]byte, and
// [3]byte once the stream is longer than the table has slots). A body
// without a dictionary then pays no instruction for rawCap, and one with
// the whole table shifts its hashes by a constant (x86 shifts by a
// variable only through CX, which the loops need for other values) into a
// table of a constant length, which then needs no bound check per probe
// or entry (2% of quality 1's instructions on jquery, 4% on react-dom).
//
// [3]byte tests a candidate with one branch where the others take two.
// A slot holds a recent position of this stream, in reach, or one of an
// earlier stream (claim) or beyond the window, out of it. Until the stream
// has entered about as many positions as the table has slots, most probes
// find an earlier stream's, and a branch on reach predicts well; beyond,
// the two mix, and folding the reach test into the byte test (a mask; a
// candidate out of reach reads at i and fails) took quality 1 a quarter
// less time on jquery (87 KB), 3-8% on the 95 KB JSON and react-dom, and
// cost 7-11% on 40 KB bodies, which stay on [2]byte. The variant is chosen
// per meta-block, by the stream's length at its end (brotli README, *One
// branch per probe*).
type fastVariant interface {
	[0]byte | [1]byte | [2]byte | [3]byte
}

// below is a mask: all ones when a < b, else 0 (the difference of the
// two, widened, is negative).
func below(a, b uint32) uint32 { return uint32((int64(a) - int64(b)) >> 63) }

// hashMul6 is hashMul<<16: x*hashMul6 is (x<<16)*hashMul, the hash of
// x's low 6 bytes, one shift fewer (the compiler keeps both otherwise).
const hashMul6 = hashMul << 16 & (1<<64 - 1)

// fastShift takes a hash's top fastBits bits: x*hashMul6>>fastShift is
// the hash of x's low 6 bytes, below 1<<fastBits.
const fastShift = 64 - fastBits

// fastSlot is hash h (x*hashMul6>>fastShift) as an index into
// findFastIn's table of mask+1 slots. A table the size hint made smaller
// (2,048 slots for a 2 KB body) takes the hash's low bits, masked: a shift
// by a constant, where one by the table's bits (a variable) held CX
// through the probe loop on x86, and with it a move a probe (brotli
// README, *A small table's hash by a constant shift*); the mask also
// tells the compiler the index is in bounds. The whole table's variants
// need no mask: there it cost jquery 5% more instructions at quality 1.
// fill enters a prefix's positions by the same slots.
func fastSlot[R fastVariant](h, mask uint64) uint64 {
	var r R
	if len(r) >= 2 {
		return h
	}
	return h & mask
}

// probeArgs is what findFastIn hands probeFastAsm (probe_amd64.s, whose
// offsets TestProbeArgsLayout checks): the loop's invariants, set once a
// call, and the position to probe from; it gives back the position of a
// candidate that passed the test, with its distance d, or a position
// past limit when none did. data holds at least limit+8 bytes, table
// mask+1 slots.
type probeArgs struct {
	data    *byte
	table   *uint32
	lh      *[256]uint32
	mask    uint64
	i       int
	limit   int
	base    uint32
	maxDist uint32
	d       uint32
	skip    uint32
}

// probeAsm says findFastIn runs the assembly probe loop where there is
// one (haveProbeAsm), for the [0]byte and [2]byte variants: a variable,
// so that the tests compare the two loops' output. A raw dictionary's
// variant tests rawCap; the [3]byte variant, long bodies, keeps the Go
// loop. In assembly its loop lost time on these cores twice: with the
// test of the reach and the bytes as two branches (28.0K simulated
// mispredictions a call on jquery against 18.3K), and as a loop of its
// own with the Go loop's one branch (8% fewer instructions on jquery and
// as many mispredictions, yet 4-10% slower on jquery, bootstrap and
// react-dom) (brotli README, *The probe loop in assembly*, *The probe
// loop's call made cheaper*).
var probeAsm = haveProbeAsm

// findFastIn is findFast compiled for one variant (fastVariant).
func findFastIn[T copyTail, R fastVariant](e *encoder, w *window, start int) (extraBits int) {
	data := w.data[:w.end]
	table := e.table
	var r R
	raw := len(r) == 1
	if len(r) >= 2 {
		_ = table[1<<fastBits-1] // the whole table, not past its length
		table = table[:1<<fastBits]
	}
	mask := uint64(len(table) - 1)
	_ = table[mask]
	base, maxDist := w.base, e.maxDist
	// Positions of earlier streams in the table are more than maxDist
	// back (claim), so a candidate is tested by its distance alone.
	// last is the decoder's last distance, or one never valid when the
	// ring is unknown: a copy found at that distance is coded with
	// distance code 0. It is only compared with copies found and checked,
	// never probed, so one that would reach before the stream needs no
	// guard: no such copy is found.
	last := ^uint32(0)
	if e.ring.known > 0 {
		last = e.ring.d[0]
	}
	var tail T
	tail5 := len(tail) == 5
	// Quality 0 moves on sooner in a run without matches.
	skip := fastSkip - 1
	if tail5 {
		skip = fastSkip
	}
	lh, ch, dh := &e.litHist, &e.cmdHist, &e.distHist
	plain := e.dist == distParams{}
	// The commands are appended to e.syms itself, not to a local slice:
	// its three words, live through the probe loop, were spilled and
	// reloaded on every probe's way back (brotli README, *Fewer values
	// through the probe loop*).
	e.syms = e.syms[:0]
	lit, i := start, start
	limit := len(data) - 8
	asm := probeAsm && (len(r) == 0 || len(r) == 2) && limit >= 0
	pa := &e.probe
	if asm {
		*pa = probeArgs{data: &data[0], table: &table[0], lh: lh, mask: mask, limit: limit,
			base: base, maxDist: maxDist, skip: uint32(skip)}
	}
	for i <= limit {
		var d uint32
		if asm {
			pa.i = i
			probeFastAsm(pa)
			if i = pa.i; i > limit {
				goto done
			}
			d = pa.d
			// The Go loop's bound check of the candidate's load, which the
			// assembly hands back rather than make.
			_ = data[i-int(d)]
		} else {
			x := load64(data, i)
			h := fastSlot[R](x*hashMul6>>fastShift, mask)
			cand := table[h]
			for misses := 0; ; misses++ {
				abs := base + uint32(i)
				// h is the slot of the probe before (hn): through the loop's
				// phi the compiler no longer knows it below the whole table's
				// length, and would test it at every store; a uint16 index it
				// knows to be (one MOVZX instead of a compare and a branch).
				if len(r) >= 2 {
					table[uint16(h)] = abs
				} else {
					table[h&mask] = abs
				}
				// The next position's slot is read before this one's
				// candidate is tested (and after this one's store, which it
				// may be), so that its load is under way when a mispredicted
				// test sends the core back here: on react-dom a probe after
				// a copy matches about as often as not (brotli README, *The
				// next slot read a probe ahead*).
				next := i + 1 + misses>>skip
				xn := load64(data, min(next, limit))
				hn := fastSlot[R](xn*hashMul6>>fastShift, mask)
				candN := table[hn]
				// The candidate (fastVariant: [3]byte tests its reach and its
				// bytes with one branch). The last distance is not tried on
				// its own: at quality 1 it found 2% of jquery's copies for 9%
				// of its instructions (brotli README, *Quality 1 without the
				// last distance's probe*). (rawCap: a copy from a raw
				// dictionary before the stream must end in it.)
				d = abs - cand
				if len(r) == 3 {
					near := below(d-1, maxDist)
					if load32(data, i-int(d&near))^uint32(x)|^near&1 == 0 {
						break
					}
				} else if d-1 < maxDist && load32(data, i-int(d)) == uint32(x) && (!raw || w.rawCap(abs, d, minMatch) > 0) {
					break
				}
				// A position that starts no copy is a literal: counted here,
				// from the byte the probe holds, rather than in a loop over
				// the command's literals whose exit varies from one command
				// to the next (unprobe mends the counts of a run the probes
				// crossed in steps).
				lh[uint8(x)]++
				i = next
				if i > limit {
					goto done
				}
				x, h, cand = xn, hn, candN
			}
		}
		{
			// Most copies end within the 8 bytes after the 4 verified:
			// those need no call.
			l := minMatch
			if n := len(data) - i - minMatch; n < 8 {
				l += matchLen(data, i-int(d)+minMatch, i+minMatch, n)
			} else if x := load64(data, i-int(d)+minMatch) ^ load64(data, i+minMatch); x != 0 {
				l += bits.TrailingZeros64(x) / 8
			} else {
				l += 8 + matchLen(data, i-int(d)+minMatch+8, i+minMatch+8, n-8)
			}
			if raw {
				l = w.rawCap(base+uint32(i), d, l)
			}
			// The command's symbols, chosen and counted here: a call
			// per command cost more than choosing them.
			if f := lit + 1<<skip; i > f {
				unprobe(lh, data, f, i, uint(skip))
				countLiterals(lh, data[f:i])
			}
			ip, cp := insLength(uint32(i-lit)), copyLength(uint32(l))
			ic, cc, nlen := uint8(ip), uint8(cp), uint8(ip>>8)+uint8(cp>>8)
			sc := cmdSyms{cmd: uint64(nlen)<<10 | (ip>>16|cp>>16<<(ip>>8&63))<<16, dist: noDist, insert: uint32(i - lit), copied: uint32(l)}
			if d == last && ic < 8 && cc < 16 {
				sc.cmd |= uint64(cmdSymbols[1][ic&31][cc&31])
			} else {
				sc.cmd |= uint64(cmdSymbols[0][ic&31][cc&31])
				// Each case packs its own code, rather than the three
				// values being merged from the cases and packed after
				// (0.4-0.8% of the search's instructions, brotli README,
				// *Fewer values through the probe loop*).
				sc.dist = 0 // distance code 0, the last distance again
				switch {
				case d == last:
				case plain:
					sc.dist = packDist(plainDistCode(d))
				default:
					sc.dist = packDist(e.dist.code(d))
				}
				dh[uint16(sc.dist)]++
			}
			ch[sc.cmd&1023]++
			e.syms = append(e.syms, sc)
			last = d
			// The last positions of the copy enter the table: the next
			// match often starts in them, and entering them all costs
			// more than it finds at these qualities. Two or five, each
			// hashed from a load that covers several.
			if end := min(i+l, limit+1); end >= 5 {
				x := load64(data, end-2)
				table[fastSlot[R](x*hashMul6>>fastShift, mask)] = base + uint32(end-2)
				table[fastSlot[R]((x>>8)*hashMul6>>fastShift, mask)] = base + uint32(end-1)
				if tail5 {
					x = load64(data, end-5)
					table[fastSlot[R](x*hashMul6>>fastShift, mask)] = base + uint32(end-5)
					table[fastSlot[R]((x>>8)*hashMul6>>fastShift, mask)] = base + uint32(end-4)
					table[fastSlot[R]((x>>16)*hashMul6>>fastShift, mask)] = base + uint32(end-3)
				}
			}
			i += l
			lit = i
		}
	}
done:
	if asm {
		// The state points into the caller's data: not kept past the call.
		*pa = probeArgs{}
	}
	if lit < len(data) {
		// The literals that end the meta-block: no copy, no distance.
		// The probes counted those they tested.
		f := min(i, lit+1<<skip)
		unprobe(lh, data, f, i, uint(skip))
		countLiterals(lh, data[f:])
		ip := insLength(uint32(len(data) - lit))
		sym := cmdSymbols[1][uint8(ip)][0]
		ch[sym]++
		e.syms = append(e.syms, cmdSyms{cmd: uint64(sym) | ip>>8&255<<10 | ip>>16<<16, dist: noDist, insert: uint32(len(data) - lit)})
	}
	return e.fastTally()
}

// fastTally returns the extra bits of findFastIn's commands and enters in
// the ring the last four distances they code explicitly (other than with
// code 0), in order: the probe loop tracks only the last distance. Both
// are taken from the commands after the search rather than kept in it,
// where the sum and the ring's slots were values live through the search,
// moved and spilled at every command (brotli README, *Quality 1 split
// against C's two-pass*).
func (e *encoder) fastTally() (extraBits int) {
	syms := e.syms
	for k := range syms {
		extraBits += int(syms[k].extraBits() + syms[k].distBits())
	}
	var pushed [4]uint32
	n := 0
	for k := len(syms) - 1; k >= 0 && n < 4; k-- {
		if ds := syms[k].distSym(); ds != noDist && ds != 0 {
			s := &syms[k]
			pushed[n] = e.dist.distance(ds, uint8(s.distBits()), uint32(s.distExtra()))
			n++
		}
	}
	for k := n - 1; k >= 0; k-- {
		e.ring.push(pushed[k])
	}
	return extraBits
}
