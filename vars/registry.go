package vars

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
)

// Getter computes a variable's value for a request. st may be nil when a
// handler runs outside the server.
type Getter func(r *http.Request, st *State) string

// Value computes a variable's value and whether it has one. NGINX tells
// a variable with an empty value (a field sent empty, an empty "map"
// result) from one with no value at all (a field not sent: "not found"),
// and its access log writes "-" for the second only. A variable
// registered with a plain Getter has no value when it is empty.
type Value func(r *http.Request, st *State) (v string, ok bool)

// PrefixFactory builds the Getter of a family of variables such as
// $http_NAME, given NAME, once when a template is compiled.
type PrefixFactory func(suffix string) Getter

// PrefixValueFactory is PrefixFactory for a family whose members may
// have an empty value (RegisterPrefixValue).
type PrefixValueFactory func(suffix string) Value

// binding is what a template reads for one variable: get always, val
// where the variable tells an empty value from none.
type binding struct {
	get Getter
	val Value
}

var (
	regMu    sync.RWMutex
	getters  = map[string]Getter{}
	values   = map[string]Value{}  // RegisterValue's, by name
	consts   = map[string]string{} // the getters of RegisterConst, by value
	prefixes = map[string]PrefixValueFactory{}
	settable = map[string]bool{} // RegisterSettable's names
	located  = map[string]bool{} // RegisterLocated's names
)

// Register makes $name available. Modules call it from init; registering
// a name twice is a programming error and panics.
func Register(name string, g Getter) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := getters[name]; dup {
		panic("vars: variable $" + name + " registered twice")
	}
	getters[name] = g
}

// RegisterValue makes $name available, computed by f, for a variable
// that may have an empty value, which the access log writes as nothing
// where it writes "-" for no value.
func RegisterValue(name string, f Value) {
	Register(name, valueGetter(f))
	regMu.Lock()
	values[name] = f
	regMu.Unlock()
}

// RegisterAlways makes $name available, computed by g, for a variable
// that always has a value, empty or not (Always): templates call g
// itself, not through the Value.
func RegisterAlways(name string, g Getter) { registerBoth(name, g, Always(g)) }

// registerBoth is RegisterValue with the Getter given: the same value as
// f's, computed without f's second result and the call through
// valueGetter, for the variables read on every request.
func registerBoth(name string, g Getter, f Value) {
	Register(name, g)
	regMu.Lock()
	values[name] = f
	regMu.Unlock()
}

// Always is the Value of a variable that always has one, empty or not:
// NGINX's "$https" over plain HTTP, or "$is_args" without arguments,
// which its access log writes as nothing.
func Always(g Getter) Value {
	return func(r *http.Request, st *State) (string, bool) { return g(r, st), true }
}

// valueGetter is the Getter of a Value: the value, empty when there is
// none.
func valueGetter(f Value) Getter {
	return func(r *http.Request, st *State) string {
		v, _ := f(r, st)
		return v
	}
}

// presence is the Value of a plain Getter: an empty value is none.
func presence(g Getter) Value {
	return func(r *http.Request, st *State) (string, bool) {
		v := g(r, st)
		return v, v != ""
	}
}

// RegisterConst makes $name a constant ($nginx_version): templates
// fold its value into their text when they are compiled.
func RegisterConst(name, value string) {
	Register(name, func(*http.Request, *State) string { return value })
	regMu.Lock()
	consts[name] = value
	regMu.Unlock()
}

// constant returns the value of a variable registered with RegisterConst.
func constant(name string) (string, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	v, ok := consts[name]
	return v, ok
}

// RegisterState makes $name read the value a handler recorded with
// State.Set under the same name (for example $upstream_addr).
func RegisterState(name string) {
	Register(name, func(_ *http.Request, st *State) string {
		v, _ := st.Get(name)
		return v
	})
}

// RegisterLocated is RegisterState for a value that belongs to the
// location that set it, as NGINX keeps it in its module's context of the
// request, which an internal redirect clears ($proxy_port): after
// State.LeaveLocation it reads as none.
func RegisterLocated(name string) {
	RegisterState(name)
	regMu.Lock()
	located[name] = true
	regMu.Unlock()
}

