package conf

import (
	"fmt"
	"strings"
)

// maxToken is the size of NGINX's configuration read buffer
// (NGX_CONF_BUFFER). NGINX refuses a word, or a comment, that does not end
// within that many bytes of where it began; mosaic refuses the same files
// so that a configuration it accepts also loads in NGINX.
const maxToken = 4096

// stmtEnd says what ended a statement read by the lexer.
type stmtEnd int

const (
	endSemi  stmtEnd = iota // ";": a simple directive
	endBlock                // "{": a block directive, its body follows
	endClose                // "}" with no words before it: the block is done
	endEOF                  // end of the text with no words pending
)

// word is one argument as the lexer produced it: the text after quotes and
// escapes are removed, and where its first byte (or opening quote) is in
// the source, which tests use to compare words with NGINX one at a time.
type word struct {
	text string
	off  int
}

// lexer reads NGINX configuration text one statement at a time. It is a
// transcription of ngx_conf_read_token (src/core/ngx_conf_file.c, NGINX
// 1.22) as a state machine over bytes, so that every input, odd ones
// included, is split into the same words and fails with the same message
// on the same line as in NGINX. In short:
//
//   - Words are separated by space, tab, CR and LF; ";" ends a statement,
//     "{" ends one and opens a block, "}" closes a block, but only at the
//     start of a word: inside a word "}" is an ordinary byte (a}b), and "{"
//     right after "$" is too, so ${name} stays one word.
//   - A quote opens a string only at the start of a word; elsewhere it is an
//     ordinary byte (a"b" is the word a"b"). A closing quote must be
//     followed by a space, ";", "{" or ")"; a ")" there starts a new word,
//     which is what `if ($a = 'b')` relies on.
//   - A backslash makes the next byte ordinary (even a quote, a space, ";"
//     or a newline). When the word is stored, \" \' and \\ lose their
//     backslash and \t \r \n become tab, CR and LF; every other backslash is
//     kept, so regular expressions such as \.php$ or \d survive, in quotes
//     or not.
//   - "#" starts a comment only at the start of a word; a#b is a word.
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

// unexpected reports the byte just read as NGINX does, quoted but not
// escaped: unexpected """.
func (l *lexer) unexpected() error {
	return l.errorf(l.line, `unexpected "%s"`, l.src[l.pos-1:l.pos])
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// statement reads the words of the next statement and what ended it. When
// it returns, l.line is the line of the ";" or "{" that ended the
// statement, which is where NGINX places the directive in its messages.
// Errors are placed as NGINX places them: on the line being read when the
// fault was seen.
func (l *lexer) statement() ([]word, stmtEnd, error) {
	var (
		words     []word
		lastSpace = true // between words: the next byte may start one
		needSpace bool   // just after a closing quote
		comment   bool   // inside a "#" comment
		escaped   bool   // the previous byte was a backslash
		variable  bool   // after "$" (and any "{" right after it): "{" is ordinary
		dquoted   bool
		squoted   bool
		// Where the word (after its opening quote) or the comment being
		// read began, or the last separator: the 4096-byte limit is
		// measured from here, and too long a word is reported at its line.
		start     = l.pos
		startLine = l.line
	)
	for {
		if l.pos >= len(l.src) {
			if len(words) > 0 || !lastSpace {
				return nil, 0, l.errorf(l.line, `unexpected end of file, expecting ";" or "}"`)
			}
			return nil, endEOF, nil
		}
		if l.pos-start >= maxToken {
			switch {
			case dquoted:
				return nil, 0, l.errorf(startLine, `too long parameter, probably missing terminating """ character`)
			case squoted:
				return nil, 0, l.errorf(startLine, `too long parameter, probably missing terminating "'" character`)
			}
			return nil, 0, l.errorf(startLine, `too long parameter "%s..." started`, l.src[start:start+10])
		}
		ch := l.src[l.pos]
		l.pos++

		if ch == '\n' {
			l.line++
			comment = false
		}
		if comment {
			continue
		}
		if escaped {
			escaped = false
			continue
		}

		if needSpace {
			switch {
			case isSpace(ch):
				lastSpace, needSpace = true, false
				continue
			case ch == ';':
				return words, endSemi, nil
			case ch == '{':
				return words, endBlock, nil
			case ch == ')':
				// Falls through to start a new word with the ")".
				lastSpace, needSpace = true, false
			default:
				return nil, 0, l.unexpected()
			}
		}

		if lastSpace {
			start, startLine = l.pos-1, l.line
			if isSpace(ch) {
				continue
			}
			switch ch {
			case ';', '{':
				if len(words) == 0 {
					return nil, 0, l.unexpected()
				}
				if ch == '{' {
					return words, endBlock, nil
				}
				return words, endSemi, nil
			case '}':
				if len(words) != 0 {
					return nil, 0, l.unexpected()
				}
				return nil, endClose, nil
			case '#':
				comment = true
				continue
			case '\\':
				escaped = true
			case '"':
				start++
				dquoted = true
			case '\'':
				start++
				squoted = true
			case '$':
				variable = true
			}
			lastSpace = false
			continue
		}

		if ch == '{' && variable {
			continue
		}
		variable = false
		switch ch {
		case '\\':
			escaped = true
			continue
		case '$':
			variable = true
			continue
		}

		found := false
		switch {
		case dquoted:
			if ch == '"' {
				dquoted, needSpace, found = false, true, true
			}
		case squoted:
			if ch == '\'' {
				squoted, needSpace, found = false, true, true
			}
		case isSpace(ch) || ch == ';' || ch == '{':
			lastSpace, found = true, true
		}
		if !found {
			continue
		}
		off := start
		if needSpace {
			off-- // the opening quote
		}
		words = append(words, word{text: unescape(l.src[start : l.pos-1]), off: off})
		switch ch {
		case ';':
			return words, endSemi, nil
		case '{':
			return words, endBlock, nil
		}
	}
}

// unescape turns the raw bytes of a word into its value: \" \' and \\
// lose the backslash, \t \r \n become the control characters, and any
// other backslash stays with the byte after it.
func unescape(raw string) string {
	if !strings.Contains(raw, `\`) {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) {
			switch raw[i+1] {
			case '"', '\'', '\\':
				i++
				c = raw[i]
			case 't':
				c = '\t'
				i++
			case 'r':
				c = '\r'
				i++
			case 'n':
				c = '\n'
				i++
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
