package proxy

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// trickle hands out its data in reads of random sizes, then err.
type trickle struct {
	data []byte
	rnd  *rand.Rand
	err  error
}

func (t *trickle) Read(p []byte) (int, error) {
	if len(t.data) == 0 {
		return 0, t.err
	}
	n := min(len(p), len(t.data), 1+t.rnd.IntN(9000))
	copy(p, t.data[:n])
	t.data = t.data[n:]
	return n, nil
}

func aheadPool() *sync.Pool {
	return &sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
}

func tempIn(t *testing.T, made *int) func() (*os.File, error) {
	dir := t.TempDir()
	return func() (*os.File, error) {
		*made++
		return os.CreateTemp(dir, "ahead-")
	}
}

// TestAheadKeepsOrder: a body read through memory, the file and memory
// again, by a reader that reads in random sizes and pauses, comes out as
// it went in, and the upstream's end (and its error) after it.
func TestAheadKeepsOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(rnd.IntN(256))
	}
	for _, c := range []struct {
		name    string
		mem     int
		fileMax int64
		err     error
	}{
		{"memory only", 32 << 10, 0, io.EOF},
		{"memory and file", 32 << 10, 256 << 10, io.EOF},
		{"file larger than the body", 8 << 10, 1 << 30, io.EOF},
		{"upstream error", 16 << 10, 64 << 10, errors.New("reset")},
	} {
		t.Run(c.name, func(t *testing.T) {
			made := 0
			var ended int64 = -1
			var endErr error
			a := newAhead(&trickle{data: data[100:], rnd: rand.New(rand.NewPCG(7, 8)), err: c.err}, 100, c.mem, c.fileMax, tempIn(t, &made), aheadPool(), nil, func(n int64, err error) { ended, endErr = n, err })
			var got bytes.Buffer
			buf := make([]byte, 7000)
			var err error
			for err == nil {
				var n int
				n, err = a.Read(buf[:1+rnd.IntN(len(buf))])
				got.Write(buf[:n])
				if rnd.IntN(50) == 0 {
					time.Sleep(time.Millisecond)
				}
			}
			a.close()
			if err != c.err {
				t.Errorf("read ended with %v, want %v", err, c.err)
			}
			if !bytes.Equal(got.Bytes(), data[100:]) {
				t.Errorf("got %d bytes, not the %d sent in order", got.Len(), len(data)-100)
			}
			if ended != int64(len(data)) || endErr != c.err {
				t.Errorf("ended with %d bytes, %v; want %d, %v", ended, endErr, len(data), c.err)
			}
			if c.fileMax == 0 && made != 0 {
				t.Errorf("%d temporary files made with no file allowed", made)
			}
		})
	}
}

// TestAheadBounds: with nobody reading, the upstream is read as far as
// the memory and the file allow, and no further; the file never holds
// more than its bound. Once the whole body fits, it is read to its end.
func TestAheadBounds(t *testing.T) {
	const mem, fileMax = 32 << 10, 100 << 10
	for _, c := range []struct {
		name string
		size int
		file int64
		all  bool
	}{
		{"memory only", 1 << 20, 0, false},
		{"memory and file", 1 << 20, fileMax, false},
		{"fits", 120 << 10, fileMax, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			made := 0
			ended := make(chan int64, 1)
			src := &trickle{data: make([]byte, c.size), rnd: rand.New(rand.NewPCG(3, 4)), err: io.EOF}
			a := newAhead(src, 0, mem, c.file, tempIn(t, &made), aheadPool(), nil, func(n int64, _ error) { ended <- n })
			time.Sleep(200 * time.Millisecond)
			a.mu.Lock()
			n, w := a.n, a.fileW
			a.mu.Unlock()
			if w > c.file {
				t.Errorf("file holds %d bytes, bound %d", w, c.file)
			}
			// What one read brings may wait beyond the bound.
			if limit := int64(mem) + c.file + 9000; !c.all && n > limit {
				t.Errorf("read %d bytes ahead, bound %d", n, limit)
			}
			select {
			case got := <-ended:
				if !c.all {
					t.Errorf("the body was read to its end (%d bytes) with nobody reading", got)
				}
			case <-time.After(100 * time.Millisecond):
				if c.all {
					t.Error("a body that fits was not read to its end")
				}
			}
			if a.stop() == c.all {
				t.Errorf("stop says the reading was going on: %v", !c.all)
			}
			a.close()
		})
	}
}

