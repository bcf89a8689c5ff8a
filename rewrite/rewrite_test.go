package rewrite

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// testEnv compiles in a fresh scope, as a configuration does.
func testEnv() (Env, *vars.Scope) {
	sc := vars.NewScope()
	return Env{
		Compile:  func(text string) (*vars.Template, error) { return sc.Compile(text, nil) },
		Variable: func(name string) (*vars.Template, error) { return sc.CompileVar(name, nil) },
		Capture: func(name string) (*vars.Var, error) {
			if v, ok := sc.Lookup(name); ok {
				return v, nil
			}
			return sc.Define(name, nil, false)
		},
	}, sc
}

func TestCondArgs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  string
	}{
		{[]string{"($a)"}, []string{"$a"}, ""},
		{[]string{"($a", "=", "b", ")"}, []string{"$a", "=", "b"}, ""},
		{[]string{"(", "$a", "~*", "x", ")"}, []string{"$a", "~*", "x"}, ""},
		{[]string{"(-f", "$x)"}, []string{"-f", "$x"}, ""},
		{[]string{"($a", "=", "b)"}, []string{"$a", "=", "b"}, ""},
		{[]string{"$a"}, nil, `invalid condition "$a"`},
		{[]string{"($a"}, nil, `invalid condition "($a"`},
		{[]string{"(", ")"}, nil, `invalid condition "("`},
	} {
		got, err := CondArgs(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: err %v, want %s", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %q %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParseCondErrors(t *testing.T) {
	env, _ := testEnv()
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"($a", "==", "b)"}, `unexpected "==" in condition`},
		{[]string{"($a", "=", ")"}, `invalid condition "$a"`},
		{[]string{"(-q", "/x)"}, `invalid condition "-q"`},
		{[]string{"(-f)"}, `invalid condition "-f"`},
		{[]string{"(a)"}, `invalid condition "a"`},
		{[]string{"($a", "~", "(x)"}, `pcre2_compile() failed`},
		{[]string{"($1", "=", "x)"}, `unknown "1" variable`},
		{[]string{"($0)"}, `unknown "0" variable`},
		{[]string{"($nosuch)"}, ""}, // resolved later, with the whole configuration
	} {
		_, err := ParseCond(tc.args, env)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.args, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err %v, want %s", tc.args, err, tc.err)
		}
	}
}

// TestCondBracedNames: NGINX names the word after "$" as one variable,
// braces and all, so "if (${host})" tests the variable "{host}": unknown
// (nginx -t's words, the braces kept) unless a "set ${host}" defined it,
// as "set" takes its name alike.
func TestCondBracedNames(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		defined bool
		err     string
	}{
		{[]string{"(${2})"}, false, `unknown "{2}" variable`},
		{[]string{"(${host})"}, false, `unknown "{host}" variable`},
		{[]string{"(${host}", "=", "a)"}, false, `unknown "{host}" variable`},
		{[]string{"(${host}x)"}, false, `unknown "{host}x" variable`},
		{[]string{"(${a})"}, true, ""},
	} {
		env, sc := testEnv()
		if tc.defined {
			if _, err := sc.Define("{a}", nil, false); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ParseCond(tc.args, env); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		err := sc.Resolve()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q: resolved with %v, want %q", tc.args, err, tc.err)
		}
	}
}

func newRequest(target string) (*http.Request, *vars.State) {
	r := httptest.NewRequest("GET", target, nil)
	st := &vars.State{RequestURI: target}
	return r.WithContext(vars.NewContext(r.Context(), st)), st
}

