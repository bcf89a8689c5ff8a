package httpdate

import (
	"net/http"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

func TestParse(t *testing.T) {
	want := time.Date(1994, time.November, 6, 8, 49, 37, 0, time.UTC)
	// 2026 is the reference year for the two-digit years of RFC 850.
	now := time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time // zero: invalid
	}{
		// The three forms of RFC 9110 section 5.6.7.
		{"Sun, 06 Nov 1994 08:49:37 GMT", want},
		{"Sunday, 06-Nov-94 08:49:37 GMT", want},
		{"Sun Nov  6 08:49:37 1994", want},
		{"Sun Nov 16 08:49:37 1994", want.AddDate(0, 0, 10)},
		// Case is not significant (RFC 9111 section 4.2).
		{"SUN, 06 NOV 1994 08:49:37 gmt", want},
		{"Thu, 18 Aug 2050 02:01:18 gMT", time.Date(2050, 8, 18, 2, 1, 18, 0, time.UTC)},
		{"sunday, 06-nov-94 08:49:37 Gmt", want},
		{"sun nov  6 08:49:37 1994", want},
		// Surrounding whitespace is not part of the value.
		{" \tSun, 06 Nov 1994 08:49:37 GMT ", want},
		// RFC 850 years: more than 50 years ahead means the past century.
		{"Thursday, 18-Aug-50 02:01:18 GMT", time.Date(2050, 8, 18, 2, 1, 18, 0, time.UTC)},
		{"Monday, 01-Jan-77 00:00:00 GMT", time.Date(2077, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(-100, 0, 0)},
		{"Saturday, 01-Jan-00 00:00:00 GMT", time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)},
		// A leap second, and a weekday that does not match (not checked).
		{"Sat, 31 Dec 2016 23:59:60 GMT", time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Mon, 06 Nov 1994 08:49:37 GMT", want},
		{"Thu, 29 Feb 2024 00:00:00 GMT", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},

		// Invalid: what net/http's ParseTime accepts or mistakes.
		{"Thu, 18  Aug  2050 02:01:18 GMT", time.Time{}}, // doubled spaces
		{"Thu, 18 Aug 2050 2:01:18 GMT", time.Time{}},    // one-digit hour
		{"Thu, 18 Aug 2050 02:1:18 GMT", time.Time{}},
		{"Thu, 8 Aug 2050 02:01:18 GMT", time.Time{}},
		{"Thu, 18 Aug 2050 02:01:18 UTC", time.Time{}},
		{"Thu, 18 Aug 50 02:01:18 GMT", time.Time{}},   // two-digit year
		{"Thu 18 Aug 2050 02:01:18 GMT", time.Time{}},  // no comma
		{"Thu, 18-Aug-2050 02:01:18 GMT", time.Time{}}, // dashes
		{"Thu, 18 Aug 2050 02.01.18 GMT", time.Time{}}, // periods
		{"Thu, 18 Aug 2050 02:01:18 +0000", time.Time{}},
		{"Thu, 18 Aug 2050 02:01:18", time.Time{}},
		{"Thu, 18 Aug 2050 24:00:00 GMT", time.Time{}},
		{"Thu, 18 Aug 2050 23:60:00 GMT", time.Time{}},
		{"Thu, 18 Aug 2050 23:59:61 GMT", time.Time{}},
		{"Thu, 30 Feb 2050 00:00:00 GMT", time.Time{}},
		{"Thu, 00 Aug 2050 00:00:00 GMT", time.Time{}},
		{"Xyz, 18 Aug 2050 02:01:18 GMT", time.Time{}},
		{"Thu, 18 Agu 2050 02:01:18 GMT", time.Time{}},
		{"Thu, +8 Aug 2050 02:01:18 GMT", time.Time{}},
		{"Thursday, 18-Aug-2050 02:01:18 GMT", time.Time{}},
		{"Thursday, 18-Aug-50 2:01:18 GMT", time.Time{}},
		{"Thu, 18-Aug-50 02:01:18 GMT", time.Time{}}, // short day name in RFC 850
		{"Thursday, 18 Aug 50 02:01:18 GMT", time.Time{}},
		{"Sun Nov 6 08:49:37 1994", time.Time{}}, // asctime pads with a space
		{"Sun Nov 06 08:49:37 1994", want},       // or two digits
		{"Sun Nov  6 08:49:37 94", time.Time{}},
		{"Sun Nov  6 08:49:37 1994 GMT", time.Time{}},
		{"Sun,Nov  6 08:49:37 1994", time.Time{}},
		{"0", time.Time{}},
		{"", time.Time{}},
		{"-1", time.Time{}},
	} {
		got, ok := parse(header.TrimOWS(c.in), now)
		if ok != !c.want.IsZero() || !got.Equal(c.want) {
			t.Errorf("parse(%q) = %v, %v; want %v", c.in, got, ok, c.want)
		}
	}
}

// FuzzParse: a value Parse accepts names a time that formats back to an
// IMF-fixdate Parse reads as the same time, and where the lenient
// time.Parse reads an IMF-fixdate too, both read the same time.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
		"Thu, 18  Aug  2050 02:01:18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT", "Sat, 31 Dec 2016 23:59:60 GMT",
		"thu, 18 aug 2050 02:01:18 gmt", "0", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Parse(s)
		if !ok {
			if !got.IsZero() {
				t.Fatalf("Parse(%q) failed with a time %v", s, got)
			}
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() != 0 {
			t.Fatalf("Parse(%q) = %v, not whole seconds in UTC", s, got)
		}
		canon := got.Format(http.TimeFormat)
		again, ok := Parse(canon)
		if !ok || !again.Equal(got) {
			t.Fatalf("Parse(%q) = %v, but its IMF-fixdate %q reads %v, %v", s, got, canon, again, ok)
		}
		if v := header.TrimOWS(s); len(v) == len(http.TimeFormat) && v[3] == ',' {
			// Where net/http reads an IMF-fixdate too, it reads the same time.
			if std, err := time.Parse(http.TimeFormat, v); err == nil && !std.Equal(got) {
				t.Fatalf("Parse(%q) = %v, net/http reads %v", s, got, std)
			}
		}
	})
}