// TestAheadDropRest: after dropRest (the client gone, the upstream read
// to its end all the same) nothing more is kept, and the reading ends at
// the upstream's end, however much is left.
func TestAheadDropRest(t *testing.T) {
	made := 0
	ended := make(chan int64, 1)
	src := &trickle{data: make([]byte, 4<<20), rnd: rand.New(rand.NewPCG(5, 6)), err: io.EOF}
	a := newAhead(src, 0, 16<<10, 0, tempIn(t, &made), aheadPool(), nil, func(n int64, _ error) { ended <- n })
	a.dropRest()
	select {
	case n := <-ended:
		if n != 4<<20 {
			t.Errorf("read %d bytes, want all %d", n, 4<<20)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the reading did not go on to the end")
	}
	a.close()
	if a.memBytes != 0 || len(a.mem) != 0 {
		t.Errorf("%d bytes kept after dropRest", a.memBytes)
	}
}

// TestAheadReadsLargerThanItsBounds: the relay buffer is output_buffers'
// size, which no check ties to *_buffers or *_max_temp_file_size
// (output_buffers 1 128k with proxy_buffers 8 4k and
// proxy_max_temp_file_size 0 or 64k loads in NGINX). A read larger than
// the memory and the file can hold still gets through, in pieces, rather
// than waiting for room that never comes.
func TestAheadReadsLargerThanItsBounds(t *testing.T) {
	for _, fileMax := range []int64{0, 64 << 10} {
		made := 0
		data := make([]byte, 1<<20)
		for i := range data {
			data[i] = byte(i * 7)
		}
		pool := &sync.Pool{New: func() any { b := make([]byte, 128<<10); return &b }}
		a := newAhead(bytes.NewReader(data), 0, 32<<10, fileMax, tempIn(t, &made), pool, nil, func(int64, error) {})
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(a); got <- b }()
		select {
		case b := <-got:
			if !bytes.Equal(b, data) {
				t.Errorf("file max %d: body of %d bytes differs", fileMax, len(b))
			}
		case <-time.After(5 * time.Second):
			a.stop()
			t.Fatalf("file max %d: the body stalled", fileMax)
		}
		a.close()
	}
}

// TestAheadSpillsForSteadySlowClient: a client that reads a little at a
// time, often but far slower than the upstream, keeps the memory full:
// after spillDelay the rest goes to the file and the upstream is read to
// its end, however often the client takes a few bytes. The measure is the
// client's progress when the upstream ends, not a clock: read at the
// client's pace, the upstream would end only once the client had taken
// all but the last memory's worth of it.
func TestAheadSpillsForSteadySlowClient(t *testing.T) {
	const size = 1 << 20
	made := 0
	ended := make(chan int64, 1)
	a := newAhead(bytes.NewReader(make([]byte, size)), 0, 16<<10, size, tempIn(t, &made), aheadPool(), nil, func(n int64, _ error) { ended <- n })
	stop, read := make(chan struct{}), make(chan struct{})
	var taken atomic.Int64
	go func() {
		defer close(read)
		p := make([]byte, 512)
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			n, err := a.Read(p)
			taken.Add(int64(n))
			if err != nil {
				return
			}
		}
	}()
	select {
	case <-ended:
		// A spill after spillDelay leaves the client a few KB in (7 to
		// 10 KB measured); an eighth of the body is far from that.
		if n := taken.Load(); n > size/8 {
			t.Errorf("the upstream ended once the client had read %d of %d bytes: read at the client's pace", n, size)
		}
	case <-time.After(time.Minute):
		t.Error("the upstream did not end")
		a.stop()
	}
	close(stop)
	<-read // close is for after the last Read
	a.close()
}

// TestAheadSpillNotLeftOver: a client that empties the memory before
// spillDelay leaves no spill behind for the next time the memory is
// full, which would send that piece to the file at once.
func TestAheadSpillNotLeftOver(t *testing.T) {
	made := 0
	pr, pw := io.Pipe()
	a := newAhead(pr, 0, 16<<10, 1<<20, tempIn(t, &made), aheadPool(), nil, func(int64, error) {})
	defer a.close()
	defer pw.Close()
	pw.Write(make([]byte, 16<<10)) // fills the memory
	go pw.Write([]byte{1})         // waits for room
	time.Sleep(time.Millisecond)
	io.ReadFull(a, make([]byte, 16<<10)) // room again before spillDelay
	time.Sleep(4 * spillDelay)
	a.mu.Lock()
	spill := a.spill
	a.mu.Unlock()
	if spill {
		t.Error("spill left set after the client emptied the memory")
	}
}

// lastRead is a reader that remembers the size of its last read.
type lastRead struct {
	r io.Reader
	n int
}

func (l *lastRead) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n = n
	return n, err
}

// waitsFunc is a Pieces whose Waits is the function.
type waitsFunc func() bool

func (f waitsFunc) Waits() bool { return f() }

// TestAheadPassesAPieceThatWaitedForRoom: a piece that ends where the
// client should have what was read (waits) but had to wait for room in
// a full memory still flushes the client once the reader has taken it;
// marking it at put's start let the reader spend the flush on the bytes
// before it, when it emptied the memory before the piece went in.
func TestAheadPassesAPieceThatWaitedForRoom(t *testing.T) {
	const first, piece = 16 << 10, 100
	made := 0
	pr, pw := io.Pipe()
	src := &lastRead{r: pr}
	a := newAhead(src, 0, 16<<10, 0, tempIn(t, &made), aheadPool(), waitsFunc(func() bool { return src.n == piece }), func(int64, error) {})
	defer a.close()
	defer pw.Close()
	flushed := make(chan int, 8)
	got := 0
	a.idle = func() { flushed <- got }
	pw.Write(make([]byte, first)) // fills the memory
	go pw.Write(make([]byte, piece))
	for { // until the piece waits for room
		a.mu.Lock()
		n := a.n
		a.mu.Unlock()
		if n == first+piece {
			break
		}
		time.Sleep(time.Millisecond)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		for {
			n, err := a.Read(buf)
			got += n
			if err != nil {
				return
			}
		}
	}()
	timeout := time.After(10 * time.Second)
	for at := 0; at != first+piece; {
		select {
		case at = <-flushed:
		case <-timeout:
			t.Fatalf("no flush once the reader had the piece that ends (last at %d of %d bytes)", at, first+piece)
		}
	}
	pw.Close()
	<-read
}
