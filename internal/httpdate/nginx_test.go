package httpdate

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// TestConditional: the dates NGINX's ngx_parse_http_time reads, and
// those it refuses, with the time each names.
func TestConditional(t *testing.T) {
	const want = "2020-09-13T12:26:40Z"
	for _, c := range []struct {
		in   string
		want string // "" for no date
	}{
		{"Sun, 13 Sep 2020 12:26:40 GMT", want},
		{"Sun, 13 Sep 2020 12:26:40", want},       // no zone
		{"Sun, 13 Sep 2020 12:26:40 UTC", want},   // another zone, not read
		{"Xyz, 13 Sep 2020 12:26:40 GMT", want},   // the day's name is not read
		{",13 Sep 2020 12:26:40 GMT", want},       // nor is its absence
		{"Sun,   13 Sep 2020 12:26:40 GMT", want}, // blanks after the comma
		{"Sun, 13 Sxx 2020 12:26:40 GMT", want},   // a month is its initial
		{"Sunday, 13-Sep-20 12:26:40 GMT", want},
		{"Sunday, 13-Sep-69 12:26:40 GMT", "2069-09-13T12:26:40Z"},
		{"Sunday, 13-Sep-70 12:26:40 GMT", "1970-09-13T12:26:40Z"},
		{"Sun Sep 13 12:26:40 2020", want},
		{"Sun Sep 13 12:26:40 2020 trailing", want},
		{"Sun Jun  1 12:26:40 2020", "2020-06-01T12:26:40Z"},
		{"Sun Jul 1 12:26:40 2020", "2020-07-01T12:26:40Z"},
		{"Sat, 29 Feb 2020 00:00:00 GMT", "2020-02-29T00:00:00Z"},
		{"Sun, 00 Mar 2020 00:00:00 GMT", "2020-02-29T00:00:00Z"}, // day 0: the day before the 1st
		{" Sun, 13 Sep 2020 12:26:40 GMT\t", want},
		{"sun, 13 sep 2020 12:26:40 gmt", want}, // lower case: none to NGINX, kept
		{"Sun, 13 jUN 2020 12:26:40 GMT", "2020-06-13T12:26:40Z"},
		{"Mon, 13 JAN 2020 12:26:40 GMT", "2020-01-13T12:26:40Z"}, // July to NGINX, kept
		// NGINX's error is -1: the second before 1970 is no date, the
		// one before it is.
		{"Wed, 31 Dec 1969 23:59:59 GMT", ""},
		{"Wed, 31 Dec 1969 23:59:58 GMT", "1969-12-31T23:59:58Z"},
		{"Thu, 01 Jan 1970 00:00:00 GMT", "1970-01-01T00:00:00Z"},
		{"Fri, 31 Dec 9999 23:59:59 GMT", "9999-12-31T23:59:59Z"},
		{"Sun, 13  Sep 2020 12:26:40 GMT", ""},
		{"Sun, 3 Sep 2020 12:26:40 GMT", ""},
		{"Sun, 13 Sep 2020 2:26:40 GMT", ""},
		{"Sun, 13 Sep 20 12:26:40 GMT", ""},
		{"Sun, 31 Sep 2020 12:26:40 GMT", ""},
		{"Fri, 29 Feb 2019 12:26:40 GMT", ""},
		{"Sun, 13 Sep 2020 24:26:40 GMT", ""},
		{"Sun, 13 Sep 2020 12:26:60 GMT", ""},
		{"13 Sep 2020 12:26:40 GMT", ""},
		{"yesterday", ""},
		{"", ""},
		{"Sun,13Sep2020122640GMT", ""},
	} {
		got, ok := Conditional(c.in)
		if c.want == "" {
			if ok {
				t.Errorf("%q: %v, want no date", c.in, time.Unix(got, 0).UTC())
			}
			continue
		}
		w, _ := time.Parse(time.RFC3339, c.want)
		if !ok || got != w.Unix() {
			t.Errorf("%q: %v %v, want %s", c.in, time.Unix(got, 0).UTC(), ok, c.want)
		}
	}
}

// FuzzConditional: Conditional reads any bytes without a panic; a date
// it reads is never NGINX's error (-1), and within the years 1970 to
// 9999 its IMF-fixdate reads back as the same time; where Parse reads an
// IMF-fixdate or asctime date without a leap second after the year 0,
// both read the same time.
func FuzzConditional(f *testing.F) {
	for _, s := range []string{
		"Sun, 13 Sep 2020 12:26:40 GMT", "Sunday, 13-Sep-20 12:26:40", "Sun Sep 13 12:26:40 2020",
		"Sun Jun  1 12:26:40 2020", "Sun, 00 Mar 2020 00:00:00", "Wed, 31 Dec 1969 23:59:59 GMT",
		"Sat, 01 Jan 0000 00:00:00 GMT", "Sun,   13 Sxx 2020 12:26:40 UTC", ",", " ", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Conditional(s)
		if !ok {
			if got != 0 {
				t.Fatalf("Conditional(%q) failed with a time %d", s, got)
			}
			return
		}
		if got == -1 {
			t.Fatalf("Conditional(%q) = -1, NGINX's error, as a date", s)
		}
		if 0 <= got && got < 253402300800 {
			canon := time.Unix(got, 0).UTC().Format(http.TimeFormat)
			if again, ok := Conditional(canon); !ok || again != got {
				t.Fatalf("Conditional(%q) = %d, but its IMF-fixdate %q reads %d, %v", s, got, canon, again, ok)
			}
		}
		if v := header.TrimOWS(s); len(v) > 3 && v[3] != ',' && v[3] != ' ' || strings.Contains(v, ":60") {
			return // RFC 850 (its years differ) or a leap second
		}
		// NGINX's unsigned arithmetic wraps in January and February of
		// the year 0, which Parse reads as the proleptic calendar does.
		if std, ok := Parse(s); ok && std.Year() > 0 && std.Unix() != got {
			t.Fatalf("Conditional(%q) = %d, Parse reads %d", s, got, std.Unix())
		}
	})
}
