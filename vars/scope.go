package vars

import (
	"fmt"
	"net/http"
	"strings"
)

// Scope holds the variables that one configuration defines for itself
// (map, set, the named captures of its regular expressions) on top of the
// registry that every configuration shares. As in NGINX, a template may
// name such a variable before the directive that defines it: Compile binds
// the name to a Var, and Resolve, once the whole configuration is read,
// checks that every name it bound is defined (or belongs to a registered
// family such as $http_NAME) and reports the first one that is not.
//
// A Scope is written while its configuration loads and only read after
// Resolve, so requests share it without locking.
type Scope struct {
	vars     map[string]*Var // by lower-case name: NGINX's names ignore case
	order    []*Var          // in the order first named; Var.slot indexes it
	resolved bool            // Resolve ran: a new name must resolve at once
}

// NewScope returns an empty scope.
func NewScope() *Scope { return &Scope{vars: map[string]*Var{}} }

// Var is a variable of a Scope. Its value is computed at most once per
// request and kept in the request's State (NGINX's cached variables),
// unless it is volatile; Set stores a value directly.
type Var struct {
	name     string // as first written
	slot     int
	scope    *Scope
	get      Getter
	val      Value // of a registered family (direct), if it has one
	defined  bool
	volatile bool
	direct   bool // bound by Resolve to a registered family: never cached
	tag      any  // what Compile was told about the first use, for Resolve
}

// Name returns the variable's name, as first written.
func (v *Var) Name() string { return v.name }

// UnknownError is Resolve's error: Name was used, in the place that Tag
// (given to Compile) describes, and nothing defines it.
type UnknownError struct {
	Name string
	Tag  any
}

func (e *UnknownError) Error() string { return fmt.Sprintf("unknown %q variable", e.Name) }

// ref returns the Var of name, creating an undefined one.
func (s *Scope) ref(name string, tag any) *Var {
	key := strings.ToLower(name)
	if v, ok := s.vars[key]; ok {
		return v
	}
	v := &Var{name: name, slot: len(s.order), scope: s, tag: tag}
	s.vars[key] = v
	s.order = append(s.order, v)
	return v
}

// registered reports whether the shared registry holds exactly name (not
// through a family).
func registered(name string) (binding, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	g, ok := getters[name]
	return binding{get: g, val: values[name]}, ok
}

// Define makes $name a variable of the scope, computed by get. volatile
// ones are computed at every use (map's "volatile"), others once per
// request. Defining a name again replaces its getter, as NGINX lets a
// second map (or set) redefine a variable; a name of the shared registry
// ($host, $uri, ...) cannot be defined, as in NGINX, whose error this is.
func (s *Scope) Define(name string, get Getter, volatile bool) (*Var, error) {
	if name == "" {
		return nil, fmt.Errorf(`invalid variable name "$"`)
	}
	if _, ok := registered(name); ok {
		return nil, fmt.Errorf("the duplicate %q variable", name)
	}
	v := s.ref(name, nil)
	v.get, v.defined, v.volatile = get, true, volatile
	return v, nil
}

// Lookup returns the defined variable called name, if any.
func (s *Scope) Lookup(name string) (*Var, bool) {
	v, ok := s.vars[strings.ToLower(name)]
	if !ok || !v.defined {
		return nil, false
	}
	return v, true
}

// Compile is vars.Compile for a configuration: names of the shared
// registry bind at once, every other name to the scope's Var of that name,
// which Resolve completes. tag records the first use of an unknown name
// for Resolve's error (the server passes the directive).
func (s *Scope) Compile(text string, tag any) (*Template, error) {
	return compile(text, func(name string) (binding, error) { return s.bind(name, tag) })
}

// CompileVar is Compile of a template that is the variable name alone,
// whatever bytes the name holds: an "if"'s "$name", which NGINX takes as
// a name without parsing it as a value ("${a}" there is "{a}", the
// name "set ${a}" defines; "$http_x-y" is of the family).
func (s *Scope) CompileVar(name string, tag any) (*Template, error) {
	b, err := s.bind(name, tag)
	if err != nil {
		return nil, err
	}
	return varTemplate(name, b), nil
}