func TestCondEval(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	exe := filepath.Join(dir, "x")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cond   []string
		target string
		want   bool
		caps   []string
	}{
		{[]string{"($arg_a)"}, "/?a=1", true, nil},
		{[]string{"($arg_a)"}, "/?a=0", false, nil},
		{[]string{"($arg_a)"}, "/?a=00", true, nil},
		{[]string{"($arg_a)"}, "/", false, nil},
		{[]string{"($arg_a", "=", "x)"}, "/?a=x", true, nil},
		{[]string{"($arg_a", "=", "", ")"}, "/", true, nil},
		{[]string{"($arg_a", "!=", "x)"}, "/?a=x", false, nil},
		{[]string{"($uri", "~", "^/(a+)/(b)?)"}, "/aa/", true, []string{"/aa/", "aa", ""}},
		{[]string{"($uri", "~", "^/A)"}, "/a", false, nil},
		{[]string{"($uri", "~*", "^/A)"}, "/a", true, nil},
		{[]string{"($uri", "!~", "^/A)"}, "/a", true, nil},
		{[]string{"($uri", "!~*", "^/A)"}, "/a", false, nil},
		{[]string{"(-f", file + ")"}, "/", true, nil},
		{[]string{"(!-f", file + ")"}, "/", false, nil},
		{[]string{"(-f", dir + ")"}, "/", false, nil},
		{[]string{"(-d", dir + ")"}, "/", true, nil},
		{[]string{"(!-d", file + ")"}, "/", true, nil},
		{[]string{"(-e", dir + "/nosuch)"}, "/", false, nil},
		{[]string{"(!-e", dir + "/nosuch)"}, "/", true, nil},
		{[]string{"(-e", file + ")"}, "/", true, nil},
		{[]string{"(-x", exe + ")"}, "/", true, nil},
		{[]string{"(-x", file + ")"}, "/", false, nil},
		{[]string{"(!-x", file + "/sub)"}, "/", true, nil},
	} {
		env, sc := testEnv()
		c, err := ParseCond(tc.cond, env)
		if err != nil {
			t.Fatalf("%q: %v", tc.cond, err)
		}
		if err := sc.Resolve(); err != nil {
			t.Fatal(err)
		}
		r, st := newRequest(tc.target)
		got, err := c.Eval(r, st, false, nil)
		if err != nil || got != tc.want {
			t.Errorf("%q on %s: %v %v, want %v", tc.cond, tc.target, got, err, tc.want)
		}
		if tc.caps != nil && !reflect.DeepEqual(st.Captures, tc.caps) {
			t.Errorf("%q on %s: captures %q, want %q", tc.cond, tc.target, st.Captures, tc.caps)
		}
	}
}

func TestRuleApply(t *testing.T) {
	for _, tc := range []struct {
		rule   []string
		target string // as the client sent it; the path is its decoded form
		want   Result
	}{
		{[]string{"^/a/(.*)$", "/b/$1"}, "/a/x?q=1", Result{Matched: true, Path: "/b/x", Query: "q=1"}},
		{[]string{"^/a/(.*)$", "/b/$1?"}, "/a/x?q=1", Result{Matched: true, Path: "/b/x", Query: ""}},
		{[]string{"^/a/(.*)$", "/b?n=$1"}, "/a/x?q=1", Result{Matched: true, Path: "/b", Query: "n=x&q=1"}},
		{[]string{"^/a/(.*)$", "/b?n=$1?"}, "/a/x?q=1", Result{Matched: true, Path: "/b", Query: "n=x"}},
		{[]string{"^/a/(.*)$", "/b?n=$1"}, "/a/x", Result{Matched: true, Path: "/b", Query: "n=x"}},
		{[]string{"^/nomatch", "/b"}, "/a/x", Result{}},
		{[]string{"^/a/(.*)$", "/b/$1", "last"}, "/a/x%20y", Result{Matched: true, Path: "/b/x y", Query: ""}},
		// Captures copied into arguments are escaped again when the
		// client's path was percent-encoded.
		{[]string{"^/a/(.*)$", "/b?n=$1"}, "/a/x%20y", Result{Matched: true, Path: "/b", Query: "n=x%20y"}},
		{[]string{"^/a/(.*)$", "/b?n=$1"}, "/a/x&y", Result{Matched: true, Path: "/b", Query: "n=x&y"}},
		{[]string{"^/a/(.*)$", "/b?n=$1"}, "/a/x+%26", Result{Matched: true, Path: "/b", Query: "n=x%2B%26"}},
		{[]string{"^/a/(.*)$", "http://h/$1"}, "/a/x?q=1", Result{Matched: true, Location: "http://h/x?q=1", Status: 302}},
		{[]string{"^/a/(.*)$", "http://h/$1?"}, "/a/x?q=1", Result{Matched: true, Location: "http://h/x", Status: 302}},
		{[]string{"^/a/(.*)$", "http://h/?n=$1"}, "/a/x?q=1", Result{Matched: true, Location: "http://h/?n=x&q=1", Status: 302}},
		{[]string{"^/a/(.*)$", "/r/$1", "permanent"}, "/a/x", Result{Matched: true, Location: "/r/x", Status: 301}},
		{[]string{"^/a/(.*)$", "/r/$1", "redirect"}, "/a/x", Result{Matched: true, Location: "/r/x", Status: 302}},
		{[]string{"^/a/(.*)$", "$scheme://h/$1"}, "/a/x", Result{Matched: true, Location: "http://h/x", Status: 302}},
		// A redirect decodes the escapes that stand for printable characters.
		{[]string{"^", "http://h/%41%20%2f%3F%41"}, "/", Result{Matched: true, Location: "http://h/A%20/?%41", Status: 302}},
		{[]string{"^/(?<name>[a-z]+)", "/n/$name"}, "/abc", Result{Matched: true, Path: "/n/abc"}},
		{[]string{"^/a/(.*)$", "/$2$1"}, "/a/x", Result{Matched: true, Path: "/x"}},
	} {
		env, sc := testEnv()
		ru, err := ParseRule(tc.rule, env)
		if err != nil {
			t.Fatalf("%q: %v", tc.rule, err)
		}
		if err := sc.Resolve(); err != nil {
			t.Fatal(err)
		}
		r, st := newRequest(tc.target)
		got, err := ru.Apply(r, st, r.URL.Path, r.URL.RawQuery, nil)
		if err != nil || got != tc.want {
			t.Errorf("%q on %s: %+v %v, want %+v", tc.rule, tc.target, got, err, tc.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	env, _ := testEnv()
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"^/", ""}, "empty replacement"},
		{[]string{"^/", "/x", "forever"}, `invalid parameter "forever"`},
		{[]string{"(", "/x"}, "pcre2_compile() failed"},
		{[]string{"^/", "/${x"}, "the closing bracket"},
		// nginx -t: invalid variable name, for a "$" that ends the
		// replacement as for one before no name byte.
		{[]string{"^/(.*)$", "/$1$"}, "invalid variable name"},
		{[]string{"^/", "/a$-"}, "invalid variable name"},
	} {
		_, err := ParseRule(tc.args, env)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err %v, want %s", tc.args, err, tc.err)
		}
	}
}

