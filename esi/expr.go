package esi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Bounds of an <esi:when> test: it comes from page content, so its cost is
// bounded whatever the page holds.
const (
	maxExpr      = 4 << 10 // bytes of a test, after entity decoding
	maxExprDepth = 32      // nested parentheses and '!'
)

// evalTest evaluates an ESI 1.0 test expression; value gives the value of a
// $(...) reference. The grammar, loosest binding first:
//
//	or      = and { "|" and }
//	and     = not { "&" not }
//	not     = "!" not | compare
//	compare = operand [ ("==" | "!=" | "<" | "<=" | ">" | ">=") operand ]
//	operand = "(" or ")" | variable | 'string' | '''string''' | number
//
// Every value is a string. A comparison of two numbers (number literals,
// or variables whose whole value is a number) compares them as numbers;
// any other pair, and any quoted string, compares byte by byte. A
// comparison or a logical operator yields "true" or "false". A value taken
// as a condition is false when it is empty, "false", or (but for a quoted
// string) a number equal to 0.
func evalTest(test string, value func(ref []byte) string) (bool, error) {
	if len(test) > maxExpr {
		return false, fmt.Errorf("test longer than %d bytes", maxExpr)
	}
	e := exprParser{s: test, value: value}
	v, err := e.or()
	if err == nil && e.skipSpace() < len(e.s) {
		err = e.errorf("unexpected %q", e.rest())
	}
	if err != nil {
		return false, err
	}
	return v.truth(), nil
}

// val is a value of an expression; lit marks a quoted string, which is
// never taken as a number.
type val struct {
	s   string
	lit bool
}

func boolVal(b bool) val {
	if b {
		return val{s: "true"}
	}
	return val{s: "false"}
}

type exprParser struct {
	s     string
	i     int
	depth int
	value func(ref []byte) string
}

func (e *exprParser) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: "+format, append([]any{e.i}, args...)...)
}

func (e *exprParser) rest() string {
	r := e.s[e.i:]
	if len(r) > 20 {
		r = r[:20] + "..."
	}
	return r
}

// skipSpace moves past whitespace and returns the position.
func (e *exprParser) skipSpace() int {
	for e.i < len(e.s) && isSpace(e.s[e.i]) {
		e.i++
	}
	return e.i
}

func (e *exprParser) peek() byte {
	if e.skipSpace() < len(e.s) {
		return e.s[e.i]
	}
	return 0
}

var errTooDeep = fmt.Errorf("test nested more than %d deep", maxExprDepth)

func (e *exprParser) enter() error {
	e.depth++
	if e.depth > maxExprDepth {
		return errTooDeep
	}
	return nil
}

func (e *exprParser) or() (val, error) {
	v, err := e.and()
	for err == nil && e.peek() == '|' {
		e.i++
		var w val
		if w, err = e.and(); err == nil {
			v = boolVal(v.truth() || w.truth())
		}
	}
	return v, err
}

func (e *exprParser) and() (val, error) {
	v, err := e.not()
	for err == nil && e.peek() == '&' {
		e.i++
		var w val
		if w, err = e.not(); err == nil {
			v = boolVal(v.truth() && w.truth())
		}
	}
	return v, err
}

func (e *exprParser) not() (val, error) {
	if e.peek() != '!' || strings.HasPrefix(e.s[e.i:], "!=") {
		return e.compare()
	}
	e.i++
	if err := e.enter(); err != nil {
		return val{}, err
	}
	v, err := e.not()
	e.depth--
	return boolVal(!v.truth()), err
}

func (e *exprParser) compare() (val, error) {
	a, err := e.operand()
	if err != nil {
		return val{}, err
	}
	e.skipSpace()
	op := ""
	for _, o := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if strings.HasPrefix(e.s[e.i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return a, nil
	}
	e.i += len(op)
	b, err := e.operand()
	if err != nil {
		return val{}, err
	}
	c := compareValues(a, b)
	switch op {
	case "==":
		return boolVal(c == 0), nil
	case "!=":
		return boolVal(c != 0), nil
	case "<":
		return boolVal(c < 0), nil
	case "<=":
		return boolVal(c <= 0), nil
	case ">":
		return boolVal(c > 0), nil
	}
	return boolVal(c >= 0), nil
}

func (e *exprParser) operand() (val, error) {
	switch c := e.peek(); {
	case c == 0:
		return val{}, e.errorf("operand missing at the end")
	case c == '(':
		e.i++
		if err := e.enter(); err != nil {
			return val{}, err
		}
		v, err := e.or()
		e.depth--
		if err != nil {
			return val{}, err
		}
		if e.peek() != ')' {
			return val{}, e.errorf("')' expected")
		}
		e.i++
		return v, nil
	case c == '$':
		var vs varScan
		end := min(len(e.s), e.i+maxVarRef+1)
		n, res := vs.scan([]byte(e.s[e.i:end]))
		if res != tagDone {
			return val{}, e.errorf("malformed variable %q", e.rest())
		}
		ref := e.s[e.i : e.i+n]
		e.i += n
		return val{s: e.value([]byte(ref))}, nil
	case c == '\'':
		quote := "'"
		if strings.HasPrefix(e.s[e.i:], "'''") {
			quote = "'''"
		}
		start := e.i + len(quote)
		end := strings.Index(e.s[start:], quote)
		if end < 0 {
			return val{}, e.errorf("string not closed")
		}
		e.i = start + end + len(quote)
		return val{s: e.s[start : start+end], lit: true}, nil
	case c == '-' || c >= '0' && c <= '9':
		n := numberLen(e.s[e.i:])
		if n == 0 {
			return val{}, e.errorf("malformed number %q", e.rest())
		}
		v := e.s[e.i : e.i+n]
		e.i += n
		return val{s: v}, nil
	}
	return val{}, e.errorf("operand expected, found %q", e.rest())
}

// numberLen returns the length of the number -?digits(.digits)? that s
// starts with, or 0.
func numberLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	d := digits(s[i:])
	if d == 0 {
		return 0
	}
	i += d
	if i < len(s) && s[i] == '.' {
		if f := digits(s[i+1:]); f > 0 {
			i += 1 + f
		}
	}
	return i
}

func digits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// number parses s when all of it is a number of the expression grammar.
func number(s string) (float64, bool) {
	if s == "" || numberLen(s) != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	// A number too large for a float64 is still ordered: ParseFloat
	// answers ±Inf with a range error.
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

func compareValues(a, b val) int {
	if x, ok := a.number(); ok {
		if y, ok := b.number(); ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	return strings.Compare(a.s, b.s)
}

func (v val) number() (float64, bool) {
	if v.lit {
		return 0, false
	}
	return number(v.s)
}

func (v val) truth() bool {
	if v.s == "" || v.s == "false" {
		return false
	}
	if f, ok := v.number(); ok {
		return f != 0
	}
	return true
}
