package zstdenc

// bitWriter packs bit fields least significant bit first, the order of
// every bit stream in RFC 8878: the forward ones (FSE table descriptions)
// and the backward ones (Huffman and sequence streams), which are written
// forward too and closed with a marker bit the decoder finds first.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint // bits held in acc, below 32 between calls
}

// add appends the low nb bits of v; nb is at most 32 and v holds no
// higher bits.
func (w *bitWriter) add(v uint64, nb uint) {
	w.acc |= v << w.n
	w.n += nb
	if w.n >= 32 {
		w.out = append(w.out, byte(w.acc), byte(w.acc>>8), byte(w.acc>>16), byte(w.acc>>24))
		w.acc >>= 32
		w.n -= 32
	}
}

// pad flushes the bits held, the last byte filled with zeros.
func (w *bitWriter) pad() {
	for w.n > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n -= min(w.n, 8)
	}
	w.acc = 0
}

// closeBackward ends a backward stream: a 1 bit after the last field
// tells the decoder where the stream's bits begin.
func (w *bitWriter) closeBackward() {
	w.add(1, 1)
	w.pad()
}