// RegisterSettable is RegisterState for a variable that "set" may give a
// value ($uid_reset): the value set is the one read.
func RegisterSettable(name string) {
	RegisterState(name)
	markSettable(name)
}

// RegisterChangeable makes $name computed by g when first read in a
// request, and that value, or the one "set" gives it, read for the rest
// of the request: NGINX's changeable variables ($modern_browser), whose
// value NGINX caches in the request on the first read, so that a
// location with other settings, or one reached by an internal redirect,
// reads the value found before. Such a variable always has a value,
// empty or not, as NGINX's browser variables do.
func RegisterChangeable(name string, g Getter) {
	RegisterAlways(name, cached(name, g))
	markSettable(name)
}

// RegisterCached makes $name computed by g when first read in a request,
// and that value read for the rest of the request, as RegisterChangeable
// does, but "set" cannot give it one, and an empty value is none (the
// access log's "-"): NGINX's cacheable variables whose inputs may change
// within a request ($geoip_*, which read the client's address that a
// location's realip module may set after a first read).
func RegisterCached(name string, g Getter) {
	Register(name, cached(name, g))
}

// cached is g with the value of its first read in a request kept in the
// request's State for the reads after.
func cached(name string, g Getter) Getter {
	return func(r *http.Request, st *State) string {
		if v, ok := st.Get(name); ok {
			return v
		}
		v := g(r, st)
		st.Set(name, v)
		return v
	}
}

func markSettable(name string) {
	regMu.Lock()
	settable[name] = true
	regMu.Unlock()
}

// Settable reports whether name was registered with RegisterSettable.
func Settable(name string) bool {
	regMu.RLock()
	defer regMu.RUnlock()
	return settable[name]
}

// RegisterPrefix makes every $<prefix>NAME available.
func RegisterPrefix(prefix string, f PrefixFactory) {
	RegisterPrefixValue(prefix, func(suffix string) Value { return presence(f(suffix)) })
}

// RegisterPrefixValue is RegisterPrefix for a family whose members may
// have an empty value ($http_NAME of a field sent empty).
func RegisterPrefixValue(prefix string, f PrefixValueFactory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := prefixes[prefix]; dup {
		panic("vars: prefix $" + prefix + " registered twice")
	}
	prefixes[prefix] = f
}

// Lookup returns the getter for a variable name, resolving prefix
// families. Longer prefixes win, so $sent_http_x is not read as $s...
// A prefix alone names a member too ($arg_, $cookie_), as in NGINX, whose
// configurations may hold them.
func Lookup(name string) (Getter, bool) {
	b, ok := lookup(name)
	return b.get, ok
}

// LookupValue is Lookup for a module that reads a variable by name at
// run time and tells an empty value from none (SSI's echo prints its
// default for none, as NGINX's does).
func LookupValue(name string) (Value, bool) {
	b, ok := lookup(name)
	if !ok {
		return nil, false
	}
	if b.val == nil {
		return presence(b.get), true
	}
	return b.val, true
}

// lookup is Lookup with the variable's Value, if it has one.
func lookup(name string) (binding, bool) {
	// NGINX lower-cases variable names, those of families included
	// ($HTTP_User_Agent is $http_user_agent).
	name = strings.ToLower(name)
	regMu.RLock()
	defer regMu.RUnlock()
	if g, ok := getters[name]; ok {
		return binding{get: g, val: values[name]}, true
	}
	var best string
	for p := range prefixes {
		if strings.HasPrefix(name, p) && len(p) > len(best) {
			best = p
		}
	}
	if best == "" {
		return binding{}, false
	}
	val := prefixes[best](name[len(best):])
	return binding{get: valueGetter(val), val: val}, true
}

// Names lists the registered variable names and prefixes (prefixes end
// with "NAME"), for documentation and error messages.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]string, 0, len(getters)+len(prefixes))
	for n := range getters {
		out = append(out, n)
	}
	for p := range prefixes {
		out = append(out, p+"NAME")
	}
	sort.Strings(out)
	return out
}

