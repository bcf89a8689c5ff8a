// Package accesslog writes one line per request, in NGINX's log_format
// language, once the response is complete. It is net/http middleware with
// no knowledge of the server; modules/accesslogmod wires the log_format
// and access_log directives to it.
package accesslog

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

// Escape is how variable values are escaped in a line.
type Escape int

// The escape= modes of log_format.
const (
	EscapeDefault Escape = iota // `"`, `\` and bytes outside 32..126 as \xXX; "-" for no value
	EscapeJSON                  // JSON string escaping; nothing for no value
	EscapeNone                  // values as they are; nothing for no value
)

// Format is a compiled log_format. It is safe for concurrent use by any
// number of loggers.
type Format struct {
	Name   string // names the format in messages
	Escape Escape // how variable values are escaped
	tpl    *vars.Template
}

// NewFormat compiles text, literal text and $variables, into a format
// called name. The error of an unknown variable is vars.Compile's, worded
// as NGINX words it.
func NewFormat(name, text string, esc Escape) (*Format, error) {
	t, err := vars.Compile(text)
	if err != nil {
		return nil, err
	}
	return NewFormatTemplate(name, t, esc)
}

// NewFormatTemplate is NewFormat for a template the caller compiled, for
// example in a configuration's vars.Scope, whose own variables (map) the
// shared registry does not know.
func NewFormatTemplate(name string, t *vars.Template, esc Escape) (*Format, error) {
	if esc < EscapeDefault || esc > EscapeNone {
		return nil, fmt.Errorf("accesslog: format %q: unknown escaping %d", name, esc)
	}
	if t == nil {
		return nil, fmt.Errorf("accesslog: format %q: no template", name)
	}
	return &Format{Name: name, Escape: esc, tpl: t}, nil
}

// Combined is NGINX's predefined "combined" format.
const Combined = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"`

var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// AppendLine appends the line for r (with its newline) to b.
func (f *Format) AppendLine(b []byte, r *http.Request, st *vars.State) []byte {
	f.tpl.Parts(func(lit string) {
		b = append(b, lit...)
	}, func(val vars.Value) {
		v, ok := val(r, st)
		if !ok {
			// NGINX writes "-" for a variable without a value only
			// with the default escaping; escape=json and escape=none
			// write nothing (ngx_http_log_json_variable), so that a
			// JSON field reads "" rather than "-". A variable whose
			// value is empty is nothing in every escaping.
			if f.Escape == EscapeDefault {
				b = append(b, '-')
			}
			return
		}
		b = appendEscaped(b, v, f.Escape)
	})
	return append(b, '\n')
}

const hexDigits = "0123456789ABCDEF"

func appendEscaped(b []byte, v string, esc Escape) []byte {
	switch esc {
	case EscapeNone:
		return append(b, v...)
	case EscapeJSON:
		for i := 0; i < len(v); i++ {
			c := v[i]
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b': // NGINX's ngx_escape_json has the letters of these too
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			default:
				b = append(b, c)
			}
		}
		return b
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '"' || c == '\\' || c < 0x20 || c > 0x7e {
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

// File is a log destination, written by many requests at once. Without a
// buffer every line is one write, as NGINX does; with one, lines are
// gathered and written when the buffer fills or flush time has passed.
type File struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	size    int
	flushAt time.Duration
	timer   *time.Timer
}

// NewFile wraps w; size 0 writes each line at once.
func NewFile(w io.Writer, size int, flush time.Duration) *File {
	return &File{w: w, size: size, flushAt: flush}
}

// Write writes one complete line.
func (f *File) Write(line []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.size == 0 {
		_, err := f.w.Write(line)
		return err
	}
	if len(f.buf)+len(line) > f.size {
		if err := f.flushLocked(); err != nil {
			return err
		}
		if len(line) > f.size {
			_, err := f.w.Write(line)
			return err
		}
	}
	f.buf = append(f.buf, line...)
	if f.flushAt > 0 && f.timer == nil {
		f.timer = time.AfterFunc(f.flushAt, func() { _ = f.Flush() })
	}
	return nil
}

// Flush writes what the buffer holds.
func (f *File) Flush() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.flushLocked()
}

