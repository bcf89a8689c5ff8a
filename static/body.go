package static

import (
	"fmt"
	"io"
	"net/http"
	"sync"
)

// send writes n bytes of f from offset off to w. inline says the body is
// small enough to read into memory and write after the header (see
// inlineBody); otherwise it goes out with sendfile.
//
// A descriptor shared through the open file cache cannot be handed to
// sendfile, which reads from the file position that every request shares.
// Up to copyBufSize bytes are read at their offset (one pread) and
// written like any body; a longer body gets a descriptor of its own,
// opened again from the cached one, and goes out with sendfile. Measured
// on loopback, one pread of up to 16 KB and a copy cost less CPU than the
// open, close and separate header write that sendfile needs, and from
// 64 KB on the copies cost more.
func (f *file) send(w http.ResponseWriter, off, n int64, inline bool) error {
	if f.shared == nil {
		if inline {
			return sendAt(w, f.d, off, n)
		}
		return sendOwn(w, f.d, off, n)
	}
	if n > copyBufSize {
		if own := reopen(f.d); own != nil {
			defer own.Close()
			return sendOwn(w, own, off, n)
		}
	}
	return sendAt(w, f.d, off, n)
}

// inlineMax is the largest body that is read into memory and written
// rather than handed to sendfile. Behind mosaic's own HTTP/1.1 server
// (package http1) such a body leaves with its header in one writev, as
// NGINX's does with sendfile off, where sendfile needs a write of its own
// for the header; on loopback every write wakes the client, the dearest
// part of a small response. Up to about 16 KB one read and a copy cost
// less CPU than the separate header write; from 64 KB on the copies cost
// more. Behind net/http, whose connection buffer is 4 KB, the body takes
// two writes either way.
const inlineMax = 16 << 10

// sniffLen is how much of a body net/http's ReadFrom copies through memory,
// for content sniffing, before it hands the rest to sendfile; it skips that
// copy when the header has already gone out.
const sniffLen = 512

// sendOwn sends from a descriptor the request has to itself. A writer
// that implements io.ReaderFrom (net/http's own does) receives the file
// itself, wrapped in an io.LimitedReader, which net/http turns into
// sendfile: the bytes go from the page cache to the socket without a copy
// here. A body longer than sniffLen has the header flushed first, so that
// ReadFrom hands all of it to sendfile.
func sendOwn(w http.ResponseWriter, d descriptor, off, n int64) error {
	if off != 0 {
		if _, err := d.Seek(off, io.SeekStart); err != nil {
			return fmt.Errorf("seek: %w", err)
		}
	}
	// The limit also keeps a file that grows while it is sent from
	// overrunning the Content-Length already announced.
	body := &io.LimitedReader{R: d, N: n}
	if rf, ok := w.(io.ReaderFrom); ok {
		if fl, ok := w.(http.Flusher); ok && n > sniffLen {
			fl.Flush()
		}
		sent, err := rf.ReadFrom(body)
		return sendResult(sent, n, err)
	}
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	sent, err := io.CopyBuffer(w, body, *buf)
	return sendResult(sent, n, err)
}

// copyBufs serves writers that cannot take the file themselves, and
// bodies read at offsets.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

const copyBufSize = 32 << 10

// sendAt copies from d by reading it at offsets (pread) into a pooled
// buffer: for small bodies, and for descriptors that other requests share,
// whose file position, which sendfile would move, belongs to no one
// request.
func sendAt(w io.Writer, d io.ReaderAt, off, n int64) error {
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	sent := int64(0)
	for sent < n {
		chunk := (*buf)[:min(n-sent, int64(len(*buf)))]
		got, rerr := d.ReadAt(chunk, off+sent)
		if got > 0 {
			wrote, werr := w.Write(chunk[:got])
			sent += int64(wrote)
			if werr != nil {
				return sendResult(sent, n, werr)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return sendResult(sent, n, rerr)
		}
	}
	return sendResult(sent, n, nil)
}

// sendResult reports a failed or short send: a file truncated while it is
// sent ends the body before the announced length.
func sendResult(sent, want int64, err error) error {
	if err != nil {
		return fmt.Errorf("send %d of %d bytes: %w", sent, want, err)
	}
	if sent != want {
		return fmt.Errorf("file shrank: sent %d of %d bytes", sent, want)
	}
	return nil
}
