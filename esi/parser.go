package esi

import "bytes"

const (
	// maxTag bounds an ESI tag, which bounds what the parser holds while a
	// tag straddles two reads. A longer candidate is passed through as text.
	maxTag = 16 << 10
	// maxRemove bounds how much of an <esi:remove> body is held back waiting
	// for its closing tag; past it the block counts as unclosed.
	maxRemove = 1 << 20
)

// Kind says what an Event stands for.
type Kind uint8

const (
	// KindText is document text, to be written as it is.
	KindText Kind = iota + 1
	// KindInclude is an <esi:include> element: Src, Alt and Continue are set.
	KindInclude
	// KindDrop is markup that produces no output: <esi:comment>, the
	// <esi:vars> tags, </esi:include>, and the <!--esi and --> markers.
	KindDrop
	// KindPass is ESI-looking markup that is written verbatim, with Warning
	// saying why: an unknown element, a malformed or unterminated tag.
	KindPass
	// KindRemoveOpen is an <esi:remove> opening tag. It and the KindRemoved
	// events after it are held until KindRemoveClose drops them or
	// KindRemoveUnclosed turns them into output.
	KindRemoveOpen
	// KindRemoved is content inside an <esi:remove> block.
	KindRemoved
	// KindRemoveClose is </esi:remove>: the held block is dropped.
	KindRemoveClose
	// KindRemoveUnclosed says the open block never closed (end of body, or
	// more than about 1 MiB of it): the held bytes are written as they were.
	KindRemoveUnclosed
	// KindVar is a $(...) variable reference inside <esi:vars>: Data is the
	// reference, to be replaced by the variable's value.
	KindVar
	// KindOpen is the start tag of a block (Elem says which; Test is the
	// test of an <esi:when>). Blocks always nest properly: every KindOpen
	// is matched by a KindClose.
	KindOpen
	// KindClose ends the innermost open block: its end tag, or nothing
	// (Len 0) after a self-closing start tag, before the end tag of an
	// enclosing block, and at the end of the body.
	KindClose
)

// Elem names the block elements of ESI 1.0.
type Elem uint8

const (
	ElemChoose Elem = iota + 1
	ElemWhen
	ElemOtherwise
	ElemTry
	ElemAttempt
	ElemExcept
)

var elemNames = [...]string{ElemChoose: "choose", ElemWhen: "when", ElemOtherwise: "otherwise",
	ElemTry: "try", ElemAttempt: "attempt", ElemExcept: "except"}

func (e Elem) String() string {
	if int(e) < len(elemNames) && elemNames[e] != "" {
		return "esi:" + elemNames[e]
	}
	return "esi:?"
}

// elemByName returns the block element of a tag name, or 0.
func elemByName(name []byte) Elem {
	for e, n := range elemNames {
		if n != "" && n == string(name) {
			return Elem(e)
		}
	}
	return 0
}

// Event is one step of a parse. Off and Len place it in the input stream:
// the events of a parse cover the stream exactly once, in order, so a list
// of (Kind, Off, Len) is a plan of the document that can be recorded and
// replayed without scanning the verbatim runs again.
type Event struct {
	Kind Kind
	Off  int64 // stream offset of the first byte the event covers
	Len  int   // stream bytes covered

	// Data is the bytes covered. It aliases the slice given to Feed unless
	// Stable is set, in which case it is parser memory that is never reused
	// and may be kept as it is.
	Data   []byte
	Stable bool

	// KindInclude: the entity-decoded src and alt attributes, and whether
	// onerror="continue" was given.
	Src, Alt string
	Continue bool

	// KindOpen and KindClose: the block element; KindOpen of ElemWhen: the
	// entity-decoded test attribute.
	Elem Elem
	Test string

	// Warning, when set, is a message worth logging about this event.
	Warning string
}

type parseState uint8

const (
	inText parseState = iota
	inComment
	inRemove
)

// pending says what the parser holds over from one Feed to the next.
type pending uint8

const (
	pendNone      pending = iota
	pendLT                // a '<' whose construct is not yet classified
	pendTag               // an ESI start or end tag without its '>' yet
	pendDash              // '-' bytes inside <!--esi that may begin "-->"
	pendRemoveEnd         // a possible </esi:remove> inside a remove block
	pendVar               // a possible $(...) reference inside <esi:vars>
)

// maxBlocks bounds how deep blocks (choose, try and their parts) nest: a
// deeper start tag is written verbatim with a warning.
const maxBlocks = 64

