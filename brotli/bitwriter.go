package brotli

import "encoding/binary"

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
