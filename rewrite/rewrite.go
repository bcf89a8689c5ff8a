// Package rewrite implements the directives of NGINX's rewrite module that
// compute something per request: the conditions of "if", "rewrite" rules
// and the values of "set". It stands alone: a caller compiles templates in
// its own variable scope (Env) and decides what a rule's outcome does to
// the request's processing (the server's rewrite phases do).
package rewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/vars"
)

// Env is what parsing needs from the configuration: templates compiled in
// its variable scope, and the variables that named captures define.
type Env struct {
	// Compile compiles a value with variables.
	Compile func(text string) (*vars.Template, error)
	// Variable compiles the variable of that name, whatever its bytes
	// (an "if"'s, which NGINX does not parse as a value). Without it,
	// an "if"'s name is compiled as "${name}" with Compile.
	Variable func(name string) (*vars.Template, error)
	// Capture returns the variable a named capture group sets.
	Capture func(name string) (*vars.Var, error)
	// Stat examines a file for the tests of "if" (-f, -d, -e, -x),
	// following symbolic links; nil is os.Stat. The server's refuses a
	// path through a link where disable_symlinks says so.
	Stat func(r *http.Request, name string) (fs.FileInfo, error)
}

// Logf receives the notices that NGINX's rewrite_log writes; nil when
// rewrite_log is off.
type Logf func(format string, args ...any)

// Flag is a rewrite rule's last parameter.
type Flag int

// The flags of "rewrite": none, last, break, redirect (302) and permanent
// (301). A replacement that starts with http://, https:// or $scheme is a
// redirect without the flag.
const (
	FlagNone Flag = iota
	FlagLast
	FlagBreak
	FlagRedirect
	FlagPermanent
)

// Rule is a "rewrite regex replacement [flag]" directive.
type Rule struct {
	re       *pcre.Regexp
	capVars  []*vars.Var // named groups' variables, by group number
	repl     []segment
	flag     Flag
	redirect bool
	addArgs  bool // the replacement does not end with "?"
	hasQuery bool // a literal "?" in the replacement: it holds arguments
}

// segment is a piece of a replacement: literal text, a capture ($1), or
// another variable.
type segment struct {
	lit     string
	capture int // -1 unless a capture
	tmpl    *vars.Template
}

// ParseRule reads the arguments of "rewrite" (regex, replacement and the
// optional flag).
func ParseRule(args []string, env Env) (*Rule, error) {
	if len(args) < 2 || len(args) > 3 {
		return nil, errors.New(`invalid number of arguments in "rewrite" directive`)
	}
	repl := args[1]
	if repl == "" {
		return nil, errors.New("empty replacement")
	}
	re, err := pcre.Compile(args[0], false)
	if err != nil {
		return nil, err
	}
	ru := &Rule{re: re, addArgs: true}
	if ru.capVars, err = captureVars(re, env); err != nil {
		return nil, err
	}
	if strings.HasSuffix(repl, "?") {
		// The last "?" drops the request's arguments.
		repl, ru.addArgs = repl[:len(repl)-1], false
	}
	if strings.HasPrefix(repl, "http://") || strings.HasPrefix(repl, "https://") || strings.HasPrefix(repl, "$scheme") {
		ru.redirect, ru.flag = true, FlagRedirect
	}
	if len(args) == 3 {
		switch args[2] {
		case "last":
			ru.flag = FlagLast
		case "break":
			ru.flag = FlagBreak
		case "redirect":
			ru.flag, ru.redirect = FlagRedirect, true
		case "permanent":
			ru.flag, ru.redirect = FlagPermanent, true
		default:
			return nil, fmt.Errorf("invalid parameter %q", args[2])
		}
	}
	if ru.repl, ru.hasQuery, err = parseReplacement(repl, env); err != nil {
		return nil, err
	}
	return ru, nil
}

// Flag returns the rule's flag (FlagRedirect for a replacement that is an
// absolute URL).
func (ru *Rule) Flag() Flag { return ru.flag }

