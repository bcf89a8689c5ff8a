package zstdenc

import (
	"encoding/binary"
	"math"
)

// maxBlock is the largest block content RFC 8878 allows (Block_Maximum_Size
// for windows of 128 KiB and more).
const maxBlock = 128 << 10

// seq is one sequence: litLen literals, then a copy of matchLen bytes.
// offBase is the offset plus 3, or 1 to 3 for a repeat offset (RFC 8878
// section 3.1.1.5).
type seq struct {
	litLen, matchLen, offBase uint32
}

// Literal length and match length codes (RFC 8878, section 3.1.1.3.2.1.1):
// each code stands for a baseline plus a number of extra bits.
var (
	llBase = [36]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	llBits = [36]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	// mlBase is counted from the minimum match, 3.
	mlBase = [53]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
		32, 34, 36, 38, 40, 44, 48, 56, 64, 80, 96, 128, 256, 512, 1024, 2048,
		4096, 8192, 16384, 32768, 65536}
	mlBits = [53]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
		12, 13, 14, 15, 16}
	llCodeSmall [64]uint8
	mlCodeSmall [128]uint8
)

// The predefined distributions (RFC 8878, section 3.1.1.3.2.2).
var predefLL, predefOF, predefML = predefined(6, []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}),
	predefined(5, []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}),
	predefined(6, []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
		-1, -1, -1, -1, -1})

func predefined(log uint8, norm []int16) *fseTable {
	t := &fseTable{}
	copy(t.norm[:], norm)
	t.build(log, len(norm))
	return t
}

func init() {
	for c := range 26 { // codes up to 25 cover lengths below 64... and beyond
		for v := llBase[c]; v < llBase[c]+1<<llBits[c] && v < 64; v++ {
			llCodeSmall[v] = uint8(c)
		}
	}
	for c := range 44 {
		for v := mlBase[c]; v < mlBase[c]+1<<mlBits[c] && v < 128; v++ {
			mlCodeSmall[v] = uint8(c)
		}
	}
}

func llCode(ll uint32) uint8 {
	if ll < 64 {
		return llCodeSmall[ll]
	}
	return uint8(highBit(ll) + 19)
}

// mlCode codes a match length less 3.
func mlCode(m uint32) uint8 {
	if m < 128 {
		return mlCodeSmall[m]
	}
	return uint8(highBit(m) + 36)
}

// Symbol compression modes of the sequences section.
const (
	modePredefined = 0
	modeRLE        = 1
	modeFSE        = 2
)

// blockCoder turns a block's literals and sequences into its content.
type blockCoder struct {
	huff       huffCoder
	tabs       [3]fseTable // literal lengths, offsets, match lengths
	codes      [3][]uint8
	bw         bitWriter
	tree, lbuf []byte
}

// maxLogs are the finest accuracies RFC 8878 allows each table.
var maxLogs = [3]uint8{9, 8, 9}

// appendBlock appends src as one block (header included): compressed from
// lits and seqs when that is shorter, else raw, or RLE when src repeats
// one byte. The literals not covered by a sequence follow the last one.
// It reports whether the block is compressed, the only type whose
// sequences move the decoder's repeat offsets.
func (b *blockCoder) appendBlock(dst, src, lits []byte, seqs []seq, last bool) ([]byte, bool) {
	hdr := len(dst)
	dst = append(dst, 0, 0, 0)
	var typ uint32
	size := uint32(len(src))
	if len(src) > 0 && allSame(src) && len(src) > 1 {
		typ = 1
		dst = append(dst, src[0])
	} else {
		dst = b.appendLiterals(dst, lits)
		dst = b.appendSequences(dst, seqs)
		if n := len(dst) - hdr - 3; n < len(src) {
			typ, size = 2, uint32(n)
		} else {
			dst = append(dst[:hdr+3], src...)
		}
	}
	v := typ<<1 | size<<3
	if last {
		v |= 1
	}
	dst[hdr], dst[hdr+1], dst[hdr+2] = byte(v), byte(v>>8), byte(v>>16)
	return dst, typ == 2
}

func allSame(p []byte) bool {
	for _, c := range p[1:] {
		if c != p[0] {
			return false
		}
	}
	return true
}

// appendRawHeader appends a raw (typ 0) or RLE (typ 1) literals header
// for n literals.
func appendRawHeader(dst []byte, typ byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, typ|byte(n)<<3)
	case n < 4096:
		return append(dst, typ|1<<2|byte(n)<<4, byte(n>>4))
	}
	return append(dst, typ|3<<2|byte(n)<<4, byte(n>>4), byte(n>>12))
}