// Parser finds ESI constructs in a byte stream delivered in pieces of any
// size. It never copies verbatim text: text events point into the slices
// given to Feed. Only the bytes of a construct that straddles two pieces are
// held, at most maxTag of them.
type Parser struct {
	emit func(*Event)
	ev   Event

	off    int64 // stream offset of the next byte Feed receives
	state  parseState
	esi    bool // inside <!--esi ... -->
	vars   int  // how many <esi:vars> are open: $(...) is substituted
	dashes int  // inComment: '-' bytes just before the next piece
	held   int  // inRemove: bytes held so far

	pend     pending
	carry    []byte // pendLT, pendTag, pendRemoveEnd: the bytes so far
	carryOff int64
	pdash    int     // pendDash: how many '-'
	ts       tagScan // pendTag: where the scan for '>' stands
	vs       varScan // pendVar: where the scan of the reference stands

	blocks []Elem // the open blocks, innermost last
}

// NewParser returns a parser that reports each event to emit. The *Event is
// reused: emit must copy what it keeps, apart from Data when Stable is set.
func NewParser(emit func(*Event)) *Parser {
	return &Parser{emit: emit}
}

// Feed parses the next piece of the stream.
func (p *Parser) Feed(b []byte) {
	for len(b) > 0 {
		var n int
		switch {
		case p.pend != pendNone:
			n = p.resume(b)
		case p.state == inText:
			n = p.scanText(b)
		case p.state == inComment:
			n = p.scanComment(b)
		default:
			n = p.scanRemove(b)
		}
		p.off += int64(n)
		b = b[n:]
	}
}

// skip advances past n bytes that a parse plan says are verbatim text,
// without scanning them: the events for them are the caller's.
func (p *Parser) skip(n int64) { p.off += n }

// clean reports whether the parser holds nothing back and is in text: a
// parse that ends so can be replayed from a plan.
func (p *Parser) clean() bool { return p.pend == pendNone && p.state == inText }

// Close ends the stream. Whatever is held is settled as documented: an
// unfinished tag is written as text, an unclosed <esi:remove> block is
// written as it was, an unclosed <!--esi simply ends.
func (p *Parser) Close() {
	switch p.pend {
	case pendLT:
		p.send(KindText, p.carry, p.carryOff, true, "")
	case pendTag:
		p.send(KindPass, p.carry, p.carryOff, true, "ESI tag not terminated at end of body, passed through as text")
	case pendDash:
		p.send(KindText, dashBytes[:p.pdash], p.carryOff, true, "")
	case pendRemoveEnd:
		p.removed(p.carry, p.carryOff, true)
	case pendVar:
		p.send(KindText, p.carry, p.carryOff, true, "")
	}
	p.pend, p.carry = pendNone, nil
	if p.state == inRemove {
		p.unclosedRemove(p.off, "<esi:remove> not closed at end of body, its content is passed through")
	}
	if p.esi {
		p.esi = false
		p.send(KindDrop, nil, p.off, true, "<!--esi not closed at end of body")
	}
	p.vars = 0
	p.closeBlocks(0, p.off, "not closed at end of body")
}

var (
	dashBytes  = []byte("--")
	esiEndMark = []byte("-->")
)

func (p *Parser) send(k Kind, data []byte, off int64, stable bool, warning string) {
	p.ev = Event{Kind: k, Off: off, Len: len(data), Data: data, Stable: stable, Warning: warning}
	p.emit(&p.ev)
}

// text reports b[from:to] as text.
func (p *Parser) text(b []byte, from, to int) {
	if from < to {
		p.send(KindText, b[from:to], p.off+int64(from), false, "")
	}
}

// hold starts carrying b[i:], the unfinished construct at the end of a piece.
func (p *Parser) hold(b []byte, i int, what pending) int {
	p.pend = what
	p.carry = append(make([]byte, 0, max(64, 2*(len(b)-i))), b[i:]...)
	p.carryOff = p.off + int64(i)
	return len(b)
}

