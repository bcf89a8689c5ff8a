package brotli

import (
	"encoding/binary"
	"slices"
)

// bitWriter packs bits least-significant first, the order RFC 7932 reads
// them in. Whole bytes go to buf; up to 31 pending bits stay in acc, so a
// writer can hand buf to its destination between meta-blocks and keep the
// partial byte.
type bitWriter struct {
	buf  []byte
	acc  uint64
	nacc uint
}

// bitMark is a position in the output that a meta-block can roll back to
// when its compressed form turns out larger than storing it.
type bitMark struct {
	n    int
	acc  uint64
	nacc uint
}

// writeBits appends the low n bits of v; n is at most 32 and v has no bits
// above n.
func (w *bitWriter) writeBits(n uint, v uint64) {
	w.acc |= v << (w.nacc & 63)
	w.nacc += n
	if w.nacc >= 32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.acc))
		w.acc >>= 32
		w.nacc -= 32
	}
}

// align pads with zero bits to the next byte boundary and moves every
// pending byte to buf.
func (w *bitWriter) align() {
	for w.nacc > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		if w.nacc < 8 {
			w.nacc = 0
		} else {
			w.nacc -= 8
		}
	}
}

func (w *bitWriter) aligned() bool { return w.nacc&7 == 0 }

func (w *bitWriter) bits() int { return len(w.buf)*8 + int(w.nacc) }

func (w *bitWriter) mark() bitMark { return bitMark{len(w.buf), w.acc, w.nacc} }

func (w *bitWriter) rollback(m bitMark) {
	w.buf = w.buf[:m.n]
	w.acc = m.acc
	w.nacc = m.nacc
}

// bitSink writes bits into an output grown beforehand to hold all of
// them, for the loops that write a meta-block's commands and literals:
// it needs no bound check per bit, and each flush is one 8-byte store.
// At 48 bytes it is above the 32 that the compiler keeps in registers,
// so the loops keep it in their frames (a 32-byte sink with a pointer to
// the buffer, passed by value, read the frame less but took no
// instructions off the writer: brotli README, "The search's calls").
type bitSink struct {
	out  []byte
	pos  int
	acc  uint64
	nacc uint
}

// sink starts writing up to nbits bits after w's.
func (w *bitWriter) sink(nbits int) bitSink {
	out := slices.Grow(w.buf, nbits/8+16)
	return bitSink{out: out[:cap(out)], pos: len(out), acc: w.acc, nacc: w.nacc}
}

// done takes back what s wrote.
func (w *bitWriter) done(s *bitSink) {
	w.buf = s.out[:s.pos]
	w.acc, w.nacc = s.acc, s.nacc
}

// flush moves the whole bytes of acc to out, leaving at most 7 bits, so
// that up to 57 bits can follow before the next flush.
func (s *bitSink) flush() {
	binary.LittleEndian.PutUint64(s.out[s.pos:s.pos+8], s.acc)
	s.pos += int(s.nacc >> 3)
	s.acc >>= s.nacc &^ 7 & 63
	s.nacc &= 7
}

// put appends a packed code (code<<4 | length).
func (s *bitSink) put(v uint32) {
	s.acc |= uint64(v>>4) << (s.nacc & 63)
	s.nacc += uint(v & 15)
}

// switchBlock returns s with the block switch that starts run r written,
// between flushes (up to 54 bits). It takes and returns the sink by
// value, as it is too large to inline.
func (s bitSink) switchBlock(r *blockRun) bitSink {
	s.flush()
	s.bits(r.sw, uint(r.swBits))
	s.flush()
	return s
}

// bits appends the low n bits of v, which has none above them.
func (s *bitSink) bits(v uint64, n uint) {
	s.acc |= v << (s.nacc & 63)
	s.nacc += n
}
