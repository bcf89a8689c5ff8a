package static

import (
	"fmt"
	"io"
	"net/http"
)

// A Cutter decides the body of a GET or HEAD of a regular file from the
// request, as NGINX's flv and mp4 modules answer "?start=" with a part of
// the file behind a head of their own. f reads the file, size long. A
// status other than 0 is answered instead (an error page); a Cut of the
// whole file, Cut{To: size}, serves the file as it is.
//
// The FileServer computes the validators, the conditional requests and
// the ranges from the cut body as NGINX does from the content handler's
// Content-Length: the ETag is the file's modification time and the cut
// body's length, Last-Modified the file's, and a Range selects bytes of
// the cut body.
type Cutter func(r *http.Request, f io.ReaderAt, size int64) (c Cut, status int)

// Cut is a body made of Head followed by the bytes [From, To) of a file.
// SingleRange takes at most one range of it: a request for several gets
// the whole body, as NGINX's mp4 module asks of its range filter.
type Cut struct {
	Head        []byte
	From, To    int64
	SingleRange bool
}

// size is the length of the body.
func (c Cut) size() int64 { return int64(len(c.Head)) + c.To - c.From }

// send writes the bytes [off, off+n) of the body that c makes of f.
func (c Cut) send(w http.ResponseWriter, f *file, off, n int64, inline bool) error {
	head := int64(len(c.Head))
	if off < head {
		k := min(n, head-off)
		if _, err := w.Write(c.Head[off : off+k]); err != nil {
			return fmt.Errorf("write head of cut body: %w", err)
		}
		off, n = off+k, n-k
		if n == 0 {
			return nil
		}
	}
	return f.send(w, c.From+off-head, n, inline)
}
