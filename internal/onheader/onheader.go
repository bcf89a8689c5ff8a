// Package onheader is the response writer of a filter that changes a
// response's header fields just before the status line goes out (NGINX's
// header filters: add_header, userid), whatever the content below does
// first: WriteHeader, Write, ReadFrom (sendfile stays available) or Flush.
package onheader

import (
	"bufio"
	"io"
	"net"
	"net/http"
)

// Hook is told of the final status once, before the header is written.
type Hook interface {
	BeforeHeader(h http.Header, code int)
}

// Writer calls Hook before the first final status reaches the writer it
// wraps.
type Writer struct {
	http.ResponseWriter
	Hook Hook
	done bool
}

func (w *Writer) WriteHeader(code int) {
	if !w.done && code >= 200 {
		w.done = true
		w.Hook.BeforeHeader(w.ResponseWriter.Header(), code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *Writer) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// ReadFrom keeps sendfile available to the content below.
func (w *Writer) ReadFrom(src io.Reader) (int64, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		return rf.ReadFrom(src)
	}
	return io.Copy(w.ResponseWriter, src)
}

func (w *Writer) Flush() {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *Writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *Writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
