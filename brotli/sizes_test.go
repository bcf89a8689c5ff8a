package brotli

import (
	"fmt"
	"os/exec"
	"testing"
)

// encodeTool compresses in with Google's encoder (the brotli tool) at
// quality q and window 22.
func encodeTool(t testing.TB, in []byte, q int) []byte {
	t.Helper()
	return runTool(t, in, "-q", fmt.Sprint(q), "-w", "22", "-c")
}

// TestNoLargerThanGoogle holds every quality to the size goal
// against Google's encoder on the corpus: no file more than 1% larger
// than Google's output at the same quality and window, and the corpus no
// larger in sum. The qualities' tables trade size for speed (how far a
// lazy step looks, which ring distances are tried); this is the line
// such a trade must not cross. Where slowAt leaves a file out (the
// largest at 10 and 11) the sum is not compared.
func TestNoLargerThanGoogle(t *testing.T) {
	files, names := corpusNames(t)
	if _, err := exec.LookPath("brotli"); err != nil {
		t.Skip("brotli tool not installed")
	}
	for q := MinQuality; q <= MaxQuality; q++ {
		t.Run(fmt.Sprintf("q%d", q), func(t *testing.T) {
			t.Parallel()
			ours, theirs, whole := 0, 0, true
			for _, name := range names {
				in := files[name]
				if slowAt(q, len(in)) {
					whole = false
					continue
				}
				comp, err := Encode(nil, in, Options{Quality: q, LGWin: 22})
				if err != nil {
					t.Fatal(err)
				}
				c := len(encodeTool(t, in, q))
				if len(comp)*100 > c*101 {
					t.Errorf("%s: %d bytes, Google's %d (+%.2f%%)", name, len(comp), c, 100*float64(len(comp)-c)/float64(c))
				}
				ours += len(comp)
				theirs += c
			}
			if whole && ours > theirs {
				t.Errorf("corpus: %d bytes, Google's %d", ours, theirs)
			}
		})
	}
}
