package brotli

import (
	"os"
	"testing"
)

func TestZZStats(t *testing.T) {
	for _, f := range []string{"jquery.min.js", "bootstrap.min.css", "react-dom.development.js"} {
		in, err := os.ReadFile("../../shared/corpus/" + f)
		if err != nil {
			t.Skip()
		}
		enc, _ := NewEncoder(Options{Quality: 1})
		out := enc.Encode(nil, in[:min(len(in), 1<<17)])
		var ins0, last, short, n int
		var insH [8]int
		for _, s := range enc.e.syms {
			n++
			if s.insert == 0 {
				ins0++
			}
			insH[min(s.insert, 7)]++
			if uint16(s.dist) == noDist {
				last++
			}
			if s.copied < 8 {
				short++
			}
		}
		t.Logf("%s out %d cmds %d ins0 %d insHist %v lastdist %d copy<8 %d", f, len(out), n, ins0, insH, last, short)
	}
}
