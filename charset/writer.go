package charset

import (
	"io"
	"strconv"
)

// Writer recodes a stream through a Table and writes the result to the
// writer it wraps, as NGINX's charset body filter does:
//
//   - between single-byte charsets each byte is replaced by the table's,
//     '?' for a byte the block does not map;
//   - to UTF-8 each byte becomes its sequence, '?' for one not mapped
//     (unless the Write has no byte with a longer sequence, or it comes
//     more than 512 bytes before the first: NGINX then passes it as it
//     is);
//   - from UTF-8 each character becomes its byte; a character the target
//     lacks becomes the HTML reference "&#N;" (N decimal), an invalid
//     sequence '?' (NGINX's decoder: the byte that breaks a sequence is
//     taken with it). A sequence cut by the end of one Write is completed
//     by the next; one that the stream ends inside is dropped.
//
// The output of a Write is at most maxGrowth times its input, plus the
// sequence held from the Write before.
type Writer struct {
	w       io.Writer
	t       *Table
	reverse bool // To to From
	saved   [4]byte
	nsaved  int
	out     []byte
}

// maxGrowth bounds a Write's output per input byte: a 3-byte UTF-8 value
// of a byte, or "&#65535;" for 2 bytes of UTF-8 (8 bytes: 4 per byte).
const maxGrowth = 4

// passLimit is the run of bytes that NGINX, recoding to UTF-8, sends
// untouched before the first byte it must recode.
const passLimit = 512

// NewWriter returns a Writer to w that recodes From to To, or To to From
// with reverse.
func (t *Table) NewWriter(w io.Writer, reverse bool) *Writer {
	return &Writer{w: w, t: t, reverse: reverse}
}

// Write recodes p and writes the result; it reports len(p) when the
// result went out whole.
func (z *Writer) Write(p []byte) (int, error) {
	out := z.Recode(z.out[:0], p)
	z.out = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := z.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close drops a UTF-8 sequence the stream ended inside, as NGINX sends
// nothing for it; it does not close the writer below.
func (z *Writer) Close() error {
	z.nsaved = 0
	return nil
}

// Recode appends the recoding of p to dst and returns it: the plain Go
// API of Write, keeping a cut UTF-8 sequence for the next call.
func (z *Writer) Recode(dst, p []byte) []byte {
	t := z.t
	switch {
	case !t.utf8 && !z.reverse:
		for _, b := range p {
			dst = append(dst, t.fwd[b])
		}
	case !t.utf8:
		for _, b := range p {
			dst = append(dst, t.back[b])
		}
	case !z.reverse:
		// NGINX looks for the first byte whose sequence is longer than a
		// byte: a piece without one goes out as it is, unmapped bytes
		// included, and so do the bytes before it when they are more
		// than passLimit.
		first := -1
		for i, b := range p {
			if len(t.seq[b]) != 1 {
				first = i
				break
			}
		}
		if first < 0 {
			return append(dst, p...)
		}
		if first > passLimit {
			dst = append(dst, p[:first]...)
			p = p[first:]
		}
		for _, b := range p {
			dst = append(dst, t.seq[b]...)
		}
	default:
		dst = z.fromUTF8(dst, p)
	}
	return dst
}

func (z *Writer) fromUTF8(dst, p []byte) []byte {
	if z.nsaved > 0 {
		k := min(len(z.saved)-z.nsaved, len(p))
		copy(z.saved[z.nsaved:], p[:k])
		c, used := decode(z.saved[:z.nsaved+k])
		if c == incomplete {
			// All of p is in saved: a sequence is at most 4 bytes.
			z.nsaved += k
			return dst
		}
		dst = z.char(dst, c)
		if used < z.nsaved {
			// The sequence broke inside the bytes held before: those after
			// the break are read again, and p with them, as in a body not
			// cut there (NGINX 1.22 reads outside its buffer then, and
			// 1.23 drops them).
			var rest [3]byte
			n := copy(rest[:], z.saved[used:z.nsaved])
			z.nsaved = 0
			dst = z.fromUTF8(dst, rest[:n])
			return z.fromUTF8(dst, p)
		}
		p = p[used-z.nsaved:]
		z.nsaved = 0
	}
	for len(p) > 0 {
		if p[0] < 0x80 {
			dst = append(dst, p[0])
			p = p[1:]
			continue
		}
		c, used := decode(p)
		if c == incomplete {
			z.nsaved = copy(z.saved[:], p)
			return dst
		}
		p = p[used:]
		dst = z.char(dst, c)
	}
	return dst
}

// char appends what NGINX writes for the decoded c: its byte, a
// reference to a character the target lacks, '?' for no character.
func (z *Writer) char(dst []byte, c uint32) []byte {
	if c < 0x10000 {
		if page := z.t.pages[c>>8]; page != nil && page[c&0xff] != 0 {
			return append(dst, page[c&0xff])
		}
	} else if c > 0x10ffff {
		return append(dst, '?')
	}
	dst = append(dst, "&#"...)
	dst = strconv.AppendUint(dst, uint64(c), 10)
	return append(dst, ';')
}
