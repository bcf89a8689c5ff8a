package splitclients

import "testing"

// MurmurHash2 (seed 0) on inputs of each tail length; "a" and "abc" are
// the published values. cmd/mosaic's TestGeoAndSplitClientsAsNGINX checks
// the groups of 300 keys against NGINX's.
func TestMurmur2(t *testing.T) {
	for in, want := range map[string]uint32{"": 0, "a": 0x92685f5e, "ab": 0x1aa14063, "abc": 0x13577c9b, "abcd": 0x26873021, "abcde": 0x5f09a8de} {
		if got := murmur2(in); got != want {
			t.Errorf("murmur2(%q) = %#x, want %#x", in, got, want)
		}
	}
}

func TestShares(t *testing.T) {
	var b Builder
	for _, l := range [][2]string{{"50%", "a"}, {"25.5%", "b"}, {"*", "c"}} {
		if err := b.Line(l[0], []string{l[1]}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := b.Split()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i := range 20000 {
		counts[s.Pick(string(rune('a'+i%26))+string(rune(i)))]++
	}
	if counts["a"] < 9000 || counts["a"] > 11000 || counts["b"] < 4500 || counts["b"] > 5700 || counts["c"] < 4200 {
		t.Errorf("shares %v", counts)
	}
	for _, bad := range []string{"0%", "50", "1.234%", "x%", "%", ".%"} {
		if err := (&Builder{}).Line(bad, []string{"v"}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	var over Builder
	over.Line("60%", []string{"a"})
	over.Line("41%", []string{"b"})
	if _, err := over.Split(); err == nil {
		t.Error("101% accepted")
	}
}
