package zstdenc

import (
	"math/bits"
	"slices"
)

// maxHuffBits is the longest literal code RFC 8878 allows.
const maxHuffBits = 11

// huffCoder builds the Huffman code of one block's literals.
type huffCoder struct {
	length [256]uint8
	code   [256]uint16
	maxLen uint8
	last   int // highest symbol with a code
	order  []uint16
	nodes  []huffNode
	wtab   fseTable
	wbuf   bitWriter
}

type huffNode struct {
	count  uint32
	parent int32
}

// build computes code lengths of at most maxHuffBits for hist, which
// holds at least two symbols, and the canonical codes RFC 8878 section
// 4.2.1 derives from the lengths.
func (h *huffCoder) build(hist *[256]uint32) {
	h.order = h.order[:0]
	for s, c := range hist {
		h.length[s] = 0
		if c > 0 {
			h.order = append(h.order, uint16(s))
			h.last = s
		}
	}
	slices.SortStableFunc(h.order, func(a, b uint16) int { return int(hist[a]) - int(hist[b]) })
	n := len(h.order)
	// Huffman's construction with two queues: leaves in count order, and
	// the internal nodes, which come out in count order too.
	h.nodes = h.nodes[:0]
	for _, s := range h.order {
		h.nodes = append(h.nodes, huffNode{count: hist[s]})
	}
	leaf, inner := 0, n
	pick := func() int {
		if leaf < n && (inner >= len(h.nodes) || h.nodes[leaf].count <= h.nodes[inner].count) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for len(h.nodes) < 2*n-1 {
		a, b := pick(), pick()
		h.nodes = append(h.nodes, huffNode{count: h.nodes[a].count + h.nodes[b].count})
		h.nodes[a].parent = int32(len(h.nodes) - 1)
		h.nodes[b].parent = int32(len(h.nodes) - 1)
	}
	var depth [512]uint8
	for i := 2*n - 3; i >= 0; i-- {
		depth[i] = depth[h.nodes[i].parent] + 1
	}
	for i, s := range h.order {
		h.length[s] = min(depth[i], maxHuffBits)
	}
	h.limit()
	h.assign()
}

// limit makes the clamped lengths a complete prefix code again: lengthen
// the rarest of the longest codes still short of the limit while the
// code is oversubscribed, then shorten the commonest of the longest codes
// while it has room. The decoder derives the last weight by completing
// the code, so it must be exactly complete.
func (h *huffCoder) limit() {
	const full = 1 << maxHuffBits
	kraft := 0
	for _, s := range h.order {
		kraft += full >> h.length[s]
	}
	for kraft > full {
		best := -1
		for i, s := range h.order { // ascending counts: the first of a length is the rarest
			if l := h.length[s]; l < maxHuffBits && (best < 0 || l > h.length[h.order[best]]) {
				best = i
			}
		}
		s := h.order[best]
		h.length[s]++
		kraft -= full >> h.length[s]
	}
	for kraft < full {
		best := -1
		for i := len(h.order) - 1; i >= 0; i-- { // descending counts
			s := h.order[i]
			if l := h.length[s]; l > 1 && kraft+full>>l <= full && (best < 0 || l > h.length[h.order[best]]) {
				best = i
			}
		}
		s := h.order[best]
		kraft += full >> h.length[s]
		h.length[s]--
	}
}

// assign gives the canonical codes: by weight (1 for the longest codes)
// and symbol, each code the next slot of a table of maxLen bits.
func (h *huffCoder) assign() {
	h.maxLen = 0
	for _, s := range h.order {
		h.maxLen = max(h.maxLen, h.length[s])
	}
	slot := uint32(0)
	for l := h.maxLen; l >= 1; l-- {
		w := h.maxLen + 1 - l
		for s := 0; s <= h.last; s++ {
			if h.length[s] == l {
				h.code[s] = uint16(slot >> (w - 1))
				slot += 1 << (w - 1)
			}
		}
	}
}

func (h *huffCoder) weight(s int) uint8 {
	if h.length[s] == 0 {
		return 0
	}
	return h.maxLen + 1 - h.length[s]
}

// appendTree appends the tree description: the weights of symbols 0 to
// last-1 (the last one's follows from them), FSE-compressed when that is
// shorter, else four bits each; false when neither can describe it
// (over 128 weights that FSE does not fit in 127 bytes).
func (h *huffCoder) appendTree(dst []byte) ([]byte, bool) {
	n := h.last
	direct := 1 + (n+1)/2
	if fse := h.compressWeights(); fse != nil && (len(fse) < direct || n > 128) {
		dst = append(dst, byte(len(fse)))
		return append(dst, fse...), true
	}
	if n > 128 {
		return dst, false
	}
	dst = append(dst, byte(127+n))
	for i := 0; i < n; i += 2 {
		b := h.weight(i) << 4
		if i+1 < n {
			b |= h.weight(i + 1)
		}
		dst = append(dst, b)
	}
	return dst, true
}

// compressWeights codes the weights with an FSE table of accuracy at most
// 6 and two interleaved states, as section 4.2.1.2 defines; nil when they
// cannot be (fewer than two distinct weights) or take 128 bytes or more.
func (h *huffCoder) compressWeights() []byte {
	n := h.last
	if n < 2 {
		return nil
	}
	var hist [maxHuffBits + 1]uint32
	maxW := 0
	for s := range n {
		w := h.weight(s)
		hist[w]++
		maxW = max(maxW, int(w))
	}
	distinct := 0
	for _, c := range hist {
		if c > 0 {
			distinct++
		}
	}
	if distinct < 2 {
		return nil
	}
	t := &h.wtab
	log := tableLog(n, maxW, 6)
	t.normalize(hist[:maxW+1], n, log)
	t.build(log, maxW+1)
	w := &h.wbuf
	w.out, w.acc, w.n = w.out[:0], 0, 0
	t.writeDescription(w)
	// Symbols go in backwards; the decoder reads state 1 first and takes
	// symbols from the two states in turn, so the last symbol's state
	// depends on n's parity.
	var x1, x2 uint32
	i := n
	if n&1 == 1 {
		x1 = t.init(h.weight(i - 1))
		x2 = t.init(h.weight(i - 2))
		x1 = t.encode(w, x1, h.weight(i-3))
		i -= 3
	} else {
		x2 = t.init(h.weight(i - 1))
		x1 = t.init(h.weight(i - 2))
		i -= 2
	}
	for i > 0 {
		x2 = t.encode(w, x2, h.weight(i-1))
		x1 = t.encode(w, x1, h.weight(i-2))
		i -= 2
	}
	t.flush(w, x2)
	t.flush(w, x1)
	w.closeBackward()
	if len(w.out) >= 128 {
		return nil
	}
	return w.out
}

// encodeStream appends lits coded as one backward stream: the last
// literal first, so that the decoder, reading from the end, meets the
// first literal first.
func (h *huffCoder) encodeStream(dst []byte, lits []byte) []byte {
	w := bitWriter{out: dst}
	for i := len(lits) - 1; i >= 0; i-- {
		s := lits[i]
		w.add(uint64(h.code[s]), uint(h.length[s]))
	}
	w.closeBackward()
	return w.out
}

// highBit is the index of v's highest set bit; v > 0.
func highBit(v uint32) uint32 { return uint32(bits.Len32(v) - 1) }
