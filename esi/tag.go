package esi

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tag dispatches a complete ESI tag t ("<esi:...>" or "</esi:...>"). Only
// the lowercase element names of ESI 1.0 are understood; anything else that
// starts with "<esi:" is written verbatim with a warning, like Varnish does.
func (p *Parser) tag(t []byte, off int64, stable bool) {
	if t[1] == '/' {
		p.endTag(t, off, stable)
		return
	}
	name, attrs, selfClosing, ok := splitStartTag(t)
	if !ok {
		p.send(KindPass, t, off, stable, "malformed ESI tag passed through as text: "+quote(t))
		return
	}
	switch string(name) {
	case "include":
		p.ev = Event{Kind: KindInclude, Off: off, Len: len(t), Data: t, Stable: stable}
		forEachAttr(attrs, func(k, v []byte) {
			switch string(k) {
			case "src":
				p.ev.Src = decodeEntities(v)
			case "alt":
				p.ev.Alt = decodeEntities(v)
			case "onerror":
				p.ev.Continue = string(v) == "continue"
			}
		})
		p.emit(&p.ev)
	case "comment":
		p.send(KindDrop, t, off, stable, "")
	case "vars":
		if !selfClosing {
			p.vars++
		}
		p.send(KindDrop, t, off, stable, "")
	case "choose", "when", "otherwise", "try", "attempt", "except":
		p.openBlock(elemByName(name), t, off, stable, attrs, selfClosing)
	case "remove":
		if selfClosing {
			p.send(KindDrop, t, off, stable, "")
			return
		}
		p.send(KindRemoveOpen, t, off, stable, "")
		p.state, p.held = inRemove, 0
	default:
		p.send(KindPass, t, off, stable, "unknown ESI element passed through: "+quote(t))
	}
}

func (p *Parser) endTag(t []byte, off int64, stable bool) {
	// "</esi:" name whitespace* ">"
	body := t[len("</esi:") : len(t)-1]
	n := nameLen(body)
	name := body[:n]
	if n == 0 || len(trimSpace(body[n:])) != 0 {
		p.send(KindPass, t, off, stable, "malformed ESI end tag passed through as text: "+quote(t))
		return
	}
	switch string(name) {
	case "vars":
		p.vars = max(0, p.vars-1)
		p.send(KindDrop, t, off, stable, "")
	case "include", "comment":
		p.send(KindDrop, t, off, stable, "")
	case "remove":
		p.send(KindPass, t, off, stable, "</esi:remove> without <esi:remove> passed through")
	case "choose", "when", "otherwise", "try", "attempt", "except":
		p.closeBlock(elemByName(name), t, off, stable)
	default:
		p.send(KindPass, t, off, stable, "unknown ESI element passed through: "+quote(t))
	}
}

// openBlock reports the start tag of a block element, checking where it
// stands: when and otherwise belong directly in a choose, attempt and
// except directly in a try. A misplaced one is written verbatim.
func (p *Parser) openBlock(e Elem, t []byte, off int64, stable bool, attrs []byte, selfClosing bool) {
	var parent Elem
	if len(p.blocks) > 0 {
		parent = p.blocks[len(p.blocks)-1]
	}
	switch {
	case (e == ElemWhen || e == ElemOtherwise) && parent != ElemChoose:
		p.send(KindPass, t, off, stable, "<"+e.String()+"> outside <esi:choose> passed through: "+quote(t))
		return
	case (e == ElemAttempt || e == ElemExcept) && parent != ElemTry:
		p.send(KindPass, t, off, stable, "<"+e.String()+"> outside <esi:try> passed through: "+quote(t))
		return
	case len(p.blocks) >= maxBlocks:
		p.send(KindPass, t, off, stable, fmt.Sprintf("ESI blocks nested more than %d deep, passed through: %s", maxBlocks, quote(t)))
		return
	}
	p.ev = Event{Kind: KindOpen, Off: off, Len: len(t), Data: t, Stable: stable, Elem: e}
	if e == ElemWhen {
		hasTest := false
		forEachAttr(attrs, func(k, v []byte) {
			if string(k) == "test" {
				p.ev.Test, hasTest = decodeEntities(v), true
			}
		})
		if !hasTest {
			p.ev.Warning = "<esi:when> without a test attribute is false"
		}
	}
	p.emit(&p.ev)
	p.blocks = append(p.blocks, e)
	if selfClosing {
		p.closeBlocks(len(p.blocks)-1, off+int64(len(t)), "")
	}
}

