package slice

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// runNext is the Fetch of a Handler used as plain middleware: the
// content runs again in a goroutine for the slice's request, and its
// body streams through a pipe. Closing the body stops the content's
// writes.
func (h *Handler) runNext(r *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	fw := &fetchWriter{header: http.Header{}, ready: make(chan struct{}), pipe: pw}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				fw.end(errors.New("slice content aborted"))
				return
			}
			fw.end(nil)
		}()
		h.next.ServeHTTP(fw, r)
	}()
	select {
	case <-fw.ready:
	case <-r.Context().Done():
		pr.CloseWithError(r.Context().Err())
		return nil, r.Context().Err()
	}
	if fw.err != nil {
		pr.Close()
		return nil, fw.err
	}
	resp := &http.Response{StatusCode: fw.status, Header: fw.sent, Body: pr, ContentLength: -1, Request: r}
	if n, err := strconv.ParseInt(fw.sent.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = n
	}
	return resp, nil
}

// fetchWriter hands the status and header over once, then the body.
type fetchWriter struct {
	header http.Header
	sent   http.Header
	status int
	once   sync.Once
	ready  chan struct{}
	pipe   *io.PipeWriter
	err    error // the content failed before its header
}

func (f *fetchWriter) Header() http.Header { return f.header }

func (f *fetchWriter) WriteHeader(code int) {
	if code < 200 {
		return
	}
	f.once.Do(func() {
		f.status, f.sent = code, f.header.Clone()
		close(f.ready)
	})
}

func (f *fetchWriter) Write(p []byte) (int, error) {
	f.WriteHeader(http.StatusOK)
	return f.pipe.Write(p)
}

// end closes the body, with err when the content broke off.
func (f *fetchWriter) end(err error) {
	started := true
	f.once.Do(func() {
		started = false
		f.err = err
		if err == nil {
			f.status, f.sent = http.StatusOK, f.header.Clone()
		}
		close(f.ready)
	})
	if started {
		f.pipe.CloseWithError(err)
	} else {
		f.pipe.Close()
	}
}
