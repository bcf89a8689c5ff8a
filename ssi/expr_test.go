package ssi

import (
	"errors"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	vars := map[string]string{"a": "A", "b_2": "B", "empty": ""}
	get := func(n string) (string, bool) { v, ok := vars[n]; return v, ok }
	cases := []struct {
		in     string
		prefix bool
		want   string
		err    bool
	}{
		{in: `plain`, want: `plain`},
		{in: `$a-${b_2}x$B_2`, want: `A-BxB`},
		{in: `x$missing.y`, want: `x.y`},
		{in: `\$a \\ \" \' \q`, want: `$a \ " ' \q`},
		{in: `page.html`, prefix: true, want: `/dir/page.html`},
		{in: `/abs`, prefix: true, want: `/abs`},
		{in: `$a.html`, prefix: true, want: `/dir/A.html`},
		{in: `$empty/x`, prefix: true, want: `/x`},
		{in: `$`, err: true},
		{in: `${a`, err: true},
		{in: `${}`, err: true},
		{in: `$-`, err: true},
	}
	for _, c := range cases {
		got, err := evaluate(c.in, c.prefix, "/dir/", get)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("%q: got %q, %v; want %q (error %v)", c.in, got, err, c.want, c.err)
		}
		if err != nil && !errors.Is(err, errSSI) {
			t.Errorf("%q: %v is not an SSI error", c.in, err)
		}
	}
}

func TestParseCondition(t *testing.T) {
	cases := []struct {
		in   string
		want condition
		err  bool
	}{
		{in: `$A`, want: condition{left: `$a`}},
		{in: `$a = text`, want: condition{left: `$a`, op: "=", right: "text"}},
		{in: `$a!=x`, want: condition{left: `$a`, op: "!=", right: "x"}},
		{in: `$a = /^(b)/`, want: condition{left: `$a`, op: "=", right: "^(b)", regex: true}},
		{in: `$a = \/x`, want: condition{left: `$a`, op: "=", right: "/x"}},
		{in: `$a = /x`, err: true},
		{in: `$a < b`, err: true},
		{in: `"$a" = "b"`, want: condition{left: `"$a"`, op: "=", right: `"b"`}},
	}
	for _, c := range cases {
		got, err := parseCondition(c.in)
		if (err != nil) != c.err || (err == nil && got != c.want) {
			t.Errorf("%q: got %+v, %v; want %+v (error %v)", c.in, got, err, c.want, c.err)
		}
	}
}

func TestEncodings(t *testing.T) {
	if got := escapeURL("a b<&>\"#%'\\^`{|}~é"); got != "a%20b%3C&%3E%22%23%25%27%5C%5E%60%7B%7C%7D~%C3%A9" {
		t.Errorf("url: %q", got)
	}
	if got := entities.Replace(`<a href="x">&'`); got != `&lt;a href=&quot;x&quot;&gt;&amp;'` {
		t.Errorf("entity: %q", got)
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2026, 3, 7, 15, 4, 5, 0, time.FixedZone("GMT", 0))
	cases := map[string]string{
		DefaultTimeFormat:     "Saturday, 07-Mar-2026 15:04:05 GMT",
		"%a %b %e %I%p %j %%": "Sat Mar  7 03PM 066 %",
		"%Y-%m-%dT%H:%M:%S%z": "2026-03-07T15:04:05+0000",
		"%s":                  "1772895845",
		"%D %R %y %u %w %Q":   "03/07/26 15:04 26 6 6 %Q",
		// glibc's answers (Debian 12), which NGINX's are.
		"%-d|%_m|%k|%l|%P|%G|%g|%V|%U|%W|%x|%X|%C":                   "7| 3|15| 3|pm|2026|26|10|09|09|03/07/26|15:04:05|20",
		"%Ey|%Od|%5Y|%^a|%#b|%#p|%^#p|%10A|%010A|%-j|%03e|%-5d|%_3u": "26|07|02026|SAT|MAR|pm|pm|  Saturday|00Saturday|66|007|    7|  6",
		"%Ea|%OY|%Oz|%5Q|%-Q|%Q|%5|%-|%E|%^P|%#Z|%^r|%3%":            "%Ea|%OY|+0000|  %5Q|%-Q|%Q|  %5|%-|%E|pm|gmt|03:04:05 PM|  %",
		"%9999Y": "",
	}
	for f, want := range cases {
		if got := strftime(f, tm); got != want {
			t.Errorf("%q: got %q, want %q", f, got, want)
		}
	}
}

// TestStrftimeNarrowWidth: glibc pads a number to its own digits when the
// width asked is smaller ("%1d" is "07"); only "-" leaves it unpadded.
func TestStrftimeNarrowWidth(t *testing.T) {
	tm := time.Date(2026, 3, 7, 15, 4, 5, 0, time.FixedZone("GMT", 0))
	// glibc's answers (Debian 12).
	const f, want = "%1d|%1e|%_1m|%01l|%2j|%-1d|%-2j|%1Y", "07| 7| 3|03|066|7|66|2026"
	if got := strftime(f, tm); got != want {
		t.Errorf("%q: got %q, want %q", f, got, want)
	}
}

// TestStrftimeUnknownSpecCase: glibc copies a spec it does not format in
// the case its flags ask for: "^" upper-cases it, and so does "#" for
// %b and %h, which it reads before it refuses their E modifier.
func TestStrftimeUnknownSpecCase(t *testing.T) {
	tm := time.Date(2026, 3, 7, 15, 4, 5, 0, time.FixedZone("GMT", 0))
	// glibc's answers (Debian 12).
	const f, want = "%^f|%^Ea|%#Eb|%^6q|%#Ea|%^-", "%^F|%^EA|%#EB|  %^6Q|%#Ea|%^-"
	if got := strftime(f, tm); got != want {
		t.Errorf("%q: got %q, want %q", f, got, want)
	}
}

// TestStrftimeZoneOffsetPadded: glibc writes %z as a sign, padded as text,
// then the offset as a number of four digits, padded as numbers are, both
// to the width: "%_z" is "+   0", "%3z" is "  +0000".
func TestStrftimeZoneOffsetPadded(t *testing.T) {
	const f = "%z|%3z|%_z|%-z|%010z|%-3z|%_6z"
	// glibc's answers (Debian 12), in GMT and in TZ=XST+3:30.
	for _, c := range []struct {
		zone *time.Location
		want string
	}{
		{time.FixedZone("GMT", 0), "+0000|  +0000|+   0|+0|000000000+0000000000|  +  0|     +     0"},
		{time.FixedZone("XST", -(3*3600 + 30*60)), "-0330|  -0330|- 330|-330|000000000-0000000330|  -330|     -   330"},
	} {
		tm := time.Date(2026, 3, 7, 15, 4, 5, 0, c.zone)
		if got := strftime(f, tm); got != c.want {
			t.Errorf("%s: %q: got %q, want %q", c.zone, f, got, c.want)
		}
	}
}

// FuzzExpressions feeds page text to the expression and string readers:
// they must not panic, and a prefixed result is absolute.
func FuzzExpressions(f *testing.F) {
	for _, s := range []string{`$a = /^(x)$/`, `${a}b\$c`, `\/x != $`, `"$A" = 'b'`} {
		f.Add(s)
	}
	get := func(n string) (string, bool) { return n, n != "none" }
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseCondition(s)
		if v, err := evaluate(s, true, "/d/", get); err == nil && v != "" && v[0] != '/' {
			t.Fatalf("%q: relative %q", s, v)
		}
	})
}
