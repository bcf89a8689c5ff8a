package proxy

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"
)

// aheadChunk is the unit of the memory an ahead holds: small reads are
// packed into chunks rather than each keeping a buffer of its own, and
// chunks read are kept for the next pieces (free).
const aheadChunk = 16 << 10

// chunkPool keeps the chunks of aheads that have ended for the next ones.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, aheadChunk); return &b }}

// ahead reads an upstream's body ahead of the client, as NGINX's buffered
// proxying does: into memory (*_buffers), then into a temporary file
// (*_max_temp_file_size, in *_temp_path), so that the upstream is read to
// its end, and its connection and its worker are free, however slowly the
// client takes the body. One goroutine reads the upstream (fill); the
// handler reads the body from the ahead, in order.
//
// Order is kept by one rule: once a piece has gone to the file, the pieces
// after it go there too, until the client has read the file to its end;
// then memory is used again and the file starts over (its size is what is
// waiting in it, never more than fileMax).
type ahead struct {
	mu   sync.Mutex
	cond sync.Cond

	mem      [][]byte // chunks waiting in memory, oldest first; the last may have room
	free     [][]byte // chunks read, for reuse
	memBytes int      // bytes waiting in mem
	memMax   int      // bytes of chunks mem may hold
	off      int      // bytes of mem[0] already read

	file           *os.File
	fileR, fileW   int64 // read and write offsets in file
	fileMax        int64 // the most the file may hold; 0: no file
	temp           func() (*os.File, error)
	tempErr        error // making or writing the file failed: the reading ended with it
	stopped, drain bool  // the client is gone: stop reading / read on and drop
	// spill: the memory has stayed full for spillDelay, so the client is
	// slower than the upstream: the next pieces go to the file. A client
	// that keeps up empties the memory sooner and never costs a file.
	spill bool
	// full: put waits for room, since fullSince; a timer of an earlier
	// wait, firing late, spills nothing.
	full      bool
	fullSince time.Time
	timer     *time.Timer
	// end: the reading has ended, with io.EOF or the upstream's error,
	// and fill is seeing to the upstream's end.
	end  error
	n    int64 // bytes read from the upstream
	done chan struct{}
	// pass: the last piece put ends where NGINX passes on what it has
	// (the waits that newAhead was given said so); idle, set by the
	// reader before its first Read, then flushes the client's writer
	// once the reader has taken everything and would wait for more.
	pass bool
	idle func()
}

// newAhead starts reading src, of which base bytes were read before, with
// a buffer from pool; waits, if set, is asked after each read whether src
// stands where what was read should reach the client without waiting for
// more (see pass); ended runs on the reading goroutine once src has
// ended (io.EOF or an error) or reading stopped (errAheadStopped), with
// the bytes read in all. The reader of the ahead may see that end before
// ended has run: close waits for it.
func newAhead(src io.Reader, base int64, memMax int, fileMax int64, temp func() (*os.File, error), pool *sync.Pool, waits Pieces, ended func(n int64, err error)) *ahead {
	if memMax < aheadChunk {
		memMax = aheadChunk
	}
	a := &ahead{memMax: memMax, fileMax: fileMax, temp: temp, n: base, done: make(chan struct{})}
	a.cond.L = &a.mu
	go a.fill(src, pool, waits, ended)
	return a
}

func (a *ahead) fill(src io.Reader, pool *sync.Pool, waits Pieces, ended func(n int64, err error)) {
	defer close(a.done)
	bp := pool.Get().(*[]byte)
	defer pool.Put(bp)
	// The buffer is output_buffers' size, which nothing ties to the
	// bounds here: a piece never larger than the memory always fits once
	// the client has read what waits, where a larger one would wait for
	// room that never comes.
	buf := *bp
	if len(buf) > a.memMax {
		buf = buf[:a.memMax]
	}
	var err error
	for err == nil {
		var n int
		n, err = src.Read(buf)
		if n > 0 && !a.put(buf[:n], err == nil && waits != nil && waits.Waits()) {
			err = errAheadStopped
		}
	}
	a.mu.Lock()
	switch {
	case a.stopped:
		// Stopped while the last read came in: the upstream connection
		// is being shut, whatever that read said.
		err = errAheadStopped
	case a.tempErr != nil:
		err = a.tempErr
	}
	a.end = err
	n := a.n
	a.cond.Broadcast()
	a.mu.Unlock()
	ended(n, err)
}

// errAheadStopped ends a fill that the client's leaving stopped.
var errAheadStopped = errors.New("read ahead stopped: the client is gone")

// spillDelay is how long the memory may stay full before the reading
// goes on into the file.
const spillDelay = 5 * time.Millisecond

// put keeps p, waiting for room; false when reading should stop. pass
// says that p ends where the client should have what was read; it is
// noted only once p is in, so that a reader that empties what was there
// before does not spend the flush on it while p still waits for room.
func (a *ahead) put(p []byte, pass bool) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n += int64(len(p))
	for {
		fileRoom := a.fileMax > 0 && a.fileW+int64(len(p)) <= a.fileMax
		switch {
		case a.stopped:
			return false
		case a.drain:
			return true
		case a.fileW == 0 && a.memRoom() >= len(p):
			a.full, a.spill = false, false
			a.toMem(p)
			a.pass = pass
			a.cond.Broadcast()
			return true
		case fileRoom && (a.fileW > 0 || a.spill):
			if err := a.toFile(p); err != nil {
				// NGINX gives the response up when its temporary file
				// cannot be made or written (disk full, no directory):
				// the upstream is closed and the client's answer cut.
				a.tempErr = err
				return false
			}
			a.full, a.spill = false, false
			a.pass = pass
			a.cond.Broadcast()
			return true
		case fileRoom && !a.full:
			// Armed once per wait: the client's reads, each of which
			// wakes this loop, do not put the spill off while the
			// memory stays full.
			a.full = true
			a.armSpill()
		}
		a.cond.Wait()
	}
}

