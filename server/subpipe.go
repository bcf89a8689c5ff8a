package server

import (
	"io"
	"sync"
)

// subPipe carries a subrequest's body from its handler to its reader as
// io.Pipe does, with the same semantics: a write waits until readers have
// taken all of it, a read takes what one write offers, and closing either
// end (with an error or without) ends both. It is kept inside the
// subrequest's one allocation: io.Pipe costs four (its state and three
// channels) on each fragment of a page.
type subPipe struct {
	wrMu sync.Mutex // one write at a time

	mu      sync.Mutex
	moved   sync.Cond // on mu: an offer made or taken, or the pipe closed
	offer   []byte    // the bytes of the write in progress
	offered bool      // offer waits for a reader
	taken   int       // how many of offer the last read took
	closed  bool
	rerr    error // the reader's close error, the first one
	werr    error // the writer's close error, the first one
}

func (p *subPipe) init() { p.moved.L = &p.mu }

func (p *subPipe) Write(b []byte) (n int, err error) {
	p.wrMu.Lock()
	defer p.wrMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	// An empty write is offered too, and taken by a read of nothing,
	// as io.Pipe's is.
	for once := true; once || len(b) > 0; once = false {
		if p.closed {
			return n, p.writeCloseError()
		}
		p.offer, p.offered = b, true
		p.moved.Broadcast()
		for p.offered && !p.closed {
			p.moved.Wait()
		}
		if p.offered { // closed before a reader took it
			p.offer, p.offered = nil, false
			return n, p.writeCloseError()
		}
		n += p.taken
		b = b[p.taken:]
	}
	return n, nil
}

func (p *subPipe) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.offered && !p.closed {
		p.moved.Wait()
	}
	if p.closed {
		return 0, p.readCloseError()
	}
	n := copy(b, p.offer)
	p.taken, p.offer, p.offered = n, nil, false
	p.moved.Broadcast()
	return n, nil
}

// closeRead ends the pipe from the reader's side: writes fail with err
// (io.ErrClosedPipe when nil).
func (p *subPipe) closeRead(err error) { p.close(&p.rerr, err, io.ErrClosedPipe) }

// closeWrite ends the pipe from the writer's side: reads return err
// (io.EOF when nil).
func (p *subPipe) closeWrite(err error) { p.close(&p.werr, err, io.EOF) }

// close ends the pipe, keeping the first error of one side in *side.
func (p *subPipe) close(side *error, err, otherwise error) {
	if err == nil {
		err = otherwise
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if *side == nil {
		*side = err
	}
	p.closed = true
	p.moved.Broadcast()
}

// readCloseError is what a read of the closed pipe returns: the writer's
// error, unless the reader closed first.
func (p *subPipe) readCloseError() error {
	if p.rerr == nil && p.werr != nil {
		return p.werr
	}
	return io.ErrClosedPipe
}

// writeCloseError is what a write to the closed pipe returns: the
// reader's error, unless the writer closed first.
func (p *subPipe) writeCloseError() error {
	if p.werr == nil && p.rerr != nil {
		return p.rerr
	}
	return io.ErrClosedPipe
}