// appendLiterals appends the literals section: Huffman-coded when that
// is shorter than the literals themselves, RLE for one repeated byte.
func (b *blockCoder) appendLiterals(dst, lits []byte) []byte {
	n := len(lits)
	raw := func() []byte { return append(appendRawHeader(dst, 0, n), lits...) }
	if n == 0 {
		return raw()
	}
	var hist [256]uint32
	for _, c := range lits {
		hist[c]++
	}
	if hist[lits[0]] == uint32(n) {
		return append(appendRawHeader(dst, 1, n), lits[0])
	}
	if n < 32 {
		return raw()
	}
	h := &b.huff
	h.build(&hist)
	var ok bool
	b.tree, ok = h.appendTree(b.tree[:0])
	if !ok {
		return raw()
	}
	estimate := len(b.tree)
	nbits := 0
	for s, c := range hist {
		nbits += int(c) * int(h.length[s])
	}
	estimate += nbits / 8
	if estimate+8 >= n {
		return raw()
	}
	body := append(b.lbuf[:0], b.tree...)
	var format uint32
	if n <= 1023 {
		body = h.encodeStream(body, lits)
		if len(body) > 1023 {
			b.lbuf = body
			return raw()
		}
	} else {
		seg := (n + 3) / 4
		jump := len(body)
		body = append(body, 0, 0, 0, 0, 0, 0)
		for i := range 4 {
			start := len(body)
			body = h.encodeStream(body, lits[i*seg:min(n, (i+1)*seg)])
			if i < 3 {
				binary.LittleEndian.PutUint16(body[jump+2*i:], uint16(len(body)-start))
			}
		}
		format = 1
		if m := max(n, len(body)); m >= 1<<14 {
			format = 3
		} else if m >= 1<<10 {
			format = 2
		}
	}
	b.lbuf = body
	hlen := [4]int{3, 3, 4, 5}[format]
	if hlen+len(body) >= n+3 {
		return raw()
	}
	sizeBits := [4]uint{10, 10, 14, 18}[format]
	v := uint64(2) | uint64(format)<<2 | uint64(n)<<4 | uint64(len(body))<<(4+sizeBits)
	for i := range hlen {
		dst = append(dst, byte(v>>(8*i)))
	}
	return append(dst, body...)
}

// appendSequences appends the sequences section: the count, each code's
// table (predefined, RLE or described, whichever costs least) and the
// backward bit stream.
func (b *blockCoder) appendSequences(dst []byte, seqs []seq) []byte {
	n := len(seqs)
	switch {
	case n < 128:
		dst = append(dst, byte(n))
	case n < 0x7F00:
		dst = append(dst, byte(n>>8)+128, byte(n))
	default:
		dst = append(dst, 0xFF, byte(n-0x7F00), byte((n-0x7F00)>>8))
	}
	if n == 0 {
		return dst
	}
	var hist [3][maxFSESymbols]uint32
	var maxSym [3]int
	for k := range b.codes {
		b.codes[k] = b.codes[k][:0]
	}
	for _, s := range seqs {
		c := [3]uint8{llCode(s.litLen), uint8(highBit(s.offBase)), mlCode(s.matchLen - 3)}
		for k, v := range c {
			b.codes[k] = append(b.codes[k], v)
			hist[k][v]++
			maxSym[k] = max(maxSym[k], int(v))
		}
	}
	modeAt := len(dst)
	dst = append(dst, 0)
	var tabs [3]*fseTable // nil: RLE
	predef := [3]*fseTable{predefLL, predefOF, predefML}
	var modes byte
	for k := range 3 {
		h := hist[k][:maxSym[k]+1]
		if h[maxSym[k]] == uint32(n) {
			modes |= modeRLE << (6 - 2*k)
			dst = append(dst, byte(maxSym[k]))
			continue
		}
		t := &b.tabs[k]
		log := tableLog(n, maxSym[k], maxLogs[k])
		t.normalize(h, n, log)
		t.build(log, len(h))
		b.bw.out, b.bw.acc, b.bw.n = b.bw.out[:0], 0, 0
		t.writeDescription(&b.bw)
		fseCost := t.cost(h) + float64(8*len(b.bw.out))
		if predef[k].cost(h) <= fseCost || math.IsInf(fseCost, 1) {
			tabs[k] = predef[k]
			continue
		}
		tabs[k] = t
		modes |= modeFSE << (6 - 2*k)
		dst = append(dst, b.bw.out...)
	}
	dst[modeAt] = modes
	// The stream goes straight into dst; b.bw keeps its own buffer for
	// the next block's table descriptions.
	w := &bitWriter{out: dst}
	llc, ofc, mlc := b.codes[0], b.codes[1], b.codes[2]
	var xs [3]uint32
	for k, t := range tabs {
		if t != nil {
			xs[k] = t.init(b.codes[k][n-1])
		}
	}
	extra := func(i int) {
		s := seqs[i]
		w.add(uint64(s.litLen-llBase[llc[i]]), uint(llBits[llc[i]]))
		w.add(uint64(s.matchLen-3-mlBase[mlc[i]]), uint(mlBits[mlc[i]]))
		w.add(uint64(s.offBase-1<<ofc[i]), uint(ofc[i]))
	}
	extra(n - 1)
	for i := n - 2; i >= 0; i-- {
		for _, k := range [3]int{1, 2, 0} {
			if t := tabs[k]; t != nil {
				xs[k] = t.encode(w, xs[k], b.codes[k][i])
			}
		}
		extra(i)
	}
	for _, k := range [3]int{2, 1, 0} {
		if t := tabs[k]; t != nil {
			t.flush(w, xs[k])
		}
	}
	w.closeBackward()
	return w.out
}