// Template is a string with $variables, compiled once at configuration
// load and evaluated per request.
type Template struct {
	raw   string
	parts []part
}

type part struct {
	lit     string
	get     Getter // nil for a literal
	val     Value  // get's, telling an empty value from none
	capture bool   // a numbered capture, $1..$9 (EvalCaptures)
}

// Compile parses s. "$name" and "${name}" refer to variables, "$1".."$9" to
// the captures of the regular expression that selected the location. An
// unknown variable is an error, as in NGINX: `unknown "foo" variable`.
func Compile(s string) (*Template, error) { return compile(s, resolve) }

// compile parses s, asking bind for the getter of each variable name: the
// registry's for Compile, a configuration's own names first for
// Scope.Compile.
func compile(s string, bind func(name string) (binding, error)) (*Template, error) {
	t := &Template{raw: s}
	lit := strings.Builder{}
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' {
			lit.WriteByte(c)
			continue
		}
		if i+1 < len(s) && s[i+1] >= '1' && s[i+1] <= '9' {
			// A capture is one digit from 1, unbracketed, as in NGINX
			// (ngx_http_script_compile): "$12" is $1 then "2", and
			// "${1}", "${10}" and "$0" name variables, unknown unless
			// a "set" makes them.
			flush()
			t.parts = append(t.parts, capturePart(int(s[i+1]-'0')))
			i++
			continue
		}
		// A "$" that ends the value is refused as one before "-" is,
		// in NGINX's words alone: the directive adds its file:line.
		name, n, err := ScanName(s[i+1:])
		if err != nil {
			return nil, err
		}
		i += n
		if v, ok := constant(strings.ToLower(name)); ok {
			lit.WriteString(v) // registered names come first in every scope
			continue
		}
		flush()
		b, err := bind(name)
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, b.part())
	}
	flush()
	return t, nil
}

// part is the template part that reads the variable bound.
func (b binding) part() part {
	if b.val == nil {
		b.val = presence(b.get)
	}
	return part{get: b.get, val: b.val}
}

// varTemplate is the template of one variable, name, bound to b.
func varTemplate(name string, b binding) *Template {
	return &Template{raw: "$" + name, parts: []part{b.part()}}
}

// MustCompile is Compile for templates known at build time.
func MustCompile(s string) *Template {
	t, err := Compile(s)
	if err != nil {
		panic(err)
	}
	return t
}

// capturePart is the part of the numbered capture $n.
func capturePart(n int) part {
	get := func(_ *http.Request, st *State) string {
		if st == nil || n >= len(st.Captures) {
			return ""
		}
		return st.Captures[n]
	}
	return part{get: get, val: presence(get), capture: true}
}

func resolve(name string) (binding, error) {
	b, ok := lookup(name)
	if !ok {
		return binding{}, fmt.Errorf("unknown %q variable", name)
	}
	return b, nil
}

// ErrInvalidName is ScanName's error for a "$" that no name follows.
var ErrInvalidName = errors.New("invalid variable name")

