package server

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/mosaic-edge/mosaic/vars"
)

// recorder is the outermost response writer: it records the status and
// the body bytes for $status and $body_bytes_sent, and passes every
// optional interface through so that sendfile (io.ReaderFrom), flushing
// and hijacking keep working.
type recorder struct {
	w  http.ResponseWriter
	st *vars.State
}

var recorderPool = sync.Pool{New: func() any { return new(recorder) }}

func newRecorder(w http.ResponseWriter, st *vars.State) *recorder {
	rw := recorderPool.Get().(*recorder)
	rw.w, rw.st = w, st
	st.Header = w.Header()
	return rw
}

func (rw *recorder) release() {
	rw.w, rw.st = nil, nil
	recorderPool.Put(rw)
}

func (rw *recorder) Header() http.Header { return rw.w.Header() }

func (rw *recorder) WriteHeader(code int) {
	if rw.st.Status == 0 || rw.st.Status < 200 {
		rw.st.Status = code
	}
	rw.w.WriteHeader(code)
}

func (rw *recorder) Write(b []byte) (int, error) {
	if rw.st.Status == 0 {
		rw.st.Status = http.StatusOK
	}
	n, err := rw.w.Write(b)
	rw.st.BodyBytes += int64(n)
	return n, err
}

// ReadFrom lets net/http use sendfile for file bodies.
func (rw *recorder) ReadFrom(src io.Reader) (int64, error) {
	if rw.st.Status == 0 {
		rw.st.Status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := rw.w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(rw.w, src)
	}
	rw.st.BodyBytes += n
	return n, err
}

func (rw *recorder) Flush() {
	if rw.st.Status == 0 {
		rw.st.Status = http.StatusOK
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (rw *recorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(rw.w).Hijack()
}

func (rw *recorder) Unwrap() http.ResponseWriter { return rw.w }