// TestUnknownNamesResolved: the names NGINX looks up whole and finds
// unknown (nginx -t: unknown "0" variable, unknown "ho-st" variable) are
// refused when the configuration is resolved, where the whole
// configuration can define them; a family's name ($http_x-y) is found.
func TestUnknownNamesResolved(t *testing.T) {
	for _, tc := range []struct {
		cond, rule []string
		err        string
	}{
		{rule: []string{"^(.*)$", "/x$0"}, err: `unknown "0" variable`},
		{rule: []string{"^(.*)$", "/x${0}"}, err: `unknown "0" variable`},
		{cond: []string{"($ho-st)"}, err: `unknown "ho-st" variable`},
		{cond: []string{"($host$uri)"}, err: `unknown "host$uri" variable`},
		{cond: []string{"($http_x-y)"}},
	} {
		env, sc := testEnv()
		var err error
		if tc.cond != nil {
			_, err = ParseCond(tc.cond, env)
		} else {
			_, err = ParseRule(tc.rule, env)
		}
		if err == nil {
			err = sc.Resolve()
		}
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%q%q: err %v, want %q", tc.cond, tc.rule, err, tc.err)
		}
	}
}

func TestRuleEmptyURI(t *testing.T) {
	env, _ := testEnv()
	ru, err := ParseRule([]string{"^/(.*)", "$1"}, env)
	if err != nil {
		t.Fatal(err)
	}
	r, st := newRequest("/")
	if _, err := ru.Apply(r, st, "/", "", nil); err == nil || !strings.Contains(err.Error(), "zero length") {
		t.Fatalf("err %v", err)
	}
}

func TestRewriteLog(t *testing.T) {
	env, _ := testEnv()
	ru, _ := ParseRule([]string{"^/a", "/b"}, env)
	var lines []string
	log := func(f string, a ...any) { lines = append(lines, strings.TrimSpace(strings.ReplaceAll(f, "%q", "Q"))) }
	r, st := newRequest("/a")
	ru.Apply(r, st, "/a", "", log)
	ru.Apply(r, st, "/x", "", log)
	want := []string{"Q matches Q", "rewritten data: Q, args: Q", "Q does not match Q"}
	if !reflect.DeepEqual(lines, want) {
		t.Fatalf("%q", lines)
	}
}

