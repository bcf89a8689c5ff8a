// Package charsetmod makes package charset the "charset" output filter
// of the mosaic server: a response whose charset differs from the one
// the client is to get, with a charset_map between them, is recoded as
// it streams. The directives (charset, source_charset, override_charset,
// charset_types, charset_map) are the core's; server.CharsetRecoding
// decides, with NGINX's rules, which response is recoded and how.
package charsetmod

import (
	"io"
	"net/http"

	"github.com/mosaic-edge/mosaic/charset"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/server"
)

var module = &server.Module{
	Name: "charset",
	Filter: &server.Filter{
		// An include's body is recoded into the charset of the page it
		// goes into, as NGINX recodes a subrequest's.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			if !l.CharsetMapped() {
				return next, nil
			}
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				rw := &writer{w: w, r: r, loc: l}
				next.ServeHTTP(rw, r)
				if rw.z != nil {
					_ = rw.z.Close()
				}
			}), nil
		},
	},
}

func init() { server.Register(module) }

// Unranged returns, for static.Options.Unranged and an upstream's forced
// ranges, the test of the types l recodes to or from UTF-8, or nil.
func Unranged(l *server.Location) func(contentType string) bool {
	return l.CharsetUnranged()
}

// writer decides at the header whether the body is recoded and then
// feeds it through a charset.Writer.
type writer struct {
	w     http.ResponseWriter
	r     *http.Request
	loc   *server.Location
	wrote bool
	z     *charset.Writer
}

func (rw *writer) Header() http.Header { return rw.w.Header() }

func (rw *writer) Unwrap() http.ResponseWriter { return rw.w }

func (rw *writer) WriteHeader(code int) {
	if !rw.wrote && code >= 200 {
		rw.wrote = true
		if t, reverse := server.CharsetRecoding(rw.r, rw.loc, rw.w.Header(), code); t != nil && rw.r.Method != http.MethodHead {
			rw.z = t.NewWriter(rw.w, reverse)
			if t.UTF8() { // CharsetRecoding took the length away
				header.UnknownLength(rw.w)
			}
		}
	}
	rw.w.WriteHeader(code)
}

func (rw *writer) Write(b []byte) (int, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rw.z == nil {
		return rw.w.Write(b)
	}
	return rw.z.Write(b)
}

// ReadFrom keeps sendfile for the bodies that are not recoded.
func (rw *writer) ReadFrom(src io.Reader) (int64, error) {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if rf, ok := rw.w.(io.ReaderFrom); ok && rw.z == nil {
		return rf.ReadFrom(src)
	}
	return io.Copy(struct{ io.Writer }{rw}, src)
}

func (rw *writer) Flush() {
	if !rw.wrote {
		rw.WriteHeader(http.StatusOK)
	}
	if f, ok := rw.w.(http.Flusher); ok {
		f.Flush()
	}
}
