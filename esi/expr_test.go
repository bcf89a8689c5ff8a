package esi

import (
	"strings"
	"testing"
)

// testValue stands for the variables of a request in expression tests.
func testValue(ref []byte) string {
	switch r := parseVarRef(ref); r.name {
	case "N":
		return "42"
	case "S":
		return "gold"
	default:
		return r.def
	}
}

func TestEvalTest(t *testing.T) {
	for _, tc := range []struct {
		test string
		want bool
		err  bool
	}{
		{"$(N) == 42", true, false},
		{"$(N) == 42.0", true, false},
		{"$(N) > 100", false, false},
		{"$(N) > '100'", true, false}, // a quoted string: byte order
		{"$(S) == 'gold' & $(X|'1') == 1", true, false},
		{"!($(S) == 'gold') | 1 == 2", false, false},
		{"  ( ( 1 ) )  ", true, false},
		{"-0", false, false},
		{"", false, true},
		{"1 ==", false, true},
		{"1 == 1 1", false, true},
		{"(1", false, true},
		{"'open", false, true},
		{"$(", false, true},
		{"-", false, true},
		{"1 === 1", false, true},
		{"a == a", false, true},
	} {
		got, err := evalTest(tc.test, testValue)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("%q: got %v, %v; want %v, error %v", tc.test, got, err, tc.want, tc.err)
		}
	}
}

func TestEvalTestBounds(t *testing.T) {
	deep := strings.Repeat("(", maxExprDepth) + "1" + strings.Repeat(")", maxExprDepth)
	if ok, err := evalTest(deep, testValue); !ok || err != nil {
		t.Errorf("%d parentheses: %v, %v", maxExprDepth, ok, err)
	}
	for _, tc := range []string{
		"(" + deep + ")",
		strings.Repeat("!", maxExprDepth+1) + "1",
		strings.Repeat("1==1 & ", maxExpr/7+1) + "1",
	} {
		if _, err := evalTest(tc, testValue); err == nil {
			t.Errorf("%.40q... (%d bytes) evaluated", tc, len(tc))
		}
	}
}

func FuzzEvalTest(f *testing.F) {
	for _, s := range []string{
		"$(N) == 42", "!($(S)=='gold') | (1 < 2 & 'a' != 'b')", "'''it's''' >= '' & -1.5 <= 2",
		"$(HTTP_COOKIE{a}|'x') == 'x'", "((((1))))", "!!!0", "1 == ", "$(A{b}|c)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, test string) {
		got, err := evalTest(test, testValue)
		if err != nil {
			if got {
				t.Fatalf("%q: true with an error", test)
			}
			return
		}
		// A test that evaluates evaluates the same inside parentheses,
		// and negated gives the opposite (when the bounds leave room).
		if len(test)+3 > maxExpr {
			return
		}
		if again, err := evalTest("("+test+")", testValue); err == nil && again != got {
			t.Fatalf("%q is %v, in parentheses %v", test, got, again)
		}
		if neg, err := evalTest("!("+test+")", testValue); err == nil && neg == got {
			t.Fatalf("%q is %v, negated too", test, got)
		}
	})
}
