package pcre

import "testing"

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
