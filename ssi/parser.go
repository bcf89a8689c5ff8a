package ssi

import "fmt"

// The parser follows NGINX's SSI state machine (ngx_http_ssi_parse) state
// for state, so that a page gets the same commands, the same errors and
// the same text around them: a command is "<!--#" then a name, then
// name="value" parameters (single or double quotes, a backslash keeps
// itself and the byte after it), then "-->". What looks like a command
// but breaks the syntax is an Invalid event once its "-->" arrives;
// everything else is text, byte for byte.

// Limits of a command, NGINX's (ngx_http_ssi_filter_module.h).
const (
	maxCommandLen = 32 // NGX_HTTP_SSI_COMMAND_LEN
	maxParamLen   = 32 // NGX_HTTP_SSI_PARAM_LEN
	maxParams     = 16 // NGX_HTTP_SSI_MAX_PARAMS
)

// DefaultValueLength is ssi_value_length's default: NGINX's documentation
// says 256, its code merges 255, and the code is what pages meet.
const DefaultValueLength = 255

// Kind is what an Event carries.
type Kind uint8

const (
	Text    Kind = iota // Data: bytes of the page, outside commands
	Command             // Name and Params: a complete, well-formed command
	Invalid             // Err: a command that broke the syntax, up to its "-->"
)

// Param is one name="value" of a command, the value as written between
// its quotes.
type Param struct{ Name, Value string }

// Event is one piece of a page. Data is only valid during the callback.
type Event struct {
	Kind   Kind
	Data   []byte
	Name   string
	Params []Param
	Err    string
}

type state uint8

// opening is the byte each of the states stTag..stSharp waits for.
const opening = "!--#"

const (
	stText state = iota
	stTag
	stComment0
	stComment1
	stSharp
	stPrecommand
	stCommand
	stPreparam
	stParam
	stPreequal
	stPrevalue
	stDoubleQuoted
	stQuoted
	stQuotedSymbol
	stPostparam
	stCommentEnd0
	stCommentEnd1
	stError
	stErrorEnd0
	stErrorEnd1
)

// Parser splits a page into Events as its bytes arrive in any pieces.
type Parser struct {
	emit     func(*Event)
	valueLen int
	st       state
	saved    state // the quoted state a backslash returns to
	looked   int   // bytes of "<!--" seen and not yet emitted
	cmd      []byte
	params   []Param
	key, val []byte
	err      string
	ev       Event
}

// NewParser returns a Parser that calls emit for each Event, in page order.
// valueLen bounds a parameter's value (ssi_value_length); 0 means
// DefaultValueLength.
func NewParser(valueLen int, emit func(*Event)) *Parser {
	if valueLen <= 0 {
		valueLen = DefaultValueLength
	}
	return &Parser{emit: emit, valueLen: valueLen}
}

// Close ends the page. As in NGINX, an unfinished command or "<!--" prefix
// at the very end is dropped.
func (p *Parser) Close() { p.st, p.looked = stText, 0 }

func (p *Parser) text(b []byte) {
	if len(b) == 0 {
		return
	}
	p.ev = Event{Kind: Text, Data: b}
	p.emit(&p.ev)
}

// prefix emits the "<!--" bytes held back, which turned out to be text.
func (p *Parser) prefix() {
	if p.looked > 0 {
		p.text([]byte("<!--"[:p.looked]))
		p.looked = 0
	}
}

func (p *Parser) fail(format string, args ...any) {
	p.err = fmt.Sprintf(format, args...)
}

func isSpace(c byte) bool { return c == ' ' || c == '\r' || c == '\n' || c == '\t' }

