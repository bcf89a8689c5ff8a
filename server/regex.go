package server

import (
	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/vars"
)

// regex is a location's or a server name's regular expression, with the
// variables that its named groups define in the configuration: NGINX sets
// them, and $1..$9, whenever the expression matches.
type regex struct {
	*pcre.Regexp
	named    []*vars.Var // by group number; nil for an unnamed group
	caseless bool
}

// compileRegex compiles expr with PCRE's syntax for directive c, whose
// configuration gets the variables of the named groups. An error reads
// like NGINX's (pcre2_compile() failed: ...); c.Errorf adds the file and
// line.
func compileRegex(c *Cmd, expr string, caseless bool) (*regex, error) {
	re, err := pcre.Compile(expr, caseless)
	if err != nil {
		return nil, err
	}
	rx := &regex{Regexp: re, caseless: caseless}
	scope := c.Config().Vars()
	for i, name := range re.Names() {
		if name == "" {
			continue
		}
		v, ok := scope.Lookup(name)
		if !ok {
			// Only a match gives the variable a value.
			if v, err = scope.Define(name, nil, false); err != nil {
				return nil, err
			}
		}
		if rx.named == nil {
			rx.named = make([]*vars.Var, len(re.Names()))
		}
		rx.named[i] = v
	}
	return rx, nil
}

// exec matches s and, when it matches, records the captures in st (nil
// outside the server): $0..$9 and the named groups' variables. An error
// means that the match could not be completed (pcre.ErrLimit); NGINX logs
// it and answers 500.
func (re *regex) exec(s string, st *vars.State) (bool, error) {
	if re.NumCaptures() == 0 {
		ok, err := re.MatchString(s)
		if ok && st != nil {
			st.Captures = []string{}
		}
		return ok, err
	}
	caps, err := re.Match(s)
	if caps == nil || st == nil {
		return caps != nil, err
	}
	st.Captures = caps
	for i, v := range re.named {
		if v != nil {
			v.Set(st, caps[i])
		}
	}
	return true, nil
}
