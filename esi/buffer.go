package esi

import (
	"io"
	"sync"
	"sync/atomic"
)

// chunk is a pooled buffer that the page is read into, borrowed text is
// copied into when it has to wait, and fragment bodies are held in. Output
// segments point into it; the last one released returns it to the pool.
type chunk struct {
	buf  []byte
	refs atomic.Int32
	pool *chunkPool
}

func (c *chunk) ref() { c.refs.Add(1) }

func (c *chunk) release() {
	if c.refs.Add(-1) == 0 {
		c.pool.p.Put(c)
	}
}

// chunkPool hands out chunks of one size (Options.BufferSize).
type chunkPool struct {
	size int
	p    sync.Pool
}

// get returns a chunk holding one reference.
func (cp *chunkPool) get() *chunk {
	c, _ := cp.p.Get().(*chunk)
	if c == nil {
		c = &chunk{buf: make([]byte, cp.size), pool: cp}
	}
	c.refs.Store(1)
	return c
}

// seg is one entry of the output queue: text (data, kept alive by c when c
// is not nil), when st is set a verbatim run written from its stored
// compressed form (stitching), or when f is set the place of a fragment.
type seg struct {
	data []byte
	c    *chunk
	st   *step
	f    *slot
}

func (s *seg) release() {
	if s.c != nil {
		s.c.release()
	}
	if s.f != nil {
		for i := range s.f.parts {
			s.f.parts[i].release()
		}
		s.f.parts = nil
	}
	*s = seg{}
}

// slot is the place of a fragment (or of a held <esi:remove> block) in the
// output. parts is its content once done.
type slot struct {
	done  bool
	parts []seg
	held  int // the bytes of parts the output counts (completeHeld)
}

// partsWriter collects a nested page's output in pooled chunks.
type partsWriter struct {
	bufs  *chunkPool
	parts []seg
	fill  int
}

func (w *partsWriter) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if len(w.parts) == 0 || w.fill == len(w.parts[len(w.parts)-1].c.buf) {
			w.parts = append(w.parts, seg{c: w.bufs.get()})
			w.fill = 0
		}
		last := &w.parts[len(w.parts)-1]
		k := copy(last.c.buf[w.fill:], b)
		w.fill += k
		last.data = last.c.buf[:w.fill]
		b = b[k:]
	}
	return n, nil
}

// readAll reads r to its end into chunks.
func (cp *chunkPool) readAll(r io.Reader) ([]seg, error) {
	var parts []seg
	var last *seg
	for {
		if last == nil || len(last.data) == len(last.c.buf) {
			parts = append(parts, seg{c: cp.get()})
			last = &parts[len(parts)-1]
			last.data = last.c.buf[:0]
		}
		n, err := r.Read(last.c.buf[len(last.data):])
		last.data = last.c.buf[:len(last.data)+n]
		if err == io.EOF {
			if len(last.data) == 0 {
				last.release()
				parts = parts[:len(parts)-1]
			}
			return parts, nil
		}
		if err != nil {
			return parts, err
		}
	}
}