func (f *File) flushLocked() error {
	if f.timer != nil {
		f.timer.Stop()
		f.timer = nil
	}
	if len(f.buf) == 0 {
		return nil
	}
	_, err := f.w.Write(f.buf)
	f.buf = f.buf[:0]
	if err != nil {
		return fmt.Errorf("writing access log: %w", err)
	}
	return nil
}

// Target is one access_log line: where, in which format, and on which
// condition.
type Target struct {
	File *File
	// Open, in place of File, opens the destination of one line, which is
	// closed once the line is written: a log whose file depends on the
	// request (NGINX's access_log path with variables, unbuffered, opened
	// for each line). An error skips the line.
	Open   func(r *http.Request, st *vars.State) (io.WriteCloser, error)
	Format *Format
	// If, when set, skips the line when it evaluates to "" or "0" (the
	// if= parameter).
	If *vars.Template
}

// Options configure the logger. New copies what it keeps, so the caller
// may change or reuse them afterwards.
type Options struct {
	// Targets each get one line per request, in this order. Several
	// targets, and several loggers, may share a File.
	Targets []Target
	// Choose, when set, picks the targets when the line is written, from
	// the request as it ended, in place of Targets: a server whose
	// internal redirects move a request to another location logs it with
	// that location's, as NGINX's log phase reads the configuration the
	// request ended in. The targets it returns must have a File or an
	// Open, and a Format.
	Choose func(r *http.Request, st *vars.State) []Target
}

// New returns next wrapped so that every request it serves is logged to
// each target once the response is complete. Inside mosaic's server the
// line reads the server's record of the request (vars.State); elsewhere
// the logger keeps its own, with the start time, status and body size. It
// returns next itself when there are no targets and no Choose, and an
// error when next is nil or a target lacks a File (or an Open) or a
// Format.
func New(next http.Handler, opts Options) (http.Handler, error) {
	if next == nil {
		return nil, errors.New("accesslog: nil next handler")
	}
	if len(opts.Targets) == 0 && opts.Choose == nil {
		return next, nil
	}
	for i, t := range opts.Targets {
		if t.File == nil && t.Open == nil || t.Format == nil {
			return nil, fmt.Errorf("accesslog: target %d has no file or no format", i)
		}
	}
	return &logger{next: next, targets: append([]Target(nil), opts.Targets...), choose: opts.Choose}, nil
}

type logger struct {
	next    http.Handler
	targets []Target
	choose  func(*http.Request, *vars.State) []Target
}

func (l *logger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	st := vars.FromContext(r.Context())
	if st == nil {
		// Used outside the server: keep our own record of the response.
		st = &vars.State{Start: time.Now()}
		r = r.WithContext(vars.NewContext(r.Context(), st))
		w = &countingWriter{ResponseWriter: w, st: st}
	}
	defer l.log(r, st) // also after a panic that ends the request: not complete
	l.next.ServeHTTP(w, r)
	st.MarkComplete(r.Context().Err())
}

func (l *logger) log(r *http.Request, st *vars.State) {
	targets := l.targets
	if l.choose != nil {
		if targets = l.choose(r, st); len(targets) == 0 {
			return
		}
	}
	st.BodyStarts() // a handler that wrote nothing sends an empty 200
	bp := linePool.Get().(*[]byte)
	for _, t := range targets {
		if t.If != nil {
			if v := t.If.EvalState(r, st); v == "" || v == "0" {
				continue
			}
		}
		line := t.Format.AppendLine((*bp)[:0], r, st)
		*bp = line
		if t.Open == nil {
			_ = t.File.Write(line)
			continue
		}
		if f, err := t.Open(r, st); err == nil {
			_, _ = f.Write(line)
			_ = f.Close()
		}
	}
	linePool.Put(bp)
}

// countingWriter records status and size when no server State exists.
type countingWriter struct {
	http.ResponseWriter
	st *vars.State
}

func (c *countingWriter) WriteHeader(code int) {
	c.st.WroteHeader(code)
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	c.st.BodyStarts()
	n, err := c.ResponseWriter.Write(b)
	c.st.BodyBytes += int64(n)
	return n, err
}

func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// String describes a format for messages.
func (f *Format) String() string { return f.Name + " (" + strconv.Quote(f.tpl.String()) + ")" }