// parseReplacement splits a replacement into literals, captures ($1-$9,
// one digit, as NGINX reads them) and other variables ($name, ${name};
// "$0" and "${1}" name variables there, unknown unless a "set" makes
// them).
// It reports whether a literal part holds a "?".
func parseReplacement(s string, env Env) ([]segment, bool, error) {
	var segs []segment
	hasQuery := false
	lit := func(t string) {
		if t == "" {
			return
		}
		if strings.IndexByte(t, '?') >= 0 {
			hasQuery = true
		}
		if n := len(segs); n > 0 && segs[n-1].capture < 0 && segs[n-1].tmpl == nil {
			segs[n-1].lit += t
			return
		}
		segs = append(segs, segment{lit: t, capture: -1})
	}
	for len(s) > 0 {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			lit(s)
			break
		}
		lit(s[:i])
		s = s[i+1:]
		// A "$" that ends the replacement falls to ScanName, which
		// refuses it as NGINX does ("invalid variable name").
		if s != "" && s[0] >= '1' && s[0] <= '9' {
			segs = append(segs, segment{capture: int(s[0] - '0')})
			s = s[1:]
			continue
		}
		name, n, err := vars.ScanName(s)
		if err != nil {
			return nil, false, err
		}
		s = s[n:]
		t, err := env.Compile("${" + name + "}")
		if err != nil {
			return nil, false, err
		}
		segs = append(segs, segment{capture: -1, tmpl: t})
	}
	return segs, hasQuery, nil
}

// Result is what a rule did to a request.
type Result struct {
	// Matched: the regex matched the URI. Otherwise nothing changed.
	Matched bool
	// Path and Query are the new URI and arguments (internal rewrites).
	Path, Query string
	// Location and Status are the redirect to answer with.
	Location string
	Status   int
}

// Apply matches the rule against the request's URI (path) and computes
// its outcome; args is the request's query string. st receives the
// captures. An error means the regex could not complete its match (the
// request is answered 500), or the rewritten URI came out empty.
func (ru *Rule) Apply(r *http.Request, st *vars.State, path, args string, log Logf) (Result, error) {
	caps, err := ru.re.Match(path)
	if err != nil {
		return Result{}, pcre.MatchError(err, path, ru.re)
	}
	if caps == nil {
		if log != nil {
			log("%q does not match %q", ru.re.String(), path)
		}
		if st != nil {
			st.Captures = nil // a failed match forgets earlier captures, as NGINX's does
		}
		return Result{}, nil
	}
	if log != nil {
		log("%q matches %q", ru.re.String(), path)
	}
	setCaptures(st, caps, ru.capVars)
	escape := quotedURI(r, st)
	var b strings.Builder
	split := -1 // where the arguments start in b, for an internal rewrite
	inArgs := false
	for _, sg := range ru.repl {
		switch {
		case sg.tmpl != nil:
			b.WriteString(sg.tmpl.EvalState(r, st))
		case sg.capture >= 0:
			c := capture(st, sg.capture)
			if escape && (inArgs || ru.redirect) {
				c = EscapeArgs(c)
			}
			b.WriteString(c)
		default:
			t := sg.lit
			if !ru.redirect && split < 0 {
				if i := strings.IndexByte(t, '?'); i >= 0 {
					b.WriteString(t[:i])
					split, inArgs = b.Len(), true
					t = t[i+1:]
				}
			}
			b.WriteString(t)
		}
	}
	out := b.String()
	if ru.redirect {
		loc := unescapeRedirect(out)
		if ru.addArgs && args != "" {
			sep := "?"
			if ru.hasQuery {
				sep = "&"
			}
			loc += sep + args
		}
		if log != nil {
			log("rewritten redirect: %q", loc)
		}
		status := http.StatusFound
		if ru.flag == FlagPermanent {
			status = http.StatusMovedPermanently
		}
		return Result{Matched: true, Location: loc, Status: status}, nil
	}
	res := Result{Matched: true, Path: out, Query: args}
	if split >= 0 {
		res.Path, res.Query = out[:split], out[split:]
		if ru.addArgs && args != "" {
			res.Query += "&" + args
		}
	} else if !ru.addArgs {
		res.Query = ""
	}
	if log != nil {
		log("rewritten data: %q, args: %q", res.Path, res.Query)
	}
	if res.Path == "" {
		return Result{}, errors.New("the rewritten URI has a zero length")
	}
	return res, nil
}

