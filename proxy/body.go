package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
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
	kind    int
	length  int64
	src     io.Reader    // the client's body, read once
	spool   *spool       // or the body saved for HTTP/1.0, replayable
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
	switch {
	case r.Body == nil || r.Body == http.NoBody || (r.ContentLength == 0 && r.RequestURI != ""):
		// No body. (For a request an http.Server read, a zero length is
		// exact; for one built in-process it means "unknown" unless the
		// body is NoBody.)
		if _, ok := r.Header["Content-Length"]; ok {
			b.kind = bodyLength
		}
	case r.ContentLength > 0 && !x.h.requestBuffering:
		b.kind, b.length, b.src = bodyLength, r.ContentLength, r.Body
	case x.h.http11 && !x.h.requestBuffering:
		b.kind, b.src = bodyChunked, r.Body
	default:
		sp, err := newSpool(r.Body, x.h.bodyMemory, x.h.bodyTemp)
		if err != nil {
			return err
		}
		if r.ContentLength > 0 && sp.size != r.ContentLength {
			sp.close()
			return &clientError{io.ErrUnexpectedEOF}
		}
		b.kind, b.length, b.spool = bodyLength, sp.size, sp
		if sp.file == nil && x.st != nil {
			// Read whole into memory: $request_body has it, as in NGINX.
			x.st.RequestBody = sp.mem
		} else if x.st != nil {
			// Past client_body_buffer_size: $request_body_file names it.
			x.st.RequestBodyFile = sp.file.Name()
		}
		if x.h.wire != nil && r.ContentLength <= 0 {
			// A gateway's CONTENT_LENGTH comes from $content_length,
			// which NGINX knows once it has read a chunked body whole.
			r.ContentLength = sp.size
			r.Header.Set("Content-Length", strconv.FormatInt(sp.size, 10))
		}
	}
	b.wire = x.h.wire
	return nil
}

// replayable reports whether the body can be sent again to another server.
func (b *reqBody) replayable() bool {
	return b.src == nil || !b.started
}

// hasBytes reports whether the body has any content to stream.
func (b *reqBody) hasBytes() bool {
	return b.kind == bodyChunked || b.length > 0
}

func (b *reqBody) close() {
	if b.spool != nil {
		b.spool.close()
	}
}

// writeTo streams the body into bw, flushing after every read so that the
// upstream sees data as soon as the client sends it. Failures reading the
// client come back as *clientError.
func (b *reqBody) writeTo(bw *bufio.Writer, buf []byte) error {
	var src io.Reader
	if b.spool != nil {
		src = b.spool.reader()
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

// spool holds a request body of unknown length: in memory when short,
// otherwise in a temporary file that close removes.
type spool struct {
	mem  []byte
	file *os.File
	size int64
}

func newSpool(src io.Reader, memory int64, temp func() (*os.File, error)) (*spool, error) {
	head, err := io.ReadAll(io.LimitReader(src, memory+1))
	if err != nil {
		return nil, &clientError{err}
	}
	if int64(len(head)) <= memory {
		return &spool{mem: head, size: int64(len(head))}, nil
	}
	f, err := temp()
	if err != nil {
		return nil, fmt.Errorf("spool request body: %w", err)
	}
	s := &spool{file: f}
	n, err := f.Write(head)
	if err == nil {
		var m int64
		m, err = io.Copy(f, readerOnly{src})
		n += int(m)
	}
	s.size = int64(n)
	if err != nil {
		s.close()
		var ce *clientError
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, fmt.Errorf("spool request body: %w", err)
	}
	return s, nil
}

func (s *spool) reader() io.Reader {
	if s.file != nil {
		return io.NewSectionReader(s.file, 0, s.size)
	}
	return bytes.NewReader(s.mem)
}

func (s *spool) close() {
	if s.file != nil {
		name := s.file.Name()
		_ = s.file.Close()
		_ = os.Remove(name)
		s.file = nil
	}
}

// readerOnly marks errors from the client while copying into the spool
// file, so they are told apart from errors writing the file.
type readerOnly struct{ r io.Reader }

func (r readerOnly) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = &clientError{err}
	}
	return n, err
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