// scanText handles document text: it looks for '<' (and for "-->" inside
// <!--esi) and hands each candidate construct to classify.
func (p *Parser) scanText(b []byte) int {
	start, i := 0, 0
	for i < len(b) {
		var k int
		if !p.esi && p.vars == 0 { // the common case, kept inline
			k = bytes.IndexByte(b[i:], '<')
		} else {
			k = p.indexSpecial(b[i:])
		}
		if k < 0 {
			break
		}
		i += k
		if b[i] == '$' {
			p.vs = varScan{}
			n, res := p.vs.scan(b[i:])
			switch res {
			case tagDone:
				p.text(b, start, i)
				p.send(KindVar, b[i:i+n], p.off+int64(i), false, "")
				i += n
				start = i
			case tagBroken:
				// Text up to the byte that broke the grammar (never the
				// '$' itself), which is looked at again.
				i += n
			default:
				p.text(b, start, i)
				return p.hold(b, i, pendVar)
			}
			continue
		}
		if b[i] == '-' {
			rest := b[i:]
			switch {
			case len(rest) >= 3 && rest[1] == '-' && rest[2] == '>':
				p.text(b, start, i)
				p.send(KindDrop, rest[:3], p.off+int64(i), false, "")
				p.esi = false
				i += 3
				start = i
			case len(rest) == 1 || (len(rest) == 2 && rest[1] == '-'):
				p.text(b, start, i)
				p.pend, p.pdash, p.carryOff = pendDash, len(rest), p.off+int64(i)
				return len(b)
			default:
				i++
			}
			continue
		}
		kind, n := classify(b[i:], p.esi)
		switch kind {
		case ltNone:
			i++
		case ltMore:
			p.text(b, start, i)
			return p.hold(b, i, pendLT)
		case ltComment:
			p.text(b, start, i+n)
			p.state, p.dashes = inComment, 0
			return i + n
		case ltESIOpen:
			p.text(b, start, i)
			p.send(KindDrop, b[i:i+n], p.off+int64(i), false, "")
			p.esi = true
			i += n
			start = i
		default: // ltStart, ltEnd
			p.ts = tagScan{}
			body := b[i+n:]
			if len(body) > maxTag-n {
				body = body[:maxTag-n]
			}
			m, res := p.ts.scan(body)
			end := i + n + m
			switch {
			case res == tagDone:
				p.text(b, start, i)
				p.tag(b[i:end], p.off+int64(i), false)
				i, start = end, end
				if p.state != inText {
					return i
				}
			case res == tagBroken:
				p.text(b, start, i)
				p.send(KindPass, b[i:end], p.off+int64(i), false, "ESI tag broken by '<' before its end, passed through as text")
				i, start = end, end
			case end < len(b): // tagMore within the length bound: too long
				p.text(b, start, i)
				p.send(KindPass, b[i:end], p.off+int64(i), false, "ESI tag longer than 16 KiB, passed through as text")
				i, start = end, end
			default: // the piece ended inside the tag; p.ts knows where
				p.text(b, start, i)
				return p.hold(b, i, pendTag)
			}
		}
	}
	p.text(b, start, len(b))
	return len(b)
}

// indexSpecial finds, inside <!--esi or <esi:vars>, the next byte that may
// start a construct: '<'; '-' inside <!--esi, where "-->" ends it; '$'
// inside <esi:vars>.
func (p *Parser) indexSpecial(b []byte) int {
	switch {
	case p.vars == 0:
		return indexEither(b, '<', '-')
	case !p.esi:
		return indexEither(b, '<', '$')
	}
	return bytes.IndexAny(b, "<-$")
}

// indexEither finds the first x or y in b.
func indexEither(b []byte, x, y byte) int {
	i := bytes.IndexByte(b, x)
	if i < 0 {
		return bytes.IndexByte(b, y)
	}
	if j := bytes.IndexByte(b[:i], y); j >= 0 {
		return j
	}
	return i
}

// scanComment passes an ordinary HTML comment through up to its "-->",
// finding ESI in it on purpose: commented-out markup stays commented out.
func (p *Parser) scanComment(b []byte) int {
	if p.dashes > 0 {
		j := 0
		for j < len(b) && b[j] == '-' {
			j++
		}
		switch {
		case j < len(b) && b[j] == '>' && p.dashes+j >= 2:
			p.text(b, 0, j+1)
			p.state = inText
			return j + 1
		case j == len(b):
			p.dashes += j
			p.text(b, 0, j)
			return j
		}
		p.dashes = 0
	}
	if k := bytes.Index(b, esiEndMark); k >= 0 {
		p.text(b, 0, k+3)
		p.state = inText
		return k + 3
	}
	p.dashes = 0
	for j := len(b) - 1; j >= 0 && b[j] == '-' && p.dashes < 2; j-- {
		p.dashes++
	}
	p.text(b, 0, len(b))
	return len(b)
}