// captureVars returns the variables of re's named groups, by group
// number (nil for unnamed ones), or nil when it has none.
func captureVars(re *pcre.Regexp, env Env) ([]*vars.Var, error) {
	var out []*vars.Var
	for i, n := range re.Names() {
		if n == "" || env.Capture == nil {
			continue
		}
		v, err := env.Capture(n)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make([]*vars.Var, len(re.Names()))
		}
		out[i] = v
	}
	return out, nil
}

// setCaptures records a successful match: $0..$9 and the named groups. A
// regex without groups leaves no $1..$9, as in NGINX.
func setCaptures(st *vars.State, caps []string, named []*vars.Var) {
	if st == nil {
		return
	}
	st.Captures = caps
	for i, v := range named {
		if v != nil && i < len(caps) {
			v.Set(st, caps[i])
		}
	}
}

func capture(st *vars.State, n int) string {
	if st == nil || n >= len(st.Captures) {
		return ""
	}
	return st.Captures[n]
}

// Value evaluates t as NGINX's rewrite engine computes the value of a
// "set" or the operand of an "if": a numbered capture of a path the
// client sent with escapes (or a "+") is escaped again (EscapeArgs),
// unless rewritten says a rewrite of the same run has matched, after
// which NGINX's engine copies captures as they are. Named captures are
// variables, copied as they are. Without the escaping, "set $f $1;
// proxy_pass http://b/files/$f;" sent "..%252f" on as "..%2f", which the
// upstream decodes a second time, and "%3F" or "%23" as a "?" or "#"
// that cut the upstream's path.
func Value(t *vars.Template, r *http.Request, st *vars.State, rewritten bool) string {
	if rewritten || !t.Captures() || !quotedURI(r, st) {
		return t.EvalState(r, st)
	}
	return t.EvalCaptures(r, st, EscapeArgs)
}

// quotedURI reports a request whose path, as the client sent it, held a
// percent-escape or a "+" (NGINX's quoted_uri and plus_in_uri): captures
// copied into arguments or a redirect, or by "set", are then escaped
// again.
func quotedURI(r *http.Request, st *vars.State) bool {
	u := r.RequestURI
	if st != nil && st.RequestURI != "" {
		u = st.RequestURI
	}
	if i := strings.IndexByte(u, '?'); i >= 0 {
		u = u[:i]
	}
	return strings.ContainsAny(u, "%+")
}

// EscapeArgs escapes s as NGINX 1.22 does for arguments: controls,
// space, the separators "#", "%", "&", "+", ";", "?", the characters a
// URI may not hold `"`, "<", ">", "\", "^", "`", "{", "|", "}", DEL and
// bytes above ASCII.
func EscapeArgs(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if escapeArg(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if escapeArg(c) {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

func escapeArg(c byte) bool {
	switch c {
	case ' ', '"', '#', '%', '&', '+', ';', '<', '>', '?', '\\', '^', '`', '{', '|', '}':
		return true
	}
	return c < 0x20 || c >= 0x7f
}

// unescapeRedirect decodes the percent-escapes of a redirect's target up
// to its first "?" as NGINX does: an escape stays encoded unless it stands
// for a printable character after "%"; a malformed one is dropped.
func unescapeRedirect(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '?' {
			return string(b) + s[i:]
		}
		if c != '%' {
			b = append(b, c)
			continue
		}
		// NGINX's state machine: "%" then a non-hex byte writes that byte;
		// "%h" then a non-hex byte writes nothing.
		if i+1 >= len(s) {
			break
		}
		h1, ok := unhex(s[i+1])
		if !ok {
			b = append(b, s[i+1])
			i++
			continue
		}
		if i+2 >= len(s) {
			break
		}
		h2, ok := unhex(s[i+2])
		if !ok {
			i += 2
			continue
		}
		d := h1<<4 | h2
		switch {
		case d == '?' && isHexLetter(s[i+2]):
			// Only a second digit written as a letter (%3F, %3f) can
			// decode to "?" in NGINX's code, which ends there.
			return string(b) + "?" + s[i+3:]
		case d > '%' && d < 0x7f:
			b = append(b, d)
		default:
			b = append(b, s[i:i+3]...)
		}
		i += 2
	}
	return string(b)
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c|0x20 >= 'a' && c|0x20 <= 'f':
		return c | 0x20 - 'a' + 10, true
	}
	return 0, false
}

func isHexLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'f' }
