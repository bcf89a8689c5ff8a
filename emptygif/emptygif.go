// Package emptygif serves NGINX's empty_gif: the 43-byte transparent 1x1
// GIF of ngx_http_empty_gif_module, byte for byte, with its fixed
// modification time, to GET and HEAD only. It is an http.Handler of its
// own; modules/emptygifmod makes it a location's content.
package emptygif

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// GIF is the image: a 1x1 GIF89a whose one pixel is transparent.
var GIF = [43]byte{
	'G', 'I', 'F', '8', '9', 'a', // header
	0x01, 0x00, 0x01, 0x00, // logical screen 1x1
	0x80, 0x01, 0x00, // global 1-bit color table, background #1, no aspect ratio
	0x00, 0x00, 0x00, // #0: black
	0xff, 0xff, 0xff, // #1: white
	0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x01, 0x00, // graphic control: #1 transparent
	0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, // image descriptor 1x1
	0x02, 0x02, 0x4c, 0x01, 0x00, // LZW: clear, 1, end of information
	0x3b, // trailer
}

// LastModified is the image's modification time, NGINX's (23349600
// seconds after the epoch).
var LastModified = time.Unix(23349600, 0).UTC()

// Handler serves GIF.
type Handler struct {
	// Preconditions, when set, evaluates the request's conditional
	// fields for a response without entity tag modified at mtime (Unix
	// seconds), and returns 304, 412, or 0 to send the image: the server
	// passes static.Preconditions with the location's if_modified_since,
	// as NGINX's not-modified filter judges every response alike. nil
	// ignores them.
	Preconditions func(r *http.Request, mtime int64) int
	// Error answers an error status (405 for another method, 412 for a
	// failed precondition); nil: http.Error.
	Error func(w http.ResponseWriter, r *http.Request, code int)
}

var lastModified = header.FormatDate(LastModified)

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.fail(w, r, http.StatusMethodNotAllowed)
		return
	}
	hdr := w.Header()
	// No entity tag, and no ranges: NGINX's response has neither.
	code := 0
	if h.Preconditions != nil {
		code = h.Preconditions(r, LastModified.Unix())
	}
	switch code {
	case http.StatusNotModified:
		hdr["Last-Modified"] = []string{lastModified}
		w.WriteHeader(http.StatusNotModified)
		return
	case http.StatusPreconditionFailed:
		h.fail(w, r, http.StatusPreconditionFailed)
		return
	}
	hdr["Content-Type"] = []string{"image/gif"}
	hdr["Content-Length"] = []string{strconv.Itoa(len(GIF))}
	hdr["Last-Modified"] = []string{lastModified}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(GIF[:])
	}
}

func (h Handler) fail(w http.ResponseWriter, r *http.Request, code int) {
	if h.Error != nil {
		h.Error(w, r, code)
		return
	}
	http.Error(w, http.StatusText(code), code)
}
