// Package conf reads configuration files in NGINX syntax into a tree of
// directives, each remembering the file and line it came from.
//
// The package knows the syntax only: words, quoted strings, comments,
// blocks and the include directive. What a directive means is decided by
// the server's registry.
package conf

import (
	"fmt"
	"strconv"
)

// Directive is one statement: a name, its arguments and, for block
// directives such as "server", the statements inside its braces.
type Directive struct {
	Name string
	Args []string
	// Block is non-nil (possibly empty) when the directive was followed by
	// "{ ... }" rather than ";".
	Block []*Directive
	File  string
	Line  int
	// EndLine is the line of a block's closing "}", where NGINX places
	// the errors it finds only once the block has been read (the http
	// block's merge).
	EndLine int
}

// HasBlock reports whether the directive was written with braces.
func (d *Directive) HasBlock() bool { return d.Block != nil }

// Pos returns "file:line" as NGINX prints positions.
func (d *Directive) Pos() string { return d.File + ":" + strconv.Itoa(d.Line) }

// Error is a configuration error at a place in a file. Its text reads as
// NGINX's does: `unknown directive "brotly" in site.conf:12`.
type Error struct {
	Msg  string
	File string
	Line int
	Err  error // the underlying error, if any
}

func (e *Error) Error() string {
	if e.File == "" {
		return e.Msg
	}
	return fmt.Sprintf("%s in %s:%d", e.Msg, e.File, e.Line)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error placed at d.
func Errorf(d *Directive, format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...), File: d.File, Line: d.Line}
}
