package proxy

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/internal/spool"
	"github.com/mosaic-edge/mosaic/vars"
)

// How the request body is framed towards the upstream.
const (
	bodyNone    = iota
	bodyLength  // Content-Length: length (possibly 0)
	bodyChunked // Transfer-Encoding: chunked
)

// defaultBodyMemory is how much of a body of unknown length is held in
// memory before it goes to a temporary file, without BodyBufferSize:
// NGINX's default client_body_buffer_size on 64-bit systems.
const defaultBodyMemory = 16 << 10

// reqBody is the request body as the proxy sends it.
type reqBody struct {
	kind   int
	length int64
	src    io.Reader    // the client's body, read once
	spool  *spool.Spool // or the body saved for HTTP/1.0, replayable
	// borrowed: spool is another handler's, which closes it.
	borrowed bool
	// unsent: length is announced, yet no byte of the body goes (see
	// prepareBody); the connection cannot serve another request.
	unsent  bool
	wire    Wire         // frames the bytes; nil: sent as they are
	started bool         // a read of src has begun, so it cannot be sent again
	state   atomic.Int32 // sendWriting or sendReading, while a goroutine sends
}

// clientError is a failure on the client's side of the exchange: its body
// broke off or exceeded a limit.
type clientError struct{ err error }

func (e *clientError) Error() string { return "client body: " + e.err.Error() }
func (e *clientError) Unwrap() error { return e.err }

// prepareBody decides the framing. A body of known length is streamed with
// its Content-Length. One of unknown length is streamed chunked with
// HTTP/1.1; HTTP/1.0 cannot frame it, so, as NGINX does, the proxy saves it
// first (in memory up to client_body_buffer_size, then in a temporary
// file) to learn its length.
func (x *exchange) prepareBody() error {
	r, b := x.r, &x.body
	// No body. (For a request an http.Server read, a zero length is
	// exact; for one built in-process it means "unknown" unless the body
	// is NoBody.)
	empty := r.Body == nil || r.Body == http.NoBody || (r.ContentLength == 0 && r.RequestURI != "")
	// Whether an empty body was declared so ("Content-Length: 0") or
	// came without a length. A lookup of the name hashes it (about 146
	// instructions), and only two things read the answer: the HTTP
	// head's framing (a declared empty body sends its 0) and
	// client_body_in_file_only's file. A body that is not empty, and a
	// Wire's (FastCGI's) empty one without that file, whose framing the
	// Wire makes from the length alone, go without it.
	declared := false
	if empty && (x.h.wire == nil || x.h.bodyMemory < 0) {
		_, declared = r.Header["Content-Length"]
	}
	// DropBody reads the body whole as NGINX does, to learn its length,
	// then sends that length alone.
	drop := x.h.dropBody && x.h.wire == nil
	switch {
	case r.Body == http.NoBody && r.ContentLength > 0 && x.h.wire == nil:
		// A length without its body: a subrequest made before its
		// parent read the body (auth_request), see below.
		b.kind, b.length, b.unsent = bodyLength, r.ContentLength, true
	case spool.Saved(r.Body) != nil:
		// Saved whole before (mirror_request_body, a subrequest's share
		// of its parent's body): sent from there, as NGINX reads a body
		// once, with its length whatever proxy_request_buffering says,
		// as NGINX sends a body already read; its owner removes the
		// file.
		sp := spool.Saved(r.Body)
		b.kind, b.length, b.spool, b.borrowed = bodyLength, sp.Size, sp, true
	case empty && !(declared && x.h.bodyMemory < 0):
		// client_body_in_file_only makes a file for a body declared
		// empty, not for a request without one, as NGINX.
		if declared {
			b.kind = bodyLength
		}
	case !drop && r.ContentLength > 0 && !x.h.requestBuffering:
		b.kind, b.length, b.src = bodyLength, r.ContentLength, r.Body
	case !drop && x.h.http11 && !x.h.requestBuffering && !bodyArrived(x.st):
		// A chunked body that came whole with the head is saved below
		// and sent with its length, as from NGINX.
		b.kind, b.src = bodyChunked, r.Body
	default:
		src := r.Body
		if empty {
			src = http.NoBody
		}
		sp, err := spool.New(src, x.h.bodyMemory, x.h.bodyTemp)
		if se := (*spool.SourceError)(nil); errors.As(err, &se) {
			return &clientError{se.Err}
		}
		if err != nil {
			return err
		}
		if r.ContentLength > 0 && sp.Size != r.ContentLength {
			sp.Close()
			return &clientError{io.ErrUnexpectedEOF}
		}
		b.kind, b.length, b.spool = bodyLength, sp.Size, sp
		sp.Keep = x.h.bodyKeep
		if sp.File == nil && x.st != nil {
			// Read whole into memory: $request_body has it, as in NGINX.
			x.st.MakeRare().RequestBody = sp.Mem
		} else if x.st != nil {
			// Past client_body_buffer_size: $request_body_file names it.
			x.st.MakeRare().RequestBodyFile = sp.File.Name()
			if x.h.bodyAtEnd != nil && x.h.bodyAtEnd(r, sp.Close) {
				// The request's from now on, for an error page.
				b.borrowed = true
				x.st.MakeRare().SavedBody = sp
			}
		}
		if x.h.wire != nil && r.ContentLength <= 0 || r.ContentLength < 0 {
			// $content_length, which NGINX knows once it has read a
			// chunked body whole: in the access log, and a gateway's
			// CONTENT_LENGTH (from ContentLength, used on its own, too).
			// Not a Content-Length line: the application gets the header
			// lines the client sent (an HTTP/2 body without
			// content-length has none).
			if x.h.wire != nil {
				r.ContentLength = sp.Size
			}
			if x.st != nil {
				x.st.MakeRare().BodyLength = strconv.FormatInt(sp.Size, 10)
			}
		}
	}
	if drop && b.length > 0 {
		b.unsent = true
	}
	if b.unsent && x.h.dropLength {
		// NGINX's Content-Length is the request's (content_length_n)
		// whether or not the body goes, so without this the upstream
		// waits for a body that never comes, until one side's timeout.
		// "proxy_set_header Content-Length "";" is NGINX's way out.
		b.kind, b.length, b.unsent = bodyNone, 0, false
	}
	b.wire = x.h.wire
	return nil
}

