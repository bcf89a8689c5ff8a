package pcre

import (
	"errors"
	"reflect"
	"testing"
)

// FuzzCompileMatch compiles arbitrary patterns and matches them against
// arbitrary subjects: nothing may panic or hang, and where Compile picked
// RE2, the backtracking engine alone must give the same answer.
func FuzzCompileMatch(f *testing.F) {
	for _, c := range matchCases {
		f.Add(c.pat, c.caseless, c.subj)
	}
	for _, c := range append(compileCases, unsupportedCases...) {
		f.Add(c.pat, false, "abc")
	}
	f.Fuzz(func(t *testing.T, pat string, caseless bool, subj string) {
		if len(pat) > 200 || len(subj) > 1000 {
			return
		}
		re, err := Compile(pat, caseless)
		if err != nil {
			return
		}
		got, err := re.Match(subj)
		if err != nil {
			if !errors.Is(err, ErrLimit) {
				t.Fatalf("%q on %q: %v", pat, subj, err)
			}
			return
		}
		if ok, err := re.MatchString(subj); err == nil && ok != (got != nil) {
			t.Fatalf("%q on %q: MatchString %v, Match %q", pat, subj, ok, got)
		}
		if got != nil && len(got) != re.NumCaptures()+1 {
			t.Fatalf("%q: %d captures for %d groups", pat, len(got), re.NumCaptures())
		}
		if re.re2 == nil {
			return
		}
		bt, err := compile(pat, caseless, true)
		if err != nil {
			t.Fatalf("%q compiles for RE2 only: %v", pat, err)
		}
		want, err := bt.Match(subj)
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q (caseless %v) on %q: RE2 %q, backtracking %q", pat, caseless, subj, got, want)
		}
	})
}
