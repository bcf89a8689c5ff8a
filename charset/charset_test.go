package charset

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// koiUTF is a small koi8-r to UTF-8 map: а, б, ё and a sign.
func koiUTF(t testing.TB) *Table {
	t.Helper()
	tb, err := NewTable("koi8-r", "utf-8")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"C1", "D0B0"}, {"c2", "d0b1"}, {"A3", "D191"}, {"BF", "C2A9"}} {
		if err := tb.Map(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	return tb
}

func recode(tb *Table, reverse bool, pieces ...string) string {
	var out bytes.Buffer
	z := tb.NewWriter(&out, reverse)
	for _, p := range pieces {
		z.Write([]byte(p))
	}
	z.Close()
	return out.String()
}

func TestSingleByte(t *testing.T) {
	tb, err := NewTable("koi8-r", "windows-1251")
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Map("C1", "E0"); err != nil {
		t.Fatal(err)
	}
	if got := recode(tb, false, "a\xc1\xc2"); got != "a\xe0?" {
		t.Errorf("forward %q", got)
	}
	if got := recode(tb, true, "a\xe0\xe1"); got != "a\xc1?" {
		t.Errorf("reverse %q", got)
	}
}

func TestToUTF8(t *testing.T) {
	tb := koiUTF(t)
	for _, c := range []struct{ in, want string }{
		{"\xc1\xc2 \xa3\xbf", "аб ё©"},
		// An unmapped byte is '?' once the piece has a byte to recode...
		{"\xc1\x80", "а?"},
		// ... and goes as it is in a piece without one, as NGINX's.
		{"x\x80", "x\x80"},
		{strings.Repeat("x", 513) + "\x80\xc1\x80", strings.Repeat("x", 513) + "\x80а?"},
		{strings.Repeat("x", 511) + "\x80\xc1", strings.Repeat("x", 511) + "?а"},
	} {
		if got := recode(tb, false, c.in); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFromUTF8(t *testing.T) {
	tb := koiUTF(t)
	for _, c := range []struct{ in, want string }{
		{"аб ё©", "\xc1\xc2 \xa3\xbf"},
		{"я€😀", "&#1103;&#8364;&#128512;"},
		{"\xed\xa0\x80", "&#55296;"}, // a surrogate is a character to NGINX
		{"\xc0\x80x", "??x"},         // overlong: each byte
		{"\xd0Ax", "?x"},             // the breaking byte goes with the sequence
		{"\xf4\x90\x80\x80x", "?x"},  // past U+10FFFF
		{"\xf8\x88\x80\x80x", "?x"},  // 0xf8 starts four bytes
		{"а\xd0", "\xc1"},            // cut at the end: dropped
	} {
		if got := recode(tb, true, c.in); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
}

// A character cut across writes comes out as whole, at every cut.
func TestFromUTF8Split(t *testing.T) {
	tb := koiUTF(t)
	in := "xа€😀\xd0Ay\xed\xa0\x80б"
	want := recode(tb, true, in)
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			if got := recode(tb, true, in[:i], in[i:j], in[j:]); got != want {
				t.Errorf("cut at %d, %d: %q, want %q", i, j, got, want)
			}
		}
	}
}

func TestMapErrors(t *testing.T) {
	if _, err := NewTable("koi8-r", "KOI8-R"); err == nil || err.Error() != `"charset_map" between the same charsets "koi8-r" and "KOI8-R"` {
		t.Errorf("same: %v", err)
	}
	if _, err := NewTable("UTF-8", "koi8-r"); err == nil {
		t.Error("utf-8 first: no error")
	}
	tb := koiUTF(t)
	for _, l := range [][2]string{{"100", "D0B0"}, {"", "D0B0"}, {"C1", "41"}, {"C1", "D0"}, {"C1", "D0B"},
		{"C1", "F0908080"}, {"C1", "C080"}, {"C1", ""}, {"C1", "ZZ"}, {"x", "D0B0"}} {
		if err := tb.Map(l[0], l[1]); err == nil || !strings.HasPrefix(err.Error(), "invalid value") {
			t.Errorf("%q: %v", l, err)
		}
	}
	// A value with a byte after its character is NGINX's too.
	if err := tb.Map("C3", "D0B041"); err != nil {
		t.Error(err)
	}
	if got := recode(tb, false, "\xc3"); got != "аA" {
		t.Errorf("%q", got)
	}
}

// FuzzRecode: any body, cut anywhere, in any direction: no panic, the
// output bounded, UTF-8 out where the target is UTF-8 and the source
// valid, the same output whatever the cut from UTF-8.
func FuzzRecode(f *testing.F) {
	f.Add([]byte("аб ё©\xd0A\xf4\x90\x80\x80😀"), uint8(3), uint8(2))
	f.Add([]byte("\xc1\xc2\x80x"), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, in []byte, cut, mode uint8) {
		tb := koiUTF(t)
		single, _ := NewTable("koi8-r", "windows-1251")
		single.Map("C1", "E0")
		c := int(cut) % (len(in) + 1)
		tables := []*Table{tb, tb, single, single}
		tab, reverse := tables[mode%4], mode%2 == 1
		whole := recode(tab, reverse, string(in))
		split := recode(tab, reverse, string(in[:c]), string(in[c:]))
		if len(whole) > maxGrowth*len(in) || len(split) > maxGrowth*len(in)+10 {
			t.Fatalf("%d bytes from %d", len(split), len(in))
		}
		switch {
		case tab.UTF8() && reverse && whole != split:
			t.Fatalf("cut at %d: %q, whole %q", c, split, whole)
		case tab.UTF8() && reverse:
			// Single bytes and references: ASCII and the map's bytes.
			for i := 0; i < len(whole); i++ {
				if b := whole[i]; b >= 0x80 && b != 0xc1 && b != 0xc2 && b != 0xa3 && b != 0xbf {
					t.Fatalf("byte %#x out of %q", b, whole)
				}
			}
		case tab.UTF8() && !utf8.ValidString(whole) && !bytes.ContainsFunc(in, func(r rune) bool { return r >= 0x80 }):
			t.Fatalf("invalid UTF-8 %q", whole)
		case !tab.UTF8() && len(whole) != len(in):
			t.Fatalf("single-byte %d bytes from %d", len(whole), len(in))
		}
	})
}