// armSpill starts the wait after which a full memory spills into the
// file. a.mu is held.
func (a *ahead) armSpill() {
	a.fullSince = time.Now()
	if a.timer != nil {
		a.timer.Reset(spillDelay)
		return
	}
	a.timer = time.AfterFunc(spillDelay, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.full && time.Since(a.fullSince) >= spillDelay {
			a.spill = true
			a.cond.Broadcast()
		}
	})
}

// memRoom is how many more bytes mem can take. a.mu is held.
func (a *ahead) memRoom() int {
	chunks := (a.memMax + aheadChunk - 1) / aheadChunk
	room := (chunks - len(a.mem)) * aheadChunk
	if k := len(a.mem); k > 0 {
		last := a.mem[k-1]
		room += cap(last) - len(last)
	}
	return room
}

func (a *ahead) toMem(p []byte) {
	a.memBytes += len(p)
	for len(p) > 0 {
		k := len(a.mem)
		if k == 0 || len(a.mem[k-1]) == cap(a.mem[k-1]) {
			var c []byte
			if n := len(a.free); n > 0 {
				c, a.free = a.free[n-1][:0], a.free[:n-1]
			} else {
				c = (*chunkPool.Get().(*[]byte))[:0]
			}
			a.mem = append(a.mem, c)
			k++
		}
		last := a.mem[k-1]
		n := copy(last[len(last):cap(last)], p)
		a.mem[k-1] = last[:len(last)+n]
		p = p[n:]
	}
}

// toFile appends p to the temporary file, made on first use. The write
// is made under a.mu: it goes to the page cache, and the reader, which
// reads the file under a.mu too, then needs no other coordination.
func (a *ahead) toFile(p []byte) error {
	if a.file == nil {
		f, err := a.temp()
		if err != nil {
			return err
		}
		a.file = f
	}
	if _, err := a.file.WriteAt(p, a.fileW); err != nil {
		return err
	}
	a.fileW += int64(len(p))
	return nil
}

// Read gives the body in order: what waits in memory, then in the file.
func (a *ahead) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for {
		if a.memBytes > 0 {
			// As much as p takes, across chunks: each Read is a hand-over
			// between two goroutines, which costs more than the copy.
			n := 0
			for n < len(p) && a.memBytes > 0 {
				m := copy(p[n:], a.mem[0][a.off:])
				n += m
				a.off += m
				a.memBytes -= m
				if a.off == len(a.mem[0]) && (len(a.mem) > 1 || a.memBytes == 0) {
					a.free = append(a.free, a.mem[0])
					a.mem[0] = nil
					a.mem = a.mem[1:]
					a.off = 0
				}
			}
			a.cond.Broadcast()
			return n, nil
		}
		if a.fileR < a.fileW {
			n, err := a.file.ReadAt(p[:min(int64(len(p)), a.fileW-a.fileR)], a.fileR)
			a.fileR += int64(n)
			if a.fileR == a.fileW {
				// Drained: memory again, and the file starts over.
				a.fileR, a.fileW = 0, 0
				a.cond.Broadcast()
			}
			if err != nil && n == 0 {
				return 0, err
			}
			return n, nil
		}
		if a.end != nil {
			return 0, a.end
		}
		if a.pass && a.idle != nil {
			// Everything read has been taken: it leaves for the client
			// now rather than when more comes, as NGINX writes what it
			// has whenever the upstream has nothing more to read.
			a.pass = false
			a.mu.Unlock()
			a.idle()
			a.mu.Lock()
			continue
		}
		a.cond.Wait()
	}
}

// stop makes the reading end at its next piece, and reports whether it
// was still reading: the caller then shuts the upstream connection, so
// that a read waiting on it ends. Once the reading has ended, the
// connection is no longer the caller's (it may serve another request).
func (a *ahead) stop() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	a.cond.Broadcast()
	return a.end == nil
}

// dropRest lets the reading go on to the upstream's end, dropping what it
// reads (*_ignore_client_abort), and frees what is held.
func (a *ahead) dropRest() {
	a.mu.Lock()
	a.drain = true
	a.mem, a.memBytes, a.off = nil, 0, 0
	a.fileR, a.fileW = 0, 0
	a.cond.Broadcast()
	a.mu.Unlock()
}

// close waits for the reading goroutine and removes the file.
func (a *ahead) close() {
	<-a.done
	if a.timer != nil {
		a.timer.Stop()
	}
	for _, c := range append(a.mem, a.free...) {
		c = c[:cap(c)]
		chunkPool.Put(&c)
	}
	a.mem, a.free = nil, nil
	if a.file != nil {
		name := a.file.Name()
		_ = a.file.Close()
		_ = os.Remove(name)
		a.file = nil
	}
}
