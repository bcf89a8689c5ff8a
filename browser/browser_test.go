package browser

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"", 0, true},
		{"1", 1000000, true},
		{"1.0", 1000000, true},
		{"5.5", 5050000, true},
		{"1.8.1.3", 1080103, true},
		{"1.2.3.4.5", 1020304, true},      // the fifth number weighs nothing
		{"0.0.0.120", 120, true},          // a number may spill into the one before
		{"1..2", 1000200, true},           // an empty number is 0
		{"18446744073709551616", 0, true}, // wraps as NGINX's 64-bit integers
		{"1.x", 0, false},
		{"-1", 0, false},
		{"1 ", 0, false},
	} {
		got, ok := ParseVersion(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParseVersion(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func mustVersion(t *testing.T, s string) Version {
	t.Helper()
	v, ok := ParseVersion(s)
	if !ok {
		t.Fatalf("bad version %q", s)
	}
	return v
}

// The classifications NGINX 1.22 gives, traced through its source.
func TestModern(t *testing.T) {
	v := func(s string) Version { return mustVersion(t, s) }
	docs := Options{ // the example of NGINX's documentation
		Modern:  []Rule{{MSIE, v("5.5")}, {Gecko, v("1.0.0")}, {Opera, v("9.0")}, {Safari, v("413")}, {Konqueror, v("3.0")}},
		Ancient: []string{"Links", "Lynx", "netscape4"}, Unlisted: true,
	}
	docs.Netscape4 = true
	for _, c := range []struct {
		name string
		opts Options
		ua   string
		none bool // no User-Agent field
		want bool
	}{
		{"no directives", Options{}, "Mozilla/5.0", false, false},
		{"no field, unlisted", Options{Unlisted: true}, "", true, true},
		{"no field", Options{Modern: []Rule{{Gecko, 0}}}, "", true, false},
		{"empty field", Options{Unlisted: true}, "", false, true},
		{"ancient substring", Options{Unlisted: true, Ancient: []string{"Links"}}, "Links (2.1)", false, false},
		{"ancient empty substring", Options{Unlisted: true, Ancient: []string{""}}, "", false, false},
		{"only ancient", Options{Ancient: []string{"Links"}}, "curl/8", false, false},
		{"netscape4", Options{Unlisted: true, Netscape4: true}, "Mozilla/4.72 ", false, true}, // not longer than "Mozilla/4.72 "
		{"netscape4 long", Options{Unlisted: true, Netscape4: true}, "Mozilla/4.72 [en] (X11)", false, false},
		{"mozilla 5", Options{Unlisted: true, Netscape4: true}, "Mozilla/5.0 (X11)", false, true},
		{"msie 6", docs, "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", false, true},
		{"msie 5.01", docs, "Mozilla/4.0 (compatible; MSIE 5.01; Windows NT 5.0)", false, false},
		{"msie 5.5", docs, "Mozilla/4.0 (compatible; MSIE 5.5; Windows 98)", false, true},
		{"gecko", docs, "Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.0.0) Gecko/20020610", false, true},
		{"gecko 0.9", docs, "Mozilla/5.0 (X11; U; Linux i686; en-US; rv:0.9.4) Gecko/20011019", false, false},
		{"opera as msie", docs, "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0; en) Opera 8.0", false, false},
		{"opera 9", docs, "Opera/9.01 (X11; FreeBSD 6 i386; U; en)", false, true},
		{"safari", docs, "Mozilla/5.0 (Macintosh; U; PPC Mac OS X; en) AppleWebKit/418 (KHTML, like Gecko) Safari/417.9.3", false, true},
		{"konqueror", docs, "Mozilla/5.0 (compatible; Konqueror/3.5; FreeBSD) KHTML/3.5.1 (like Gecko)", false, true},
		{"lynx", docs, "Lynx/2.8.9rel.1 libwww-FM/2.14", false, false},
		{"unlisted", docs, "curl/8.0", false, true},
		// Opera unlisted gets a version none reaches: an Opera that says
		// MSIE is ancient, not judged as MSIE.
		{"opera unlisted", Options{Modern: []Rule{{MSIE, v("5.5")}}}, "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0; en) Opera 8.0", false, false},
		{"msie listed", Options{Modern: []Rule{{MSIE, v("5.5")}}}, "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0)", false, true},
		// The word is searched for from its offset on: MSIE early in
		// the field is not seen.
		{"msie too early", Options{Modern: []Rule{{MSIE, 0}}}, "MSIE 9.0", false, false},
		{"word at the end", Options{Modern: []Rule{{Gecko, 0}}, Unlisted: true, Ancient: []string{"rv"}}, "Mozilla/5.0 (rv:", false, false},
		{"no digits", Options{Modern: []Rule{{Gecko, 1}}}, "Mozilla/5.0 (rv:x", false, false},
		{"no digits, version 0", Options{Modern: []Rule{{Gecko, 0}}}, "Mozilla/5.0 (rv:x", false, true},
		// A partial sum past the version decides at the dot.
		{"early", Options{Modern: []Rule{{Gecko, v("1.8.9")}}}, "Mozilla/5.0 (rv:1.9.0)", false, true},
		{"equal", Options{Modern: []Rule{{Gecko, v("1.8.9")}}}, "Mozilla/5.0 (rv:1.8.9)", false, true},
		{"below", Options{Modern: []Rule{{Gecko, v("1.8.9")}}}, "Mozilla/5.0 (rv:1.8.8)", false, false},
		// The first rule of a browser written is tried first.
		{"two rules", Options{Modern: []Rule{{Gecko, v("2.0")}, {Gecko, v("1.0")}}}, "Mozilla/5.0 (rv:1.5)", false, false},
		// NGINX's http-level list: in the order written, each version
		// read from the browser's place in NGINX's order.
		{"raw gecko", Options{Modern: []Rule{{Gecko, v("1.0")}}, Raw: true}, "xx9.0", false, true},
		{"raw gecko low", Options{Modern: []Rule{{Gecko, v("1.0")}}, Raw: true}, "xx0.5", false, false},
		{"raw real", Options{Modern: []Rule{{Gecko, v("1.0")}, {MSIE, v("7.0")}}, Raw: true}, "Mozilla/5.0 (X11; rv:1.9) Gecko/2008", false, false},
		{"raw short", Options{Modern: []Rule{{Konqueror, 0}}, Raw: true, Unlisted: true, Ancient: []string{"x"}}, "xxxx", false, false},
	} {
		if got := New(c.opts).Modern(c.ua, !c.none); got != c.want {
			t.Errorf("%s: Modern(%q) = %v, want %v", c.name, c.ua, got, c.want)
		}
	}
}

func TestHandler(t *testing.T) {
	p := New(Options{Unlisted: true, Ancient: []string{"Lynx"}})
	h := p.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("modern")) }),
		http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ancient")) }))
	for ua, want := range map[string]string{"Lynx/2.8": "ancient", "Firefox": "modern"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		req.Header.Add("User-Agent", ua)
		req.Header.Add("User-Agent", "Lynx") // the first field counts
		h.ServeHTTP(rec, req)
		if rec.Body.String() != want {
			t.Errorf("%q: %q, want %q", ua, rec.Body.String(), want)
		}
	}
}

// FuzzModern classifies any User-Agent under every browser's rule, and
// checks that a version written after a browser's word always reaches the
// same version in a rule (the sum read equals the one configured, or
// passes it at a dot).
func FuzzModern(f *testing.F) {
	f.Add("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", "6.0")
	f.Add("Opera/9.80", "99999999999999999999.1")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, ua, version string) {
		for _, raw := range []bool{false, true} {
			p := New(Options{Modern: []Rule{{Opera, 1}, {MSIE, 2}, {Gecko, 3}, {Safari, 4}, {Konqueror, 5}},
				Ancient: []string{"Links"}, Netscape4: true, Unlisted: true, Raw: raw})
			p.Modern(ua, true)
		}
		v, ok := ParseVersion(version)
		if !ok || version == "" { // nothing after the word: no rule applies
			return
		}
		p := New(Options{Modern: []Rule{{Gecko, v}}})
		if ua := "Mozilla/5.0 (rv:" + version; !p.Modern(ua, true) {
			t.Errorf("%q is not modern for a rule of %q (%d)", ua, version, v)
		}
	})
}
