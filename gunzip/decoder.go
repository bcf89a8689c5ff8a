package gunzip

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// decoder decompresses a gzip body that arrives in writes. A gzip reader
// pulls its input, while a handler pushes it, so the reader runs on its own
// goroutine. The two never run at once: a write hands its bytes over and
// waits until the reader has used them all and asks for more, so when Write
// returns, everything decodable so far has reached the sink. That keeps the
// response writer single-threaded and makes a handler's Flush see all of
// its output. A panic in the sink (a filter outside cutting the response
// with http.ErrAbortHandler) is carried over to the handler's goroutine,
// where the server recovers it: on the reader's it would end the process.
type decoder struct {
	in       chan []byte   // handler -> reader: the next input
	idle     chan struct{} // reader -> handler: input used up
	done     chan struct{} // closed when the reader has stopped
	err      error         // why it stopped; read only after done
	panicked any           // what the sink panicked with; read only after done
	dropping bool          // abandon: decoded bytes are no longer passed on

	cur     []byte
	started bool
	sink    func([]byte) (int, error)
}

// errCorrupt marks a gzip body that could not be decoded; the response must
// then be aborted, since its headers and part of its body are gone.
var errCorrupt = errors.New("gunzip")

func newDecoder(sink func([]byte) (int, error)) *decoder {
	g := &decoder{
		in:   make(chan []byte),
		idle: make(chan struct{}),
		done: make(chan struct{}),
		sink: sink,
	}
	go g.run()
	return g
}

func (g *decoder) run() {
	defer close(g.done)
	defer func() { g.panicked = recover() }()
	zr, err := gzip.NewReader(g)
	if err != nil {
		if err != io.EOF { // no body at all is not an error
			g.err = fmt.Errorf("%w: %w", errCorrupt, err)
		}
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := zr.Read(buf)
		if n > 0 && !g.dropping {
			if _, werr := g.sink(buf[:n]); werr != nil {
				g.err = werr
				return
			}
		}
		switch {
		case err == io.EOF:
			return
		case err != nil:
			g.err = fmt.Errorf("%w: %w", errCorrupt, err)
			return
		}
	}
}

// Read feeds the gzip reader; it runs on the reader's goroutine.
func (g *decoder) Read(p []byte) (int, error) {
	if len(g.cur) == 0 {
		if g.started {
			g.idle <- struct{}{}
		}
		g.started = true
		b, ok := <-g.in
		if !ok {
			return 0, io.EOF
		}
		g.cur = b
	}
	n := copy(p, g.cur)
	g.cur = g.cur[n:]
	return n, nil
}

// write hands p to the reader and waits until it has been decoded. Once the
// reader has stopped on an error, write reports that error. Concatenated
// gzip members decode as one body.
func (g *decoder) write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	select {
	case g.in <- p:
	case <-g.done:
		return g.result(len(p))
	}
	select {
	case <-g.idle:
		return len(p), nil
	case <-g.done:
		return g.result(len(p))
	}
}

// result is what a write gets once the reader has stopped: the sink's
// panic, raised again here, or the reader's error.
func (g *decoder) result(n int) (int, error) {
	g.repanic()
	if g.err != nil {
		return 0, g.err
	}
	return n, nil
}

// close ends the input and waits for the reader to finish.
func (g *decoder) close() error {
	close(g.in)
	<-g.done
	g.repanic()
	return g.err
}

// abandon stops the reader for a handler that panicked: the rest it
// decodes is dropped rather than passed on to a response being cut, and a
// panic of the sink's is not raised, so that the handler's goes on. The
// reader reads dropping only after it takes the closed input.
func (g *decoder) abandon() {
	g.dropping = true
	close(g.in)
	<-g.done
	g.panicked = nil
}

// repanic raises on the caller's goroutine the panic of the sink, once:
// a handler unwinding from it still closes the decoder.
func (g *decoder) repanic() {
	if p := g.panicked; p != nil {
		g.panicked = nil
		panic(p)
	}
}