// Feed parses the next bytes of the page.
func (p *Parser) Feed(b []byte) {
	start := 0 // start of the text run in b not yet emitted
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch p.st {
		case stText:
			if c == '<' {
				p.text(b[start:i])
				start = i + 1
				p.looked, p.st = 1, stTag
			}
		case stTag, stComment0, stComment1, stSharp:
			want := opening[p.st-stTag]
			switch {
			case c == want && p.st == stSharp:
				p.looked = 0
				p.cmd, p.params, p.err = p.cmd[:0], p.params[:0], ""
				p.st = stPrecommand
			case c == want:
				p.looked++
				p.st++
			case c == '<':
				// The held bytes were text; this '<' may open a command.
				p.prefix()
				p.looked = 1
				p.st = stTag
			default:
				p.prefix()
				start = i // the byte is text, with what follows
				p.st = stText
			}
			if p.st != stText {
				start = i + 1
			}
		case stPrecommand:
			if !isSpace(c) {
				p.cmd = append(p.cmd, c)
				p.st = stCommand
			}
		case stCommand:
			switch {
			case isSpace(c):
				p.st = stPreparam
			case c == '-':
				p.st = stCommentEnd0
			case len(p.cmd) == maxCommandLen:
				p.fail(`the "%s" SSI command is too long`, string(p.cmd)+string(c)+"...")
				p.st = stError
			default:
				p.cmd = append(p.cmd, c)
			}
		case stPreparam:
			switch {
			case isSpace(c):
			case c == '-':
				p.st = stCommentEnd0
			default:
				p.key, p.val = append(p.key[:0], c), p.val[:0]
				p.st = stParam
			}
		case stParam:
			switch {
			case isSpace(c):
				p.st = stPreequal
			case c == '=':
				p.st = stPrevalue
			case c == '-':
				p.fail(`unexpected "-" symbol after "%s" parameter in "%s" SSI command`, p.key, p.cmd)
				p.st = stErrorEnd0
			case len(p.key) == maxParamLen:
				p.fail(`too long "%s" parameter in "%s" SSI command`, string(p.key)+string(c)+"...", p.cmd)
				p.st = stError
			default:
				p.key = append(p.key, c)
			}
		case stPreequal, stPrevalue:
			switch {
			case isSpace(c):
			case c == '=' && p.st == stPreequal:
				p.st = stPrevalue
			case c == '"' && p.st == stPrevalue:
				p.st = stDoubleQuoted
			case c == '\'' && p.st == stPrevalue:
				p.st = stQuoted
			default:
				if p.st == stPreequal {
					p.fail(`unexpected "%c" symbol after "%s" parameter in "%s" SSI command`, c, p.key, p.cmd)
				} else {
					p.fail(`unexpected "%c" symbol before value of "%s" parameter in "%s" SSI command`, c, p.key, p.cmd)
				}
				p.st = stError
				if c == '-' {
					p.st = stErrorEnd0
				}
			}
		case stDoubleQuoted, stQuoted:
			quote := byte('"')
			if p.st == stQuoted {
				quote = '\''
			}
			if c == quote {
				p.st = stPostparam
				break
			}
			if c == '\\' {
				p.saved, p.st = p.st, stQuotedSymbol
			}
			p.value(c)
		case stQuotedSymbol:
			p.st = p.saved
			p.value(c)
		case stPostparam:
			p.params = append(p.params, Param{Name: string(p.key), Value: string(p.val)})
			switch {
			case isSpace(c):
				p.st = stPreparam
			case c == '-':
				p.st = stCommentEnd0
			default:
				p.fail(`unexpected "%c" symbol after "%s" value of "%s" parameter in "%s" SSI command`, c, p.val, p.key, p.cmd)
				p.st = stError
			}
		case stCommentEnd0, stCommentEnd1:
			switch {
			case c == '-' && p.st == stCommentEnd0:
				p.st = stCommentEnd1
			case c == '>' && p.st == stCommentEnd1:
				p.st, start = stText, i+1
				p.ev = Event{Kind: Command, Name: string(p.cmd), Params: p.params}
				p.emit(&p.ev)
			default:
				p.fail(`unexpected "%c" symbol in "%s" SSI command`, c, p.cmd)
				p.st = stError
			}
		case stError:
			if c == '-' {
				p.st = stErrorEnd0
			}
		case stErrorEnd0:
			p.st = stError
			if c == '-' {
				p.st = stErrorEnd1
			}
		case stErrorEnd1:
			p.st = stError
			if c == '>' {
				p.st, start = stText, i+1
				p.ev = Event{Kind: Invalid, Err: p.err}
				p.emit(&p.ev)
			}
		}
	}
	if p.st == stText {
		p.text(b[start:])
	}
}

// value adds a byte to the value being read, or fails the command when the
// value outgrows ssi_value_length.
func (p *Parser) value(c byte) {
	if p.st == stError {
		return
	}
	if len(p.val) == p.valueLen {
		p.fail(`too long "%s" value of "%s" parameter in "%s" SSI command`, string(p.val)+string(c)+"...", p.key, p.cmd)
		p.st = stError
		return
	}
	p.val = append(p.val, c)
}