func TestUnescapeRedirect(t *testing.T) {
	for in, want := range map[string]string{
		"/a%41":      "/aA",
		"/a%20":      "/a%20",
		"/a%25":      "/a%25",
		"/a%26":      "/a&",
		"/a%zz":      "/azz",
		"/a%4z":      "/a",
		"/a%4":       "/a",
		"/a?%41":     "/a?%41",
		"/a%3f%41":   "/a?%41",
		"/a%3F":      "/a?",
		"/%7e%7F%80": "/~%7F%80",
	} {
		if got := unescapeRedirect(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestEscapeArgs(t *testing.T) {
	if got := EscapeArgs("a b#%&+;?\x01\x7f\xffz/='\"<>\\^`{|}"); got != "a%20b%23%25%26%2B%3B%3F%01%7F%FFz/='%22%3C%3E%5C%5E%60%7B%7C%7D" {
		t.Fatal(got)
	}
}

// FuzzRule parses arbitrary rules and applies them to arbitrary URIs:
// neither may panic, and an internal rewrite never yields an empty path.
func FuzzRule(f *testing.F) {
	f.Add("^/a/(.*)$", "/b/$1?x=$2", "/a/x%20y+z?q=1")
	f.Add("(?<n>.)", "http://h/$n%41?", "/")
	f.Add("^", "/${arg_x}$", "/?x=1")
	f.Fuzz(func(t *testing.T, re, repl, target string) {
		env, sc := testEnv()
		ru, err := ParseRule([]string{re, repl}, env)
		if err != nil || sc.Resolve() != nil {
			return
		}
		r := httptest.NewRequest("GET", "/", nil)
		st := &vars.State{RequestURI: target}
		path, args, _ := strings.Cut(target, "?")
		res, err := ru.Apply(r, st, path, args, nil)
		if err == nil && res.Matched && res.Location == "" && res.Path == "" {
			t.Fatalf("empty path without error")
		}
		_ = unescapeRedirect(target)
	})
}

// FuzzCond parses arbitrary "if" conditions and evaluates them.
func FuzzCond(f *testing.F) {
	f.Add("($uri ~* ^/(a)$)", "/a")
	f.Add("( $arg_x = 'y' )", "/?x=y")
	f.Add("(!-f /nonexistent)", "/")
	f.Fuzz(func(t *testing.T, cond, target string) {
		env, sc := testEnv()
		c, err := ParseCond(strings.Fields(cond), env)
		if err != nil || sc.Resolve() != nil {
			return
		}
		r := httptest.NewRequest("GET", "/", nil)
		r.URL.Path = target
		_, _ = c.Eval(r, &vars.State{}, false, nil)
	})
}

// TestValueEscapesCaptures: Value escapes the numbered captures of a
// quoted path (a "%" or "+" in it as sent) for arguments, but not a
// named capture's variable, nor once a rewrite of the run has matched.
func TestValueEscapesCaptures(t *testing.T) {
	env, sc := testEnv()
	name, err := env.Capture("name") // as a regex's (?<name>...) defines it
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := env.Compile("<$1|$name>")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Resolve(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		target    string
		rewritten bool
		want      string
	}{
		{"/a%3Fb", false, "<a%3Fb|a?b>"},
		{"/a+b", false, "<a%2Bb|a+b>"},
		{"/a%252f", false, "<a%252f|a%2f>"},
		{"/a%3Fb", true, "<a?b|a?b>"},
		{"/plain?x=%3F", false, "<plain|plain>"}, // only the path counts
	} {
		r, st := newRequest(tc.target)
		st.Captures = []string{r.URL.Path, r.URL.Path[1:]}
		name.Set(st, r.URL.Path[1:])
		if got := Value(tmpl, r, st, tc.rewritten); got != tc.want {
			t.Errorf("%s (rewritten %v): %q, want %q", tc.target, tc.rewritten, got, tc.want)
		}
	}
}

// TestValueAllocs: escaping a quoted path's captures costs the escaped
// copy of a capture that needs it, and nothing else over EvalState (the
// value is built once, at its size).
func TestValueAllocs(t *testing.T) {
	env, sc := testEnv()
	for _, src := range []string{"$1", "<$1>", "/files/a/longer/prefix/$1/and/a/suffix"} {
		tmpl, err := env.Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := sc.Resolve(); err != nil {
			t.Fatal(err)
		}
		for target, extra := range map[string]float64{"/a%41bcdefghijklmnop": 0, "/a%3Fbcdefghijklmnop": 1} {
			r, st := newRequest(target)
			st.Captures = []string{r.URL.Path, r.URL.Path[1:]}
			plain := testing.AllocsPerRun(50, func() { _ = tmpl.EvalState(r, st) })
			got := testing.AllocsPerRun(50, func() { _ = Value(tmpl, r, st, false) })
			if got != plain+extra {
				t.Errorf("%s on %s: %v allocations, want %v", src, target, got, plain+extra)
			}
		}
	}
}

// TestCondWithoutVariable: an Env built before Env.Variable existed (a
// library user's, with Compile alone) still parses an "if": its variable
// is compiled as a value's "${name}" would be, where a nil Variable was
// called and panicked.
func TestCondWithoutVariable(t *testing.T) {
	env, sc := testEnv()
	env.Variable = nil
	if _, err := ParseCond([]string{"($host", "=", "a)"}, env); err != nil {
		t.Errorf("($host = a): %v", err)
	}
	if err := sc.Resolve(); err != nil {
		t.Errorf("resolve: %v", err)
	}
	if _, err := ParseCond([]string{"($http_x-y)"}, env); err == nil {
		t.Error("($http_x-y) without Env.Variable: no error, want the value's")
	}
}