// scanRemove holds the body of an <esi:remove> block until its closing tag.
func (p *Parser) scanRemove(b []byte) int {
	i := 0
	for {
		k := bytes.IndexByte(b[i:], '<')
		if k < 0 {
			break
		}
		i += k
		n, res := matchRemoveEnd(b[i:], 0)
		switch res {
		case tagDone:
			if !p.removed(b[:i], p.off, false) {
				return i
			}
			p.send(KindRemoveClose, b[i:i+n], p.off+int64(i), false, "")
			p.state = inText
			return i + n
		case tagMore:
			if !p.removed(b[:i], p.off, false) {
				return i
			}
			return p.hold(b, i, pendRemoveEnd)
		}
		i++
	}
	p.removed(b, p.off, false)
	return len(b)
}

// removed reports held remove-block content. It returns false when the
// block has grown past maxRemove and been given up as unclosed.
func (p *Parser) removed(b []byte, off int64, stable bool) bool {
	if len(b) > 0 {
		p.send(KindRemoved, b, off, stable, "")
		p.held += len(b)
	}
	if p.held > maxRemove {
		p.unclosedRemove(off+int64(len(b)), "<esi:remove> longer than 1 MiB without its closing tag, its content is passed through")
		return false
	}
	return true
}

func (p *Parser) unclosedRemove(off int64, warning string) {
	p.state, p.held = inText, 0
	p.send(KindRemoveUnclosed, nil, off, true, warning)
}

// resume continues a construct held over from the previous piece and
// returns how many bytes of b it took.
func (p *Parser) resume(b []byte) int {
	switch p.pend {
	case pendDash:
		return p.resumeDash(b)
	case pendLT:
		return p.resumeLT(b)
	case pendTag:
		return p.resumeTag(b)
	case pendVar:
		return p.resumeVar(b)
	default:
		return p.resumeRemoveEnd(b)
	}
}

// resumeLT classifies a held '<' now that more bytes are here. Patterns are
// at most 7 bytes long, so only a few bytes of b are ever looked at.
func (p *Parser) resumeLT(b []byte) int {
	var buf [8]byte
	have := len(p.carry)
	probe := append(append(buf[:0], p.carry...), b[:min(len(b), len(buf)-have)]...)
	kind, n := classify(probe, p.esi)
	switch kind {
	case ltMore:
		p.carry = append(p.carry, b...)
		return len(b)
	case ltNone:
		p.settleCarry(KindText, "")
		return 0
	}
	took := max(0, n-have)
	p.carry = append(p.carry, b[:took]...)
	switch kind {
	case ltComment:
		p.settleCarry(KindText, "")
		p.state, p.dashes = inComment, 0
	case ltESIOpen:
		p.settleCarry(KindDrop, "")
		p.esi = true
	default: // ltStart, ltEnd: go on looking for the tag's end
		p.pend = pendTag
		p.ts = tagScan{}
		p.ts.scan(p.carry[n:])
	}
	return took
}

func (p *Parser) resumeTag(b []byte) int {
	seg := b
	if room := maxTag - len(p.carry); len(seg) > room {
		seg = seg[:room]
	}
	n, res := p.ts.scan(seg)
	p.carry = append(p.carry, seg[:n]...)
	switch {
	case res == tagDone:
		t, off := p.carry, p.carryOff
		p.pend, p.carry = pendNone, nil
		p.tag(t, off, true)
	case res == tagBroken:
		p.settleCarry(KindPass, "ESI tag broken by '<' before its end, passed through as text")
	case len(p.carry) >= maxTag:
		p.settleCarry(KindPass, "ESI tag longer than 16 KiB, passed through as text")
	}
	return n
}

func (p *Parser) resumeVar(b []byte) int {
	n, res := p.vs.scan(b)
	p.carry = append(p.carry, b[:n]...)
	switch res {
	case tagDone:
		p.settleCarry(KindVar, "")
	case tagBroken:
		p.settleCarry(KindText, "")
	}
	return n
}

func (p *Parser) resumeDash(b []byte) int {
	for p.pdash > 0 {
		need := esiEndMark[p.pdash:]
		m := min(len(b), len(need))
		if bytes.Equal(b[:m], need[:m]) {
			if m < len(need) {
				p.pdash += m
				return m
			}
			p.send(KindDrop, esiEndMark, p.carryOff, true, "")
			p.pend, p.pdash, p.esi = pendNone, 0, false
			return m
		}
		// The first held '-' does not begin "-->": it is text.
		p.send(KindText, dashBytes[:1], p.carryOff, true, "")
		p.carryOff++
		p.pdash--
	}
	p.pend = pendNone
	return 0
}

