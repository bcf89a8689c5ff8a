package proxymod

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/httpdate"
	core "github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// storeConf is proxy_store: off, on (the file that the location's root
// or alias maps the URI to) or a path with variables.
type storeConf struct {
	on   bool
	path *vars.Template // nil with "on"
}

// parseAccess reads "user:rw group:r all:r" as NGINX does: the user
// always has rw unless a user: word says otherwise.
func parseAccess(c *core.Cmd) (os.FileMode, error) {
	var mode os.FileMode
	user := os.FileMode(0o600)
	for _, a := range c.Args {
		who, right, ok := strings.Cut(a, ":")
		shift := map[string]uint{"user": 6, "group": 3, "all": 0}
		s, known := shift[who]
		bits := map[string]os.FileMode{"rw": 6, "r": 4}[right]
		if !ok || !known || bits == 0 {
			return 0, c.Errorf("invalid value %q", a)
		}
		if who == "user" {
			user = 0
		}
		mode |= bits << s
	}
	return mode | user, nil
}

// dirAccess is the mode of the directories made for a stored file: the
// file's, with search permission wherever it may be read.
func dirAccess(m os.FileMode) os.FileMode { return m | (m&0o444)>>2 }

// wrapStore returns h behind the proxy_store writer of location l, or h
// when the location does not store.
func wrapStore(l *core.Location, h http.Handler) http.Handler {
	return core.LocConf[*locConf](l, module).shared.WrapStore(l, "proxy", h)
}

// storeHandler returns h behind a writer that saves each complete 200
// response from the upstream to the file that sc names, with the access
// mode; name is the directive, for the error log.
func storeHandler(l *core.Location, name string, sc storeConf, access os.FileMode, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			h.ServeHTTP(w, r)
			return
		}
		sw := &storeWriter{ResponseWriter: w, r: r}
		done := false
		defer func() {
			// A response cut short ends the handler with a panic (the
			// proxy's ErrAbortHandler): nothing is stored then.
			if !done || !sw.complete() {
				sw.discard()
				return
			}
			target, climb := "", -1
			if sc.path != nil {
				target = sc.path.Eval(r)
				climb = core.VariableClimb(sc.path, target)
			} else {
				target = l.RequestFilename(r, r.URL.Path)
				// The root's own value: $request_filename is made
				// absolute, which folds a relative root's "..".
				if root, _ := l.Root(); root != nil && !root.Static() {
					climb = core.VariableClimb(root, root.Eval(r))
				}
			}
			if climb >= 0 {
				// A client's value climbs out of the directory the
				// path names (f=../x in ".../$arg_f"), which NGINX
				// writes: nothing is stored.
				sw.discard()
				l.Logger().Error(fmt.Sprintf("%s to %q refused: a variable climbs with \"..\"", name, target))
				return
			}
			if err := sw.keep(target, access); err != nil {
				l.Logger().Error(fmt.Sprintf("%s to %q failed: %v", name, target, err))
			}
		}()
		h.ServeHTTP(sw, r)
		done = true
	})
}

// storeWriter copies a 200 response that the upstream sent into a
// temporary file while it goes to the client.
type storeWriter struct {
	http.ResponseWriter
	r       *http.Request
	tmp     *os.File
	failed  bool
	written int64
	length  int64 // Content-Length, -1 without
	lastMod string
	wrote   bool
}

func (s *storeWriter) WriteHeader(code int) {
	if !s.wrote && code >= 200 {
		s.wrote = true
		s.start(code)
	}
	s.ResponseWriter.WriteHeader(code)
}

// start opens the temporary file when the response is the upstream's
// own 200 (not an error page made for another status).
func (s *storeWriter) start(code int) {
	st := vars.FromContext(s.r.Context())
	up, _ := st.Get("upstream_status")
	if i := strings.LastIndex(up, " "); i >= 0 {
		up = up[i+1:]
	}
	if code != http.StatusOK || up != "200" {
		return
	}
	s.length = -1
	if v := s.Header().Get("Content-Length"); v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.length = n
		}
	}
	s.lastMod = s.Header().Get("Last-Modified")
	f, err := os.CreateTemp("", "mosaic-store-")
	if err != nil {
		s.failed = true
		return
	}
	s.tmp = f
}

func (s *storeWriter) Write(b []byte) (int, error) {
	if !s.wrote {
		s.WriteHeader(http.StatusOK)
	}
	n, err := s.ResponseWriter.Write(b)
	if s.tmp != nil && !s.failed {
		if _, werr := s.tmp.Write(b[:n]); werr != nil {
			s.failed = true
		}
		s.written += int64(n)
	}
	if err != nil {
		s.failed = true
	}
	return n, err
}

func (s *storeWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *storeWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// complete: a 200 whose body arrived whole, as NGINX checks it against
// Content-Length.
func (s *storeWriter) complete() bool {
	return s.tmp != nil && !s.failed && (s.length < 0 || s.length == s.written)
}

func (s *storeWriter) discard() {
	if s.tmp != nil {
		s.tmp.Close()
		os.Remove(s.tmp.Name())
	}
}

// keep moves the temporary file to target, with the access mode, the
// upstream's Last-Modified as its time, and the directories on the way
// made as NGINX makes them.
func (s *storeWriter) keep(target string, access os.FileMode) error {
	name := s.tmp.Name()
	defer os.Remove(name) // gone already when the rename worked
	if err := s.tmp.Chmod(access); err != nil {
		s.tmp.Close()
		return err
	}
	if err := s.tmp.Close(); err != nil {
		return err
	}
	if t, ok := storedTime(s.lastMod); ok {
		_ = os.Chtimes(name, t, t)
	}
	err := os.Rename(name, target)
	if errors.Is(err, os.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(target), dirAccess(access)); err != nil {
			return err
		}
		err = os.Rename(name, target)
	}
	if errors.Is(err, syscall.EXDEV) {
		// The temporary directory is on another file system: copy.
		err = copyFile(name, target, access, s.lastMod)
	}
	return err
}

func copyFile(from, to string, mode os.FileMode, lastMod string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	tmp, err := os.CreateTemp(filepath.Dir(to), ".mosaic-store-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, src); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if t, ok := storedTime(lastMod); ok {
		_ = os.Chtimes(tmp.Name(), t, t)
	}
	return os.Rename(tmp.Name(), to)
}

// storedTime is the time a stored file takes from the upstream's
// Last-Modified, read as NGINX's ngx_http_upstream_store reads it
// (ngx_parse_http_time: "GMT" or no zone alike); none where it reads no
// date, and the file keeps the time it was written.
func storedTime(lastMod string) (time.Time, bool) {
	t, ok := httpdate.Conditional(lastMod)
	return time.Unix(t, 0), ok
}
