// Package spool saves a request body whole, as NGINX reads a client's
// body into client_body_buffer_size of memory and the rest into a
// temporary file in client_body_temp_path: the proxy, which must know
// a body's length before it can send it over HTTP/1.0, and the mirror
// module, whose subrequests and content each read the body again.
package spool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// Spool holds a body read whole: in Mem when it fits the memory it was
// given, otherwise in File. The file of a body that overflowed memory has
// no name left once made; that of a body sent to a file whatever its size
// is removed by Close, unless Keep is set.
type Spool struct {
	Mem  []byte
	File *os.File
	Size int64
	// Keep leaves the file in place when the spool is closed, as
	// NGINX's client_body_in_file_only on leaves it.
	Keep bool
	// unlinked: the file's name was removed when it was made.
	unlinked bool
	// closed: Close has run. File stays set, so that a reader made as
	// the owner closes the spool (a subrequest still sending the body
	// of a request that has ended) races on nothing: its reads fail.
	closed atomic.Bool
}

// SourceError is a failure reading the body's source (the client), told
// apart from one writing the temporary file.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return "read body: " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// New reads src to its end: up to memory bytes stay in memory, a longer
// body goes to a file made by temp. A negative memory sends every body to
// a file, an empty one too (client_body_in_file_only). A failure of src
// comes back as a *SourceError.
func New(src io.Reader, memory int64, temp func() (*os.File, error)) (*Spool, error) {
	head, err := io.ReadAll(io.LimitReader(src, max(memory, -1)+1))
	if err != nil {
		return nil, &SourceError{err}
	}
	if memory >= 0 && int64(len(head)) <= memory {
		return &Spool{Mem: head, Size: int64(len(head))}, nil
	}
	f, err := temp()
	if err != nil {
		return nil, fmt.Errorf("spool request body: %w", err)
	}
	s := &Spool{File: f}
	if memory >= 0 {
		// A body that merely overflowed memory is kept by its open
		// file only, as NGINX removes the name of such a file as soon
		// as it is made: $request_body_file names a file that is gone,
		// and none is left behind whatever becomes of the process.
		// client_body_in_file_only keeps the name for the request.
		s.unlinked = os.Remove(f.Name()) == nil
	}
	n, err := f.Write(head)
	if err == nil {
		var m int64
		m, err = io.Copy(f, sourceOnly{src})
		n += int(m)
	}
	s.Size = int64(n)
	if err != nil {
		s.Close()
		var se *SourceError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, fmt.Errorf("spool request body: %w", err)
	}
	return s, nil
}

// Reader returns a reader of the whole body from its start; readers are
// independent of each other and may be used at the same time.
func (s *Spool) Reader() io.Reader {
	if s.File != nil {
		return io.NewSectionReader(s.File, 0, s.Size)
	}
	return bytes.NewReader(s.Mem)
}

// Body returns a request Body that reads the whole body from its start
// and tells Saved the spool it comes from: a handler after the one that
// saved the body (the proxy behind mirror) takes the spool rather than
// saving the body a second time, as NGINX reads a request's body once.
// Closing it does nothing; the spool's owner closes the spool.
func (s *Spool) Body() io.ReadCloser { return &saved{Reader: s.Reader(), spool: s} }

// Saved returns the spool that made body with Body, or nil.
func Saved(body io.Reader) *Spool {
	if b, ok := body.(*saved); ok {
		return b.spool
	}
	return nil
}

type saved struct {
	io.Reader
	spool *Spool
}

func (*saved) Close() error { return nil }

// Close closes the temporary file, if any, and removes it unless Keep is
// set; readers of it fail from then on. A second Close does nothing.
func (s *Spool) Close() {
	if s.File != nil && !s.closed.Swap(true) {
		name := s.File.Name()
		_ = s.File.Close()
		if !s.Keep && !s.unlinked {
			_ = os.Remove(name)
		}
	}
}

// sourceOnly marks errors from the source while copying into the file,
// so they are told apart from errors writing the file.
type sourceOnly struct{ r io.Reader }

func (r sourceOnly) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		err = &SourceError{err}
	}
	return n, err
}