func (p *Parser) resumeRemoveEnd(b []byte) int {
	n, res := matchRemoveEnd(b, len(p.carry))
	p.carry = append(p.carry, b[:n]...)
	switch res {
	case tagDone:
		p.send(KindRemoveClose, p.carry, p.carryOff, true, "")
		p.pend, p.carry = pendNone, nil
		p.state = inText
	case tagBroken:
		c, off := p.carry, p.carryOff
		p.pend, p.carry = pendNone, nil
		p.removed(c, off, true)
	}
	return n
}

// settleCarry reports the held bytes as one event and forgets them; the
// slice is handed over, never written again.
func (p *Parser) settleCarry(k Kind, warning string) {
	c, off := p.carry, p.carryOff
	p.pend, p.carry = pendNone, nil
	p.send(k, c, off, true, warning)
}

type ltKind uint8

const (
	ltNone    ltKind = iota // not a construct: the '<' is text
	ltMore                  // too few bytes to tell
	ltStart                 // "<esi:"
	ltEnd                   // "</esi:"
	ltComment               // "<!--" not followed by "esi"
	ltESIOpen               // "<!--esi"
)

// classify looks at the bytes from a '<' and says which construct, if any,
// starts there and how long its opener is. Inside <!--esi only tags count:
// "<!--" there is text.
func classify(b []byte, inESI bool) (ltKind, int) {
	if len(b) < 2 {
		return ltMore, 0
	}
	switch b[1] {
	case 'e':
		return matchPrefix(b, "<esi:", ltStart)
	case '/':
		return matchPrefix(b, "</esi:", ltEnd)
	case '!':
		if inESI {
			return ltNone, 0
		}
		if k, n := matchPrefix(b, "<!--", ltComment); k != ltComment {
			return k, n
		}
		if k, n := matchPrefix(b[4:], "esi", ltESIOpen); k != ltNone {
			return k, n + 4
		}
		return ltComment, 4
	}
	return ltNone, 0
}

func matchPrefix(b []byte, pat string, k ltKind) (ltKind, int) {
	if len(b) >= len(pat) {
		if string(b[:len(pat)]) == pat {
			return k, len(pat)
		}
		return ltNone, 0
	}
	if string(b) == pat[:len(b)] {
		return ltMore, 0
	}
	return ltNone, 0
}

type tagResult uint8

const (
	tagMore   tagResult = iota // the piece ended first
	tagDone                    // the tag's '>' was found
	tagBroken                  // a '<' came first: this is no tag
)

// tagScan finds the '>' that ends a tag, skipping quoted attribute values.
// A '<' anywhere, even inside quotes, ends the attempt, so a stray quote can
// never make a tag swallow the markup after it.
type tagScan struct {
	quote byte // the quote that opened the current value, or 0
	eq    bool // an '=' was seen, so a quote opens a value
}

func (s *tagScan) scan(b []byte) (int, tagResult) {
	for i, c := range b {
		if s.quote != 0 {
			switch c {
			case s.quote:
				s.quote = 0
			case '<':
				return i, tagBroken
			}
			continue
		}
		switch c {
		case '>':
			return i + 1, tagDone
		case '<':
			return i, tagBroken
		case '=':
			s.eq = true
		case '"', '\'':
			if s.eq {
				s.quote = c
			}
			s.eq = false
		case ' ', '\t', '\n', '\r':
		default:
			s.eq = false
		}
	}
	return len(b), tagMore
}

const removeEnd = "</esi:remove"

// matchRemoveEnd matches "</esi:remove" + whitespace + ">" against b, of
// which have bytes were already matched in earlier pieces.
func matchRemoveEnd(b []byte, have int) (int, tagResult) {
	i := 0
	for ; have < len(removeEnd); have, i = have+1, i+1 {
		if i == len(b) {
			return i, tagMore
		}
		if b[i] != removeEnd[have] {
			return i, tagBroken
		}
	}
	for ; i < len(b); i, have = i+1, have+1 {
		switch b[i] {
		case '>':
			return i + 1, tagDone
		case ' ', '\t', '\n', '\r':
			if have >= maxTag {
				return i, tagBroken
			}
		default:
			return i, tagBroken
		}
	}
	return i, tagMore
}