// ScanName reads the name of a variable in a value from s, what follows
// its "$", as NGINX's ngx_http_script_compile does: "{NAME}" or NAME,
// where NAME is letters, digits and "_". It returns the name and the
// bytes of s it took. Braces hold a name of those bytes only: "${a-b}"
// and "${a" are refused with NGINX's words (the closing bracket in "a"
// variable is missing), "${}", a "$" before no name byte and one that
// ends the value (s empty) as ErrInvalidName.
func ScanName(s string) (name string, n int, err error) {
	if s == "" {
		return "", 0, ErrInvalidName // a "$" that ends the value
	}
	bracket := s[0] == '{'
	j := 0
	if bracket {
		if len(s) == 1 {
			return "", 1, ErrInvalidName
		}
		j = 1
	}
	start := j
	for j < len(s) && isNameByte(s[j]) {
		j++
	}
	name = s[start:j]
	if bracket {
		if j == len(s) || s[j] != '}' {
			return "", j, fmt.Errorf("the closing bracket in %q variable is missing", name)
		}
		j++
	}
	if name == "" {
		return "", j, ErrInvalidName
	}
	return name, j, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// String returns the template's source text.
func (t *Template) String() string { return t.raw }

// Getter returns a function computing the template, as EvalState does:
// where the template is one variable and nothing else, the variable's
// own getter, without the walk over the parts (most of FastCGI's
// parameters are one variable each).
func (t *Template) Getter() Getter {
	if t.Single() {
		return t.parts[0].get
	}
	return t.EvalState
}

// Single reports whether the template is one variable and nothing else.
func (t *Template) Single() bool { return len(t.parts) == 1 && t.parts[0].get != nil }

// Static reports whether the template holds no variables, so callers can
// use Literal and skip evaluation per request.
func (t *Template) Static() bool {
	for _, p := range t.parts {
		if p.get != nil {
			return false
		}
	}
	return true
}

// Prefix returns the literal text before the template's first variable
// (all of it for a static template): what the configuration wrote, which
// no request's value changes.
func (t *Template) Prefix() string {
	if len(t.parts) == 0 || t.parts[0].get != nil {
		return ""
	}
	return t.parts[0].lit
}

// Literal returns the text of a static template.
func (t *Template) Literal() string {
	if len(t.parts) == 1 {
		return t.parts[0].lit
	}
	var b strings.Builder
	for _, p := range t.parts {
		b.WriteString(p.lit)
	}
	return b.String()
}

// Eval computes the template for r, reading the State in r's context.
func (t *Template) Eval(r *http.Request) string {
	return t.EvalState(r, FromContext(r.Context()))
}

// EvalState is Eval with the State given, for callers that hold it.
func (t *Template) EvalState(r *http.Request, st *State) string {
	return t.EvalCaptures(r, st, nil)
}

// EvalCaptures is EvalState with the value of each numbered capture
// passed through esc first, unless esc is nil: NGINX's rewrite engine
// escapes the captures it copies into a "set" value (package rewrite's
// EscapeArgs).
func (t *Template) EvalCaptures(r *http.Request, st *State, esc func(string) string) string {
	switch len(t.parts) {
	case 0:
		return ""
	case 1:
		if p := t.parts[0]; p.get == nil {
			return p.lit
		} else {
			return p.value(r, st, esc)
		}
	}
	// The values first, so that the result is allocated once, at its
	// size; on the stack for templates of a usual length.
	var buf [8]string
	vals := buf[:0]
	n := 0
	for _, p := range t.parts {
		v := p.lit
		if p.get != nil {
			v = p.value(r, st, esc)
		}
		vals = append(vals, v)
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for _, v := range vals {
		b.WriteString(v)
	}
	return b.String()
}

// Captures reports whether the template holds a numbered capture.
func (t *Template) Captures() bool {
	for _, p := range t.parts {
		if p.capture {
			return true
		}
	}
	return false
}

// value is the variable's value for r, through esc if it is a numbered
// capture and esc is not nil.
func (p *part) value(r *http.Request, st *State, esc func(string) string) string {
	v := p.get(r, st)
	if esc != nil && p.capture {
		v = esc(v)
	}
	return v
}

// AppendValues appends the template's pieces for r to dst, in order: the
// literals and the variables' values, which joined are EvalState's
// result. A caller that copies them on (a gateway's parameter) makes no
// string of the whole; dst on the caller's stack stays there.
func (t *Template) AppendValues(r *http.Request, st *State, dst []string) []string {
	for _, p := range t.parts {
		v := p.lit
		if p.get != nil {
			v = p.get(r, st)
		}
		dst = append(dst, v)
	}
	return dst
}

// Parts calls lit for each literal and get for each variable in order;
// the access log uses it to escape variable values but not literals, and
// to write "-" for a variable that has no value.
func (t *Template) Parts(lit func(string), get func(Value)) {
	for _, p := range t.parts {
		if p.get == nil {
			lit(p.lit)
		} else {
			get(p.val)
		}
	}
}
