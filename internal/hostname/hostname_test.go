package hostname

import "testing"

// TestFind: NGINX's order and wildcard forms; a trailing dot is part of
// the name, so only a "prefix.*" key can take it.
func TestFind(t *testing.T) {
	tb := New[string]()
	for key, val := range map[string]string{
		"Example.com": "exact", "*.example.com": "star", ".example.org": "dot",
		"www.example.*": "tail", "*.a.example.com": "longer",
	} {
		if err := tb.AddWildcard(key, val); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"example.com": "exact", "EXAMPLE.COM": "exact", "x.example.com": "star",
		"y.a.example.com": "longer", "example.org": "dot", "b.example.org": "dot",
		"www.example.net": "tail", "www.example.com": "star", "example.com.": "",
		"x.example.com.": "", "www.example.net.": "tail", "": "", "org": "",
	} {
		if got, _ := tb.Find(name); got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
	if tb.Len() != 5 {
		t.Errorf("Len %d", tb.Len())
	}
}

func TestAddErrors(t *testing.T) {
	for _, keys := range [][]string{{"a*b"}, {"*.*.a"}, {"a..b"}, {"a\x00"}, {"a.test", "A.TEST"}, {".a.test", "a.test"}, {"*.a.test", ".a.test"}, {"a.*", "A.*"}} {
		tb := New[int]()
		var err error
		for _, k := range keys {
			if err = tb.AddWildcard(k, 1); err != nil {
				break
			}
		}
		if err == nil {
			t.Errorf("%q accepted", keys)
		}
	}
}
