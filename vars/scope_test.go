package vars

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestScope(t *testing.T) {
	s := NewScope()
	// Used before it is defined, as NGINX allows; a family name resolves
	// to the registry at the end.
	tpl, err := s.Compile("[$Late|$http_x_a|$host]", "first use")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	if _, err := s.Define("late", func(r *http.Request, st *State) string {
		calls++
		return "v" + r.Header.Get("X-A")
	}, false); err != nil {
		t.Fatal(err)
	}
	calls2 := 0
	fresh, err := s.Define("fresh", func(*http.Request, *State) string { calls2++; return "f" }, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "http://h.test/", nil)
	r.Header.Set("X-A", "1")
	st := &State{Host: "h.test"}
	for range 2 {
		if got := tpl.EvalState(r, st); got != "[v1|1|h.test]" {
			t.Errorf("got %q", got)
		}
	}
	if calls != 1 {
		t.Errorf("cached variable computed %d times in one request", calls)
	}
	if got := tpl.EvalState(r, &State{Host: "h.test"}); got != "[v1|1|h.test]" || calls != 2 {
		t.Errorf("second request: %q, %d calls", got, calls)
	}
	ft, _ := s.Compile("$fresh$fresh", nil)
	if ft.EvalState(r, st); calls2 != 2 {
		t.Errorf("volatile variable computed %d times for two uses", calls2)
	}
	fresh.Set(st, "set")
	if got := ft.EvalState(r, st); got != "setset" {
		t.Errorf("after Set: %q", got)
	}
	if v, ok := s.Lookup("LATE"); !ok || v.Name() != "Late" {
		t.Errorf("Lookup ignoring case: %v %v", v, ok)
	}
	// After Resolve, a new name resolves at once.
	if _, err := s.Compile("$http_x_b", nil); err != nil {
		t.Error(err)
	}
	if _, err := s.Compile("$nonesuch", nil); err == nil {
		t.Error("unknown name accepted after Resolve")
	}
}

func TestScopeErrors(t *testing.T) {
	s := NewScope()
	if _, err := s.Define("host", nil, false); err == nil || err.Error() != `the duplicate "host" variable` {
		t.Errorf("defining $host: %v", err)
	}
	if _, err := s.Compile("$a $nonesuch", "where"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Define("a", nil, false); err != nil {
		t.Fatal(err)
	}
	err := s.Resolve()
	var u *UnknownError
	if !errors.As(err, &u) || u.Name != "nonesuch" || u.Tag != "where" || err.Error() != `unknown "nonesuch" variable` {
		t.Errorf("Resolve: %v", err)
	}
}

// "${1}" is the variable "1" in a configuration, as in NGINX: unknown,
// with the directive that used it, unless a "set $1" defines it; "$1"
// stays the capture either way.
func TestScopeBracketedDigit(t *testing.T) {
	s := NewScope()
	if _, err := s.Compile("${1}", "where"); err != nil {
		t.Fatal(err)
	}
	var u *UnknownError
	if err := s.Resolve(); !errors.As(err, &u) || u.Name != "1" || u.Tag != "where" {
		t.Errorf("Resolve: %v", err)
	}

	s = NewScope()
	braced, _ := s.Compile("${1}", nil)
	capture, _ := s.Compile("$1", nil)
	s.Define("1", func(*http.Request, *State) string { return "set" }, false)
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	st := &State{Captures: []string{"/a", "a"}}
	r := httptest.NewRequest("GET", "/", nil)
	if got := braced.EvalState(r, st) + " " + capture.EvalState(r, st); got != "set a" {
		t.Errorf("${1} $1 = %q, want \"set a\"", got)
	}
}

// Two variables that need each other: the inner use reads empty rather
// than recursing for ever.
func TestScopeCycle(t *testing.T) {
	s := NewScope()
	a, _ := s.Compile("a$b", nil)
	b, _ := s.Compile("b$a", nil)
	s.Define("a", func(r *http.Request, st *State) string { return a.EvalState(r, st) }, false)
	s.Define("b", func(r *http.Request, st *State) string { return b.EvalState(r, st) }, true)
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	top, _ := s.Compile("$a", nil)
	r := httptest.NewRequest("GET", "/", nil)
	if got := top.EvalState(r, &State{}); got != "ab" {
		t.Errorf("got %q", got)
	}
}