// bind is the binding of name in the scope, for Compile.
func (s *Scope) bind(name string, tag any) (binding, error) {
	if b, ok := registered(name); ok {
		return b, nil
	}
	v := s.ref(name, tag)
	if s.resolved && !v.defined {
		// Compiled after the configuration was read (while handlers
		// are built): nothing can define the name any more.
		if err := s.resolve(v); err != nil {
			return binding{}, err
		}
	}
	return binding{get: v.eval, val: v.Value}, nil
}

// Resolve completes the scope once the configuration is read: a name that
// nothing defined takes the registered family it belongs to ($http_NAME,
// $arg_NAME, ...); a name that has none is an *UnknownError.
func (s *Scope) Resolve() error {
	s.resolved = true
	for _, v := range s.order {
		if v.defined {
			continue
		}
		if err := s.resolve(v); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scope) resolve(v *Var) error {
	b, ok := lookup(v.name)
	if !ok {
		return &UnknownError{Name: v.name, Tag: v.tag}
	}
	v.get, v.val, v.defined, v.direct = b.get, b.val, true, true
	return nil
}

// slot is a Var's value in one request.
type slot struct {
	val   string
	state uint8
}

const (
	slotEmpty uint8 = iota
	slotBusy        // being computed: meeting it again is a cycle
	slotValid
)

// slotLocked returns v's slot in st, which st.mu guards.
func (st *State) slotLocked(v *Var) *slot {
	if v.slot >= len(st.slots) {
		n := len(v.scope.order)
		if n <= v.slot {
			n = v.slot + 1
		}
		st.slots = append(st.slots, make([]slot, n-len(st.slots))...)
	}
	return &st.slots[v.slot]
}

// eval is the Getter of v: the value cached in st, or computed now. A
// variable whose computation needs its own value (map $a $a, or two maps
// of each other) is a cycle; NGINX fails the request with "cycle while
// evaluating variable", mosaic gives the empty string.
func (v *Var) eval(r *http.Request, st *State) string {
	if v.direct || st == nil {
		if v.get == nil {
			return ""
		}
		return v.get(r, st)
	}
	st.mu.Lock()
	sl := st.slotLocked(v)
	switch sl.state {
	case slotValid:
		val := sl.val
		st.mu.Unlock()
		return val
	case slotBusy:
		st.mu.Unlock()
		return ""
	}
	sl.state = slotBusy
	st.mu.Unlock()

	var val string
	if v.get != nil {
		val = v.get(r, st)
	}

	st.mu.Lock()
	sl = st.slotLocked(v)
	if sl.state == slotBusy { // not Set meanwhile
		if v.volatile {
			sl.state = slotEmpty
		} else {
			sl.val, sl.state = val, slotValid
		}
	}
	st.mu.Unlock()
	return val
}

// Value computes v and whether it has a value, as a template naming it
// would (SSI's echo prints its default for none). A variable the configuration defines (map,
// set, a named capture) always has one, empty or not, as NGINX's do
// (a "set" not run in this request reads as empty, with a warning in
// NGINX's log); one bound to a registered family has that family's.
func (v *Var) Value(r *http.Request, st *State) (string, bool) {
	if v.direct && v.val != nil {
		return v.val(r, st)
	}
	val := v.eval(r, st)
	return val, !v.direct || val != ""
}

// Eval computes v for r, as a template naming it would: a module that
// looks variables up by name at run time (SSI's echo) calls it.
func (v *Var) Eval(r *http.Request, st *State) string { return v.eval(r, st) }

// Set gives v the value val for the rest of st's request, as NGINX's
// regular expressions do for their named captures and "set" does.
func (v *Var) Set(st *State, val string) {
	if st == nil {
		return
	}
	st.mu.Lock()
	sl := st.slotLocked(v)
	sl.val, sl.state = val, slotValid
	st.mu.Unlock()
}

// CopyVars gives st the values parent's configuration variables have
// ("set"), as NGINX's subrequests share their parent's variables
// (sr->variables = r->variables): for a subrequest that skips the
// rewrite phase where they were set.
func (st *State) CopyVars(parent *State) {
	parent.mu.Lock()
	slots := make([]slot, len(parent.slots))
	for i, s := range parent.slots {
		if s.state == slotValid {
			slots[i] = s
		}
	}
	parent.mu.Unlock()
	st.mu.Lock()
	st.slots = slots
	st.mu.Unlock()
}
