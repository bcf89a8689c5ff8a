package rewrite

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/vars"
)

// Cond is the condition of an "if" block.
type Cond struct {
	op      string         // "", "=", "!=", "~", "~*", "!~", "!~*", "-f", "!-f", ...
	left    *vars.Template // the variable; the file name of a file test
	right   *vars.Template // the value compared with (=, !=)
	re      *pcre.Regexp
	capVars []*vars.Var
	stat    func(r *http.Request, name string) (fs.FileInfo, error) // file tests; nil: os.Stat
}

// CondArgs strips the parentheses of an "if" directive's arguments as
// NGINX does: the first argument starts with "(", alone or glued to the
// first word, and the last ends with ")", alone or glued to the last
// word. The configuration lexer keeps "(" and ")" inside words:
// `if ($a = 'b')` reads as "($a", "=", "b", ")" (a ")" after a quoted
// word is a word of its own) and `if ($a)` as "($a)".
func CondArgs(args []string) ([]string, error) {
	if len(args) == 0 || !strings.HasPrefix(args[0], "(") {
		return nil, invalidCond(args, 0)
	}
	a := append([]string(nil), args...)
	if a[0] == "(" {
		a = a[1:]
	} else {
		a[0] = a[0][1:]
	}
	last := len(a) - 1
	if last < 0 || !strings.HasSuffix(a[last], ")") {
		return nil, invalidCond(args, len(args)-1)
	}
	if a[last] == ")" {
		a = a[:last]
	} else {
		a[last] = a[last][:len(a[last])-1]
	}
	if len(a) == 0 {
		return nil, invalidCond(args, 0)
	}
	return a, nil
}

func invalidCond(args []string, i int) error {
	s := ""
	if i < len(args) {
		s = args[i]
	}
	return fmt.Errorf("invalid condition %q", s)
}

// ParseCond reads an "if" condition, parentheses included:
//
//	($var)                   true unless "" or "0"
//	($var = value) ($var != value)
//	($var ~ regex) ~* !~ !~* (case-insensitive with *, negated with !)
//	(-f name) -d -e -x, negated with !: file tests
func ParseCond(args []string, env Env) (*Cond, error) {
	a, err := CondArgs(args)
	if err != nil {
		return nil, err
	}
	w := a[0]
	switch {
	case len(w) > 1 && w[0] == '$':
		if len(a) != 1 && len(a) != 3 {
			return nil, fmt.Errorf("invalid condition %q", w)
		}
		c := &Cond{}
		if c.left, err = variable(w, env); err != nil {
			return nil, err
		}
		if len(a) == 1 {
			return c, nil
		}
		c.op = a[1]
		switch c.op {
		case "=", "!=":
			c.right, err = env.Compile(a[2])
			return c, err
		case "~", "~*", "!~", "!~*":
			if c.re, err = pcre.Compile(a[2], strings.HasSuffix(c.op, "*")); err != nil {
				return nil, err
			}
			if c.capVars, err = captureVars(c.re, env); err != nil {
				return nil, err
			}
			return c, nil
		}
		return nil, fmt.Errorf("unexpected %q in condition", c.op)
	case len(w) == 2 && w[0] == '-', len(w) == 3 && w[0] == '!' && w[1] == '-':
		if len(a) != 2 {
			return nil, fmt.Errorf("invalid condition %q", w)
		}
		if !strings.ContainsRune("fdex", rune(w[len(w)-1])) {
			return nil, fmt.Errorf("invalid condition %q", w)
		}
		c := &Cond{op: w, stat: env.Stat}
		if c.left, err = env.Compile(a[1]); err != nil {
			return nil, err
		}
		return c, nil
	}
	return nil, fmt.Errorf("invalid condition %q", w)
}

// variable compiles the "$name" an "if" tests: the whole word after the
// "$" names one variable, as in NGINX, which looks it up as it stands:
// braces are part of the name ("${host}" is "{host}", unknown unless a
// "set ${host}" defined it, as "set" takes its name alike), so is any
// other byte ("$host$uri" is unknown "host$uri"; "$http_x-y" is a name
// of the family, which finds no field, as in NGINX: see vars.headerValue).
func variable(w string, env Env) (*vars.Template, error) {
	name := w[1:]
	if name == "" {
		return nil, fmt.Errorf("invalid variable name %q", w)
	}
	if strings.Trim(name, "0123456789") == "" {
		// A capture is none of NGINX's variables: "if ($1)" is refused
		// there as unknown, rather than tested unescaped (see Value).
		return nil, fmt.Errorf("unknown %q variable", name)
	}
	if env.Variable == nil {
		// An Env made before Variable existed (a library user's): the
		// name is read as a value's "${name}", which refuses bytes no
		// name holds, rather than calling nil.
		return env.Compile("${" + name + "}")
	}
	return env.Variable(name)
}

// Eval tests the condition for r. rewritten says a rewrite of the run
// has matched before: the captures in a value compared with or in a
// file tested are escaped again until then, as Value says. An error is
// a regex that could not complete its match.
func (c *Cond) Eval(r *http.Request, st *vars.State, rewritten bool, log Logf) (bool, error) {
	// A file test's name is a value, its captures escaped; a variable
	// tested has none (variable), so Value is its EvalState.
	v := Value(c.left, r, st, rewritten)
	switch c.op {
	case "":
		return v != "" && v != "0", nil
	case "=":
		return v == Value(c.right, r, st, rewritten), nil
	case "!=":
		return v != Value(c.right, r, st, rewritten), nil
	case "~", "~*", "!~", "!~*":
		caps, err := c.re.Match(v)
		if err != nil {
			return false, pcre.MatchError(err, v, c.re)
		}
		negate := c.op[0] == '!'
		if caps == nil {
			if log != nil {
				log("%q does not match %q", c.re.String(), v)
			}
			if st != nil {
				st.Captures = nil
			}
			return negate, nil
		}
		if log != nil {
			log("%q matches %q", c.re.String(), v)
		}
		setCaptures(st, caps, c.capVars)
		return !negate, nil
	}
	var fi fs.FileInfo
	var err error
	if c.stat != nil {
		fi, err = c.stat(r, v)
	} else {
		fi, err = os.Stat(v)
	}
	return fileTest(c.op, fi, err), nil
}

// fileTest is -f (a regular file), -d (a directory), -e (either, or
// anything else that exists), -x (executable by its owner) of what a stat
// that follows symbolic links found, as NGINX's does; "!" negates. A name
// that could not be examined (err) makes the positive tests false.
func fileTest(op string, fi fs.FileInfo, err error) bool {
	neg := op[0] == '!'
	if err != nil {
		return neg
	}
	var ok bool
	switch op[len(op)-1] {
	case 'f':
		ok = fi.Mode().IsRegular()
	case 'd':
		ok = fi.IsDir()
	case 'e':
		ok = fi.Mode().IsRegular() || fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0
	case 'x':
		ok = fi.Mode()&0o100 != 0
	}
	return ok != neg
}
