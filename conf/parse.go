package conf

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxIncludeDepth stops include cycles (a file that includes itself)
// before they exhaust the stack.
const maxIncludeDepth = 32

// Options adjust how files are read.
type Options struct {
	// Fallback supplies a built-in file for an include of a plain relative
	// name that does not exist on disk (mosaic embeds NGINX's mime.types
	// this way). It returns the text and true when it knows the name.
	Fallback func(name string) (string, bool)
}

// ParseFile reads the file at path and every file it includes. As in
// NGINX, a relative include path is taken from the directory of path (the
// configuration prefix), whichever file the include is written in.
func ParseFile(path string, opts Options) ([]*Directive, error) {
	src, ferr := readFile(path)
	if ferr != nil {
		return nil, ferr.conf(nil)
	}
	p := &parser{opts: opts, prefix: confPrefix(path)}
	return p.parse(path, src, 0)
}

// ParseString parses src as if it were the contents of the main
// configuration file name; relative includes are taken from the directory
// of name.
func ParseString(name, src string, opts Options) ([]*Directive, error) {
	p := &parser{opts: opts, prefix: confPrefix(name)}
	return p.parse(name, src, 0)
}

// confPrefix is NGINX's conf_prefix: the main file's name up to and
// including its last slash, to which relative include paths are appended
// as written (NGINX does not clean "a/../b"). A name without a directory
// gives "", so includes are then found from the working directory, as the
// file itself was.
func confPrefix(path string) string {
	return path[:strings.LastIndexAny(path, "/"+string(filepath.Separator))+1]
}

type parser struct {
	opts   Options
	prefix string
}

func (p *parser) parse(file, src string, depth int) ([]*Directive, error) {
	return p.block(newLexer(file, src), depth, false)
}

// block reads statements until "}" (when inBlock) or the end of the text,
// as ngx_conf_parse does, with its messages.
func (p *parser) block(lx *lexer, depth int, inBlock bool) ([]*Directive, error) {
	dirs := []*Directive{}
	for {
		words, end, err := lx.statement()
		if err != nil {
			return nil, err
		}
		switch end {
		case endClose:
			if !inBlock {
				return nil, lx.errorf(lx.line, `unexpected "}"`)
			}
			return dirs, nil
		case endEOF:
			if inBlock {
				return nil, lx.errorf(lx.line, `unexpected end of file, expecting "}"`)
			}
			return dirs, nil
		}
		// NGINX places a directive at the line of its ";" or "{".
		d := &Directive{Name: words[0].text, File: lx.file, Line: lx.line}
		for _, w := range words[1:] {
			d.Args = append(d.Args, w.text)
		}
		if d.Name == "include" {
			if end == endBlock {
				return nil, Errorf(d, `directive "include" is not terminated by ";"`)
			}
			inc, err := p.include(d, depth)
			if err != nil {
				return nil, err
			}
			dirs = append(dirs, inc...)
			continue
		}
		if end == endBlock {
			if d.Block, err = p.block(lx, depth, true); err != nil {
				return nil, err
			}
			d.EndLine = lx.line
		}
		dirs = append(dirs, d)
	}
}

// include expands "include file|mask;" in place, as ngx_conf_include does:
// a relative name is appended to the configuration prefix (the directory
// of the main file, not of the file that holds the include); a name with
// "*", "?" or "[" anywhere in that full path is a mask, which may match
// nothing and is expanded as glob(3) would; a plain name must exist.
func (p *parser) include(d *Directive, depth int) ([]*Directive, error) {
	if len(d.Args) != 1 {
		return nil, Errorf(d, `invalid number of arguments in "include" directive`)
	}
	if depth >= maxIncludeDepth {
		return nil, Errorf(d, "include nesting deeper than %d (an include cycle?)", maxIncludeDepth)
	}
	name := d.Args[0]
	full := name
	if !filepath.IsAbs(name) {
		full = p.prefix + name
	}
	files := []string{full}
	if strings.ContainsAny(full, "*?[") {
		files = glob(full)
	}
	var out []*Directive
	for _, f := range files {
		src, ferr := readFile(f)
		if ferr != nil {
			if ferr.op != "open" {
				return nil, ferr.conf(nil)
			}
			if errors.Is(ferr.err, fs.ErrNotExist) && p.opts.Fallback != nil && !filepath.IsAbs(name) {
				if text, ok := p.opts.Fallback(name); ok {
					sub, err := p.parse(name+" (built-in)", text, depth+1)
					if err != nil {
						return nil, err
					}
					out = append(out, sub...)
					continue
				}
			}
			return nil, ferr.conf(d)
		}
		sub, err := p.parse(f, src, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

// fileError is a failure to read a configuration file: op is "open" or,
// for a directory (which opens but cannot be read), "pread", the names
// NGINX's messages use.
type fileError struct {
	op, path string
	err      error
}

// conf turns the failure into NGINX's message, placed at the include d
// (NGINX places open failures of included files, not read failures nor
// failures of the main file).
func (e *fileError) conf(d *Directive) *Error {
	ce := &Error{Msg: fmt.Sprintf(`%s() "%s" failed (%s)`, e.op, e.path, sysError(e.err)), Err: e.err}
	if d != nil {
		ce.File, ce.Line = d.File, d.Line
	}
	return ce
}

func readFile(path string) (string, *fileError) {
	f, err := os.Open(path)
	if err != nil {
		return "", &fileError{"open", path, err}
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return "", &fileError{"pread", path, err}
	}
	return string(b), nil
}

// sysError renders a system error as NGINX does, number and text:
// "2: No such file or directory".
func sysError(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	s := errno.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return fmt.Sprintf("%d: %s", int(errno), s)
}
