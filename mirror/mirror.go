// Package mirror copies a client's request to other URIs in the
// background, as NGINX's ngx_http_mirror_module does: each mirror gets
// the client's method, header, arguments and, when RequestBody is set,
// its body, which is read whole first (in memory up to BodyMemory, then
// in a temporary file) so that the mirrors and the content each read it
// again. The mirrors' answers are dropped and never change the client's.
//
// The package sends nothing itself: Start sends one mirror (in mosaic,
// a background subrequest through the server's locations, see
// modules/mirrormod), Hold keeps the request open until the mirrors have
// ended, once the client's answer is out. Used as plain middleware
// without Hold, the handler waits for the mirrors after the content.
package mirror

import (
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"

	"github.com/mosaic-edge/mosaic/internal/spool"
	"github.com/mosaic-edge/mosaic/vars"
)

// DefaultBodyMemory is how much of a body stays in memory without
// BodyMemory: NGINX's default client_body_buffer_size on 64-bit systems.
const DefaultBodyMemory = 16 << 10

// Mirror is one location's mirrors.
type Mirror struct {
	// URIs are the mirrors' URIs; the request's arguments are added to
	// each, as NGINX gives each mirror subrequest the client's.
	URIs []string
	// RequestBody sends the client's body to the mirrors (NGINX's
	// mirror_request_body, on by default there): it is read whole before
	// the content runs. Without it the mirrors get none, and the body is
	// left to the content.
	RequestBody bool
	// BodyMemory is how much of a body is held in memory before the rest
	// goes to a file made by BodyTemp (client_body_buffer_size and
	// client_body_temp_path); 0 means DefaultBodyMemory, negative a
	// file for every body (client_body_in_file_only); BodyTemp nil
	// means os.CreateTemp in the default directory.
	BodyMemory int64
	BodyTemp   func() (*os.File, error)
	// BodyKeep leaves the file in place once the request is done
	// ("client_body_in_file_only on"); otherwise it is removed.
	BodyKeep bool
	// Start sends one mirror: uri (with the arguments), the client's
	// method and a copy of its header, and body (nil for none; an
	// io.ReadCloser from spool's Body) of size bytes, which stays
	// readable until wait has returned. wait returns
	// once the mirror has ended. An error fails the request with 500, as
	// NGINX's failure to create a subrequest does.
	Start func(r *http.Request, uri, method string, header http.Header, body io.Reader, size int64) (wait func(), err error)
	// Hold runs f once the client's response is out, and keeps the
	// request open until f returns; it reports false where it cannot,
	// and the handler then runs f itself after the content.
	Hold func(r *http.Request, f func()) bool
	// Error answers the client when its body cannot be read, or a mirror
	// not started; nil means http.Error with the status's text.
	Error func(w http.ResponseWriter, r *http.Request, code int)
}

// Handler returns next behind m's mirrors.
func (m *Mirror) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { m.serve(w, r, next) })
}

func (m *Mirror) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	var sp *spool.Spool
	if m.RequestBody && r.Body != nil && r.Body != http.NoBody {
		mem := m.BodyMemory
		if mem == 0 {
			mem = DefaultBodyMemory
		}
		temp := m.BodyTemp
		if temp == nil {
			temp = func() (*os.File, error) { return os.CreateTemp("", "mirror-body") }
		}
		var err error
		if sp, err = spool.New(r.Body, mem, temp); err != nil {
			m.fail(w, r, bodyStatus(err))
			return
		}
		sp.Keep = m.BodyKeep
		if st := vars.FromContext(r.Context()); st != nil {
			// The body is the request's now, as NGINX's r->request_body:
			// $request_body has it, and an error_page after the content
			// gives it to the page from there: the page's request is
			// made from the client's, whose body the spool has drained.
			x := st.MakeRare()
			if sp.File == nil {
				x.RequestBody = sp.Mem
			} else {
				x.RequestBodyFile = sp.File.Name()
				x.SavedBody = sp // open until end has run, after the response
			}
			if r.ContentLength < 0 {
				// A body sent without a length (chunked, HTTP/2) has
				// one now, $content_length, as NGINX counts it while
				// reading (a FastCGI application's CONTENT_LENGTH). Not
				// a Content-Length line: a gateway passes the client's.
				x.BodyLength = strconv.FormatInt(sp.Size, 10)
			}
		}
		// The content reads the body again, now of known length.
		r.ContentLength = sp.Size
		r.Body = http.NoBody
		if sp.Size > 0 {
			r.Body = sp.Body()
		}
	}
	waits := make([]func(), 0, len(m.URIs))
	end := func() {
		for _, wait := range waits {
			wait()
		}
		if sp != nil {
			sp.Close() // after the mirrors, which read it
		}
	}
	for _, uri := range m.URIs {
		if r.URL.RawQuery != "" {
			uri += "?" + r.URL.RawQuery
		}
		var body io.Reader
		var size int64
		if sp != nil && sp.Size > 0 {
			// Read from the one copy, which a proxy in the mirror's
			// location sends from where it is (spool.Saved).
			body, size = sp.Body(), sp.Size
		}
		wait, err := m.Start(r, uri, r.Method, r.Header.Clone(), body, size)
		if err != nil {
			end()
			m.fail(w, r, http.StatusInternalServerError)
			return
		}
		waits = append(waits, wait)
	}
	if m.Hold == nil || !m.Hold(r, end) {
		defer end()
	}
	next.ServeHTTP(w, r)
}

// bodyStatus is the answer to a client whose body could not be read
// whole, as NGINX gives it: 413 past client_max_body_size, 408 when the
// client stopped sending (client_body_timeout), 400 when it broke off,
// 500 when the temporary file failed.
func bodyStatus(err error) int {
	var se *spool.SourceError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, os.ErrDeadlineExceeded):
		return http.StatusRequestTimeout
	case errors.As(err, &se):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

func (m *Mirror) fail(w http.ResponseWriter, r *http.Request, code int) {
	if m.Error != nil {
		m.Error(w, r, code)
		return
	}
	http.Error(w, http.StatusText(code), code)
}
