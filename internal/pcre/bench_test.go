package pcre

import (
	"strings"
	"testing"
)

// The typical static-files location, on the engine Compile picks (RE2)
// and on the backtracking engine that look-around patterns need.
func benchmarkLocation(b *testing.B, forceBT bool) {
	re, err := compile(`\.(css|js|png)$`, true, forceBT)
	if err != nil {
		b.Fatal(err)
	}
	for _, uri := range []string{"/static/app/main.min.JS", "/api/v1/users/42"} {
		b.Run(uri, func(b *testing.B) {
			for b.Loop() {
				if _, err := re.Match(uri); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLocationRE2(b *testing.B)       { benchmarkLocation(b, false) }
func BenchmarkLocationBacktrack(b *testing.B) { benchmarkLocation(b, true) }

// What one SSI if costs when the client sends "(a)?" ×300 + "a" ×300
// against 600 bytes: the compile and one match, with Compile (RE2, whose
// cost grows with pattern × subject × groups) and with CompileRequest.
func benchmarkManyGroups(b *testing.B, compileFn func(string, bool) (*Regexp, error)) {
	const n = 300
	pat := strings.Repeat("(a)?", n) + strings.Repeat("a", n)
	subj := strings.Repeat("a", 2*n)
	for b.Loop() {
		re, err := compileFn(pat, false)
		if err != nil {
			b.Fatal(err)
		}
		if caps, err := re.MatchTaken(subj); len(caps) != n+1 || err != nil {
			b.Fatalf("%d captures, %v", len(caps), err)
		}
	}
}

func BenchmarkManyGroupsCompile(b *testing.B)        { benchmarkManyGroups(b, Compile) }
func BenchmarkManyGroupsCompileRequest(b *testing.B) { benchmarkManyGroups(b, CompileRequest) }
