package cache

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveStored writes a stored response: its header, a fresh Age, the
// Cache-Status value cs, and the body unless the request is HEAD or its
// conditionals make it a 304.
func (c *Cache) serveStored(w http.ResponseWriter, r *http.Request, obj Object, m *Meta, now time.Time, status, cs string) {
	c.publish(r, status)
	h := w.Header()
	for k, vv := range m.Header {
		h[k] = vv
	}
	// One allocation carries both values.
	vals := make([]string, 2)
	vals[0] = strconv.FormatInt(int64(m.age(now)/time.Second), 10)
	vals[1] = cs
	h["Age"] = vals[0:1:1]
	h["Cache-Status"] = vals[1:2:2]

	code := m.Status
	if code == http.StatusOK && notModified(r, m.Header) {
		delete(h, "Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(code)
	if r.Method == http.MethodHead || !bodyAllowed(code) || m.Size == 0 {
		return
	}
	if _, err := obj.WriteTo(w); err != nil && errors.Is(err, ErrCorrupt) {
		c.log.store("read", m.Key, err)
		if derr := c.store.Delete(context.WithoutCancel(r.Context()), m.Key); derr != nil {
			c.log.store("delete", m.Key, derr)
		}
		// The header is out; only a broken connection tells the client the
		// body is incomplete.
		if r.Context().Value(http.ServerContextKey) != nil {
			panic(http.ErrAbortHandler)
		}
	}
}

// notModified evaluates the request's If-None-Match, or failing that its
// If-Modified-Since, against a 200 response's validators (RFC 9110
// section 13.2.2), so that a hit or a fill can answer 304.
func notModified(r *http.Request, h http.Header) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 {
		etag := ""
		if v := h["Etag"]; len(v) > 0 {
			etag = v[0]
		}
		return etagListMatches(inm, etag)
	}
	ims := r.Header["If-Modified-Since"]
	lm := h["Last-Modified"]
	if len(ims) == 0 || len(lm) == 0 {
		return false
	}
	since, err := http.ParseTime(ims[0])
	if err != nil {
		return false
	}
	modified, err := http.ParseTime(lm[0])
	return err == nil && !modified.After(since)
}

// etagListMatches applies the weak comparison of If-None-Match.
func etagListMatches(lines []string, etag string) bool {
	if etag == "" {
		for _, line := range lines {
			if strings.TrimSpace(line) == "*" {
				return true
			}
		}
		return false
	}
	want := strings.TrimPrefix(etag, "W/")
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimSpace(tag)
			if tag == "*" || strings.TrimPrefix(tag, "W/") == want {
				return true
			}
		}
	}
	return false
}

// invalidating handles an unsafe method: the request goes upstream as is,
// and a non-error answer invalidates what is stored for its URI (RFC 9111
// section 4.4).
func (c *Cache) invalidating(w http.ResponseWriter, r *http.Request) {
	sw := &statusWriter{ResponseWriter: w}
	c.next.ServeHTTP(sw, r)
	if sw.status == 0 || sw.status >= 400 {
		return
	}
	key := c.key(r)
	if err := c.store.Delete(context.WithoutCancel(r.Context()), key); err != nil {
		c.log.store("invalidate", key, err)
	}
}

// statusWriter remembers the status written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 && code >= 200 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// unsafeMethod reports the methods whose success invalidates the URI.
func unsafeMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodConnect:
		return false
	}
	return true
}