// closeBlock reports the end tag of a block element: the blocks opened
// inside it and still open are closed first. An end tag without its open
// block is written verbatim.
func (p *Parser) closeBlock(e Elem, t []byte, off int64, stable bool) {
	i := len(p.blocks) - 1
	for i >= 0 && p.blocks[i] != e {
		i--
	}
	if i < 0 {
		p.send(KindPass, t, off, stable, "</"+e.String()+"> without its start tag passed through")
		return
	}
	p.closeBlocks(i+1, off, "closed by </"+e.String()+">")
	p.blocks = p.blocks[:i]
	p.ev = Event{Kind: KindClose, Off: off, Len: len(t), Data: t, Stable: stable, Elem: e}
	p.emit(&p.ev)
}

// closeBlocks closes the open blocks from depth on, innermost first, with
// empty events at off. why, when set, is the warning: the end tag is
// missing.
func (p *Parser) closeBlocks(depth int, off int64, why string) {
	for len(p.blocks) > depth {
		e := p.blocks[len(p.blocks)-1]
		p.blocks = p.blocks[:len(p.blocks)-1]
		w := ""
		if why != "" {
			w = "<" + e.String() + "> " + why
		}
		p.ev = Event{Kind: KindClose, Off: off, Stable: true, Elem: e, Warning: w}
		p.emit(&p.ev)
	}
}

// splitStartTag checks the grammar of "<esi:" name (space attr)* space* "/"? ">"
// with attr = name space* "=" space* quoted-value, and returns the element
// name and the attribute part. Quotes may be double or single; whitespace
// includes newlines. Unquoted values and attributes not separated by
// whitespace make the tag malformed.
func splitStartTag(t []byte) (name, attrs []byte, selfClosing, ok bool) {
	body := t[len("<esi:") : len(t)-1]
	if len(body) > 0 && body[len(body)-1] == '/' {
		selfClosing = true
		body = body[:len(body)-1]
	}
	n := nameLen(body)
	if n == 0 {
		return nil, nil, false, false
	}
	name, attrs = body[:n], body[n:]
	ok = forEachAttr(attrs, nil)
	return name, attrs, selfClosing, ok
}

// forEachAttr walks the attributes of a tag, calling fn (when not nil) for
// each name and raw value, and reports whether the grammar held throughout.
func forEachAttr(b []byte, fn func(name, value []byte)) bool {
	for {
		rest := trimSpace(b)
		if len(rest) == 0 {
			return true
		}
		if len(rest) == len(b) { // no whitespace before the attribute
			return false
		}
		n := nameLen(rest)
		if n == 0 {
			return false
		}
		name := rest[:n]
		rest = trimSpace(rest[n:])
		if len(rest) == 0 || rest[0] != '=' {
			return false
		}
		rest = trimSpace(rest[1:])
		if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
			return false
		}
		end := bytes.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return false
		}
		if fn != nil {
			fn(name, rest[1:1+end])
		}
		b = rest[2+end:]
	}
}

func nameLen(b []byte) int {
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':') {
			return i
		}
	}
	return len(b)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func quote(t []byte) string {
	const show = 200
	if len(t) > show {
		return strconv.Quote(string(t[:show])) + "..."
	}
	return strconv.Quote(string(t))
}

// decodeEntities replaces the five XML entities and numeric character
// references (&#38; &#x26;) in an attribute value. Anything else that
// starts with '&' is left as it is.
func decodeEntities(v []byte) string {
	i := bytes.IndexByte(v, '&')
	if i < 0 {
		return string(v)
	}
	var sb strings.Builder
	sb.Grow(len(v))
	for i >= 0 {
		sb.Write(v[:i])
		v = v[i:]
		// The ';' is looked for within the longest reference only: a
		// value of '&' without one would otherwise cost the square of
		// its length.
		semi := bytes.IndexByte(v[:min(len(v), maxEntity+1)], ';')
		if r, ok := entity(v, semi); ok {
			sb.WriteRune(r)
			v = v[semi+1:]
		} else {
			sb.WriteByte('&')
			v = v[1:]
		}
		i = bytes.IndexByte(v, '&')
	}
	sb.Write(v)
	return sb.String()
}

// maxEntity is the most bytes before the ';' of a reference that entity
// decodes.
const maxEntity = 10

// entity decodes v[:semi+1], which starts with '&'.
func entity(v []byte, semi int) (rune, bool) {
	if semi < 2 || semi > maxEntity {
		return 0, false
	}
	switch name := string(v[1:semi]); name {
	case "amp":
		return '&', true
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	default:
		if name[0] != '#' || len(name) < 2 {
			return 0, false
		}
		var n uint64
		var err error
		if name[1] == 'x' || name[1] == 'X' {
			n, err = strconv.ParseUint(name[2:], 16, 32)
		} else {
			n, err = strconv.ParseUint(name[1:], 10, 32)
		}
		if err != nil || n == 0 || n > utf8.MaxRune || !utf8.ValidRune(rune(n)) {
			return 0, false
		}
		return rune(n), true
	}
}
