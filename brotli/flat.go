package brotli

// writeFlat is writeCommands for a meta-block with one block type of each
// kind and one literal tree (qualities 0-4). It writes the same bits with
// none of the block and context bookkeeping, which at these qualities
// would cost as much as the writing: most commands are short.
func (e *encoder) writeFlat(data []byte, nbits int) {
	syms := e.syms
	litCodes, cmdCodes, dCodes := &e.litCodes, &e.cmdCodes, &e.dCodes
	bs := e.bw.sink(nbits)
	four := e.lit.maxLen <= 14
	p := 0
	for k := range syms {
		// At most 7 bits are pending after a flush; the insert-and-copy
		// code (up to 15 bits) and its extra bits (up to 40 but for
		// lengths beyond 2^14) then go in with one shift.
		bs.flush()
		s := &syms[k]
		c := s.cmd
		v := cmdCodes[c&1023]
		if nb := uint(c>>10) & 63; nb <= 40 {
			bs.bits(uint64(v>>4)|c>>16<<(v&15), uint(v&15)+nb)
		} else {
			bs.put(v)
			bs.flush()
			bs.bits(c>>16, nb)
		}
		if n := int(s.insert); n <= 6 && p+8 <= len(data) {
			// Runs of up to 6 literals (eight commands in ten at quality
			// 1 on jquery, four in ten with none) are written three codes
			// to a flush, the codes past the run masked to no bits (the
			// bytes read are the copy's): one loop test per three
			// literals, where the test for literals and the two loops
			// below made up to three a command, whose outcomes vary from
			// one command to the next and were mispredicted; a third of
			// quality 1's time on jquery was the literals' writing
			// (brotli README, *Quality 1's literal runs*).
			for j := 0; j < n; j += 3 {
				bs.flush()
				r := uint32(n - j)
				bs.put(litCodes[data[p+j]])
				bs.put(litCodes[data[p+j+1]] & below(1, r))
				bs.put(litCodes[data[p+j+2]] & below(2, r))
			}
		} else if s.insert > 0 {
			// Four literals of at most 14 bits each fit after a flush,
			// three of 15.
			bs.flush()
			lits := data[p : p+int(s.insert)]
			if four {
				for ; len(lits) >= 4; lits = lits[4:] {
					bs.bits(pack4(litCodes[lits[0]], litCodes[lits[1]], litCodes[lits[2]], litCodes[lits[3]]))
					bs.flush()
				}
			}
			for ; len(lits) >= 3; lits = lits[3:] {
				bs.bits(pack3(litCodes[lits[0]], litCodes[lits[1]], litCodes[lits[2]]))
				bs.flush()
			}
			for _, b := range lits {
				bs.put(litCodes[b])
			}
		}
		p += int(s.insert) + int(s.copied)
		if d := s.dist; uint16(d) != noDist {
			// A distance code and its extra bits (up to 24).
			db := uint(d>>16) & 255
			if bs.nacc+15+db > 64 {
				bs.flush()
			}
			v := dCodes[uint16(d)]
			bs.bits(uint64(v>>4)|d>>24<<(v&15), uint(v&15)+db)
		}
	}
	bs.flush()
	e.bw.done(&bs)
}

// pack3 joins three packed codes (code<<4 | length) into their bits, the
// first lowest, and their length: the sink's accumulator, in memory in
// writeFlat's frame, then takes one shift and one add for the three
// where put took one each (on a 2 KB body at quality 1, about 1,100
// instructions a call; brotli README, *Prefix codes and literal runs in
// fewer instructions*).
func pack3(v0, v1, v2 uint32) (uint64, uint) {
	n0 := v0 & 15
	n1 := n0 + v1&15
	return uint64(v0>>4) | uint64(v1>>4)<<n0 | uint64(v2>>4)<<n1, uint(n1 + v2&15)
}

// pack4 is pack3 for four codes, which fit in a flushed sink when none is
// longer than 14 bits.
func pack4(v0, v1, v2, v3 uint32) (uint64, uint) {
	x, n := pack3(v0, v1, v2)
	return x | uint64(v3>>4)<<(n&63), n + uint(v3&15)
}