// bodyArrived reports a chunked body that came whole with the request's
// head (an HTTP/1.x connection's BodyArrived): NGINX, unbuffered, reads
// what is there first, finds the body complete and sends
// "Content-Length: N" rather than chunks ("0" for an empty one).
func bodyArrived(st *vars.State) bool {
	if st == nil {
		return false
	}
	a, ok := st.Wire.(interface{ BodyArrived() bool })
	return ok && a.BodyArrived()
}

// replayable reports whether the body can be sent again to another server.
func (b *reqBody) replayable() bool {
	return b.src == nil || !b.started
}

// hasBytes reports whether the body has any content to stream.
func (b *reqBody) hasBytes() bool {
	return !b.unsent && (b.kind == bodyChunked || b.length > 0)
}

func (b *reqBody) close() {
	if b.spool != nil && !b.borrowed {
		b.spool.Close()
	}
}

// writeTo streams the body into bw, flushing after every read so that the
// upstream sees data as soon as the client sends it. Failures reading the
// client come back as *clientError.
func (b *reqBody) writeTo(bw *bufio.Writer, buf []byte) error {
	var src io.Reader
	if b.spool != nil {
		src = b.spool.Reader()
	} else {
		// The head goes out before the first read of the client, which
		// may wait: the upstream may answer from the head alone.
		if err := bw.Flush(); err != nil {
			return err
		}
		src = &watchedReader{r: b.src, state: &b.state}
		b.started = true
	}
	if b.kind == bodyChunked {
		return writeChunked(bw, src, buf)
	}
	for remaining := b.length; remaining > 0; {
		p := buf
		if int64(len(p)) > remaining {
			p = p[:remaining]
		}
		n, err := src.Read(p)
		if n > 0 {
			remaining -= int64(n)
			if werr := b.put(bw, p[:n]); werr != nil {
				return werr
			}
			if werr := bw.Flush(); werr != nil {
				return werr
			}
		}
		if err == io.EOF && remaining > 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil && err != io.EOF {
			return &clientError{err}
		}
		if err == io.EOF {
			break
		}
	}
	if b.wire != nil {
		if err := b.wire.EndBody(bw); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// put writes a piece of the body, framed by the Wire if there is one.
func (b *reqBody) put(bw *bufio.Writer, p []byte) error {
	if b.wire != nil {
		return b.wire.WriteBody(bw, p)
	}
	_, err := bw.Write(p)
	return err
}

func writeChunked(bw *bufio.Writer, src io.Reader, buf []byte) error {
	var size [16]byte
	for {
		n, err := src.Read(buf)
		if n > 0 {
			bw.Write(strconv.AppendInt(size[:0], int64(n), 16))
			bw.WriteString("\r\n")
			bw.Write(buf[:n])
			bw.WriteString("\r\n")
			if werr := bw.Flush(); werr != nil {
				return werr
			}
		}
		if err == io.EOF {
			bw.WriteString("0\r\n\r\n")
			return bw.Flush()
		}
		if err != nil {
			return &clientError{err}
		}
	}
}

// watchedReader records that a read of the client's body is in progress.
type watchedReader struct {
	r     io.Reader
	state *atomic.Int32
}

func (w *watchedReader) Read(p []byte) (int, error) {
	w.state.Store(sendReading)
	n, err := w.r.Read(p)
	w.state.Store(sendWriting)
	return n, err
}
