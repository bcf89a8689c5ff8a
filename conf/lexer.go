package conf

import (
	"fmt"
	"strings"
)

type tokenKind int

const (
	tokWord  tokenKind = iota // a word or a quoted string
	tokSemi                   // ;
	tokOpen                   // {
	tokClose                  // }
	tokEOF
)

type token struct {
	kind   tokenKind
	text   string
	line   int
	quoted bool
}

// lexer splits NGINX configuration text into tokens. It follows NGINX's
// reader: a quote opens a string only at the start of a word, a quoted
// string must be followed by a space, ';', '{' or '}', '#' starts a comment
// only at the start of a word, and "${name}" braces inside a word do not
// open a block.
type lexer struct {
	src  string
	pos  int
	line int
	file string
}

func newLexer(file, src string) *lexer {
	return &lexer{src: src, line: 1, file: file}
}

func (l *lexer) errorf(line int, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), File: l.file, Line: line}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func (l *lexer) next() (token, error) {
	// Skip space and comments.
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '\n' {
			l.line++
			l.pos++
			continue
		}
		if isSpace(c) {
			l.pos++
			continue
		}
		if c == '#' {
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
			continue
		}
		break
	}
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, line: l.line}, nil
	}
	c := l.src[l.pos]
	switch c {
	case ';':
		l.pos++
		return token{kind: tokSemi, text: ";", line: l.line}, nil
	case '{':
		l.pos++
		return token{kind: tokOpen, text: "{", line: l.line}, nil
	case '}':
		l.pos++
		return token{kind: tokClose, text: "}", line: l.line}, nil
	case '"', '\'':
		return l.quoted(c)
	}
	return l.word()
}

func (l *lexer) quoted(q byte) (token, error) {
	start := l.line
	l.pos++ // opening quote
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == q:
			l.pos++
			// NGINX wants a separator after a closing quote.
			if l.pos < len(l.src) {
				n := l.src[l.pos]
				if !isSpace(n) && n != ';' && n != '{' && n != '}' {
					return token{}, l.errorf(l.line, "unexpected \"%c\"", n)
				}
			}
			return token{kind: tokWord, text: b.String(), line: start, quoted: true}, nil
		case c == '\\' && l.pos+1 < len(l.src):
			n := l.src[l.pos+1]
			switch n {
			case '"', '\'', '\\':
				b.WriteByte(n)
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'n':
				b.WriteByte('\n')
			default:
				// Unknown escapes are kept as written, as NGINX does, so
				// regular expressions such as "\d" survive quoting.
				b.WriteByte('\\')
				b.WriteByte(n)
			}
			if n == '\n' {
				l.line++
			}
			l.pos += 2
		default:
			if c == '\n' {
				l.line++
			}
			b.WriteByte(c)
			l.pos++
		}
	}
	return token{}, l.errorf(l.line, "unexpected end of file, expecting terminating quote")
}

func (l *lexer) word() (token, error) {
	start := l.pos
	line := l.line
	inVar := false // inside "${...}"
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '\\' && l.pos+1 < len(l.src) {
			if l.src[l.pos+1] == '\n' {
				l.line++
			}
			l.pos += 2
			continue
		}
		if c == '$' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '{' {
			inVar = true
			l.pos += 2
			continue
		}
		if inVar {
			if c == '}' {
				inVar = false
			}
			if c == '\n' {
				l.line++
			}
			l.pos++
			continue
		}
		if isSpace(c) || c == ';' || c == '{' || c == '}' {
			break
		}
		l.pos++
	}
	if inVar {
		return token{}, l.errorf(l.line, "unexpected end of file, expecting \"}\" of a variable")
	}
	return token{kind: tokWord, text: unescapeWord(l.src[start:l.pos]), line: line}, nil
}

// unescapeWord removes the backslashes that protect a character in an
// unquoted word ("\;" is a semicolon), keeping those of unknown escapes so
// that regular expressions such as \.php$ reach the regex compiler intact.
func unescapeWord(w string) string {
	if !strings.Contains(w, "\\") {
		return w
	}
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		if w[i] == '\\' && i+1 < len(w) {
			switch n := w[i+1]; n {
			case '"', '\'', ';', '{', '}', ' ', '#', '\\':
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(w[i])
	}
	return b.String()
}
