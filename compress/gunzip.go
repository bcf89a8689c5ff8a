package compress

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/klauspost/compress/gzip"
)

// gunzipper decompresses a gzip body that arrives in writes. A gzip reader
// pulls its input, while a handler pushes it, so the reader runs on its own
// goroutine. The two never run at once: a write hands its bytes over and
// waits until the reader has used them all and asks for more, so when Write
// returns, everything decodable so far has reached the sink. That keeps the
// response writer single-threaded and makes a handler's Flush see all of
// its output.
type gunzipper struct {
	in   chan []byte   // handler -> reader: the next input
	idle chan struct{} // reader -> handler: input used up
	done chan struct{} // closed when the reader has stopped
	err  error         // why it stopped; read only after done

	cur     []byte
	started bool
	sink    func([]byte) (int, error)
}

// errGunzip marks a gzip body that could not be decoded; the response must
// then be aborted, since its headers and part of its body may be gone.
var errGunzip = errors.New("gunzip")

func newGunzipper(sink func([]byte) (int, error)) *gunzipper {
	g := &gunzipper{
		in:   make(chan []byte),
		idle: make(chan struct{}),
		done: make(chan struct{}),
		sink: sink,
	}
	go g.run()
	return g
}

func (g *gunzipper) run() {
	defer close(g.done)
	zr, err := gzip.NewReader(g)
	if err != nil {
		if err != io.EOF { // no body at all is not an error
			g.err = fmt.Errorf("%w: %w", errGunzip, err)
		}
		return
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := zr.Read(buf)
		if n > 0 {
			if _, werr := g.sink(buf[:n]); werr != nil {
				g.err = werr
				return
			}
		}
		switch {
		case err == io.EOF:
			return
		case err != nil:
			g.err = fmt.Errorf("%w: %w", errGunzip, err)
			return
		}
	}
}

// Read feeds the gzip reader; it runs on the reader's goroutine.
func (g *gunzipper) Read(p []byte) (int, error) {
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
func (g *gunzipper) write(p []byte) (int, error) {
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

func (g *gunzipper) result(n int) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	return n, nil
}

// close ends the input and waits for the reader to finish.
func (g *gunzipper) close() error {
	close(g.in)
	<-g.done
	return g.err
}

// refusesGzip reports whether the client of r does not take gzip, by
// Accept-Encoding or by the gzip_* checks: with gunzip on, a gzip body of
// header h goes to it decoded.
func (c *config) refusesGzip(r *http.Request, h http.Header) bool {
	takesGzip := c.gzipTable.Negotiate(acceptEncoding(r.Header)).Contains(Gzip)
	return !takesGzip || !c.gzipAllowed(r, h)
}

// GunzipTest returns the test of whether New(next, opts) decodes the body
// of a whole response with header h to request r: gunzip is on, the body
// is gzip, and the client does not take gzip. A handler inside that cuts
// byte ranges out of whole responses (a proxy's forced ranges) must then
// send the response whole: NGINX's gunzip filter runs before its range
// filter and leaves the length unknown, so no range is offered. nil when
// gunzip is off.
func GunzipTest(opts Options) (func(r *http.Request, h http.Header) bool, error) {
	if !opts.Gunzip {
		return nil, nil
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return func(r *http.Request, h http.Header) bool {
		return isGzipBody(h) && cfg.refusesGzip(r, h)
	}, nil
}
