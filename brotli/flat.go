package brotli

import (
	"encoding/binary"
	"slices"
)

// writeFlat is writeCommands for a meta-block with one block type of each
// kind and one literal tree (qualities 0-4). It writes the same bits with
// none of the block and context bookkeeping, which at these qualities
// would cost as much as the writing: most commands are short.
func (e *encoder) writeFlat(data []byte, nbits int) {
	syms := e.syms
	litCodes, cmdCodes, dCodes := &e.litCodes, &e.cmdCodes, &e.dCodes
	bw := &e.bw
	out := slices.Grow(bw.buf, nbits/8+16)
	pos := len(out)
	out = out[:cap(out)]
	acc, nacc := bw.acc, bw.nacc
	flush := func() {
		binary.LittleEndian.PutUint64(out[pos:pos+8], acc)
		pos += int(nacc >> 3)
		acc >>= nacc &^ 7 & 63
		nacc &= 7
	}
	put := func(v uint32) {
		acc |= uint64(v>>4) << (nacc & 63)
		nacc += uint(v & 15)
	}
	p := 0
	for k := range syms {
		// At most 7 bits are pending after a flush; the insert-and-copy
		// code (up to 15 bits) and its extra bits (up to 40 but for
		// lengths beyond 2^14) then go in with one shift.
		flush()
		s := &syms[k]
		c := s.cmd
		v := cmdCodes[c&1023]
		if nb := uint(c>>10) & 63; nb <= 40 {
			acc |= (uint64(v>>4) | c>>16<<(v&15)) << (nacc & 63)
			nacc += uint(v&15) + nb
		} else {
			put(v)
			flush()
			acc |= c >> 16 << (nacc & 63)
			nacc += nb
		}
		if s.insert > 0 {
			// Three literals of at most 15 bits each fit after a flush.
			flush()
			lits := data[p : p+int(s.insert)]
			for len(lits) >= 3 {
				put(litCodes[lits[0]])
				put(litCodes[lits[1]])
				put(litCodes[lits[2]])
				flush()
				lits = lits[3:]
			}
			for _, b := range lits {
				put(litCodes[b])
			}
		}
		p += int(s.insert) + int(s.copied)
		if d := s.dist; uint16(d) != noDist {
			// A distance code and its extra bits (up to 24).
			db := uint(d>>16) & 255
			if nacc+15+db > 64 {
				flush()
			}
			v := dCodes[uint16(d)]
			acc |= (uint64(v>>4) | d>>24<<(v&15)) << (nacc & 63)
			nacc += uint(v&15) + db
		}
	}
	flush()
	bw.buf = out[:pos]
	bw.acc, bw.nacc = acc, nacc
}
