package conf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
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

// ParseFile reads the file at path and every file it includes.
func ParseFile(path string, opts Options) ([]*Directive, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open() %q failed: %w", path, err)
	}
	p := &parser{opts: opts}
	return p.parse(path, string(src), 0)
}

// ParseString parses src as if it were the contents of file name; includes
// are resolved relative to the directory of name.
func ParseString(name, src string, opts Options) ([]*Directive, error) {
	p := &parser{opts: opts}
	return p.parse(name, src, 0)
}

type parser struct {
	opts Options
}

func (p *parser) parse(file, src string, depth int) ([]*Directive, error) {
	lx := newLexer(file, src)
	dirs, err := p.block(lx, depth, false)
	if err != nil {
		return nil, err
	}
	return dirs, nil
}

// block reads statements until "}" (when inBlock) or end of file.
func (p *parser) block(lx *lexer, depth int, inBlock bool) ([]*Directive, error) {
	dirs := []*Directive{}
	for {
		tok, err := lx.next()
		if err != nil {
			return nil, err
		}
		switch tok.kind {
		case tokEOF:
			if inBlock {
				return nil, lx.errorf(tok.line, "unexpected end of file, expecting \"}\"")
			}
			return dirs, nil
		case tokClose:
			if !inBlock {
				return nil, lx.errorf(tok.line, "unexpected \"}\"")
			}
			return dirs, nil
		case tokSemi, tokOpen:
			return nil, lx.errorf(tok.line, "unexpected %q", tok.text)
		}
		d := &Directive{Name: tok.text, File: lx.file, Line: tok.line}
		if tok.quoted && tok.text == "" {
			return nil, lx.errorf(tok.line, "unexpected \"\"")
		}
	args:
		for {
			t, err := lx.next()
			if err != nil {
				return nil, err
			}
			switch t.kind {
			case tokWord:
				d.Args = append(d.Args, t.text)
			case tokSemi:
				break args
			case tokOpen:
				d.Block, err = p.block(lx, depth, true)
				if err != nil {
					return nil, err
				}
				break args
			case tokClose:
				return nil, lx.errorf(t.line, "unexpected \"}\"")
			case tokEOF:
				return nil, lx.errorf(t.line, "unexpected end of file, expecting \";\" or \"}\"")
			}
		}
		if d.Name == "include" && d.Block == nil {
			inc, err := p.include(d, depth)
			if err != nil {
				return nil, err
			}
			dirs = append(dirs, inc...)
			continue
		}
		dirs = append(dirs, d)
	}
}

// include expands "include pattern;" in place. A relative pattern is taken
// relative to the directory of the file that holds the include. A pattern
// with wildcards may match nothing; a plain name must exist, as in NGINX.
func (p *parser) include(d *Directive, depth int) ([]*Directive, error) {
	if len(d.Args) != 1 {
		return nil, Errorf(d, "invalid number of arguments in \"include\" directive")
	}
	if depth >= maxIncludeDepth {
		return nil, Errorf(d, "include nesting deeper than %d (an include cycle?)", maxIncludeDepth)
	}
	pattern := d.Args[0]
	path := pattern
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(d.File), path)
	}
	var files []string
	if strings.ContainsAny(pattern, "*?[") {
		m, err := filepath.Glob(path)
		if err != nil {
			return nil, &Error{Msg: fmt.Sprintf("invalid include pattern %q", pattern), File: d.File, Line: d.Line, Err: err}
		}
		sort.Strings(m)
		files = m
	} else {
		files = []string{path}
	}
	var out []*Directive
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p.opts.Fallback != nil && !filepath.IsAbs(pattern) {
				if text, ok := p.opts.Fallback(pattern); ok {
					sub, err := p.parse(pattern+" (built-in)", text, depth+1)
					if err != nil {
						return nil, err
					}
					out = append(out, sub...)
					continue
				}
			}
			if fi, serr := os.Stat(f); serr == nil && fi.IsDir() {
				continue // globs match directories too; NGINX skips them
			}
			return nil, &Error{Msg: fmt.Sprintf("open() %q failed (%v)", f, unwrapPathError(err)), File: d.File, Line: d.Line, Err: err}
		}
		sub, err := p.parse(f, string(src), depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, sub...)
	}
	return out, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
