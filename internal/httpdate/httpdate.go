// Package httpdate reads HTTP-dates strictly, as RFC 9110 section 5.6.7
// defines them: the preferred IMF-fixdate and the two obsolete forms that
// recipients must still accept (RFC 850 and asctime). Anything else is
// invalid, which matters to a cache: an invalid Expires means "already
// expired" (RFC 9111 section 5.3), while net/http's ParseTime, built on
// time.Parse, also accepts doubled spaces and one-digit hours and so
// reads such a value as a date far in the future.
//
// Day and month names and "GMT" are matched without regard to case, the
// relaxation RFC 9111 section 4.2 asks of caches, applied to every reader
// so that a date means the same to the cache and to the conditionals.
//
// A request's conditional dates are read by Conditional instead, as NGINX
// reads them, which is looser (no "GMT" needed, the day's name unread).
package httpdate

import (
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Parse returns the time an HTTP-date names (in UTC) and whether the
// value is one. Spaces and tabs around the value are ignored, as they are
// not part of a field value.
func Parse(s string) (time.Time, bool) {
	return parse(header.TrimOWS(s), time.Now())
}

// parse reads s with now as the reference for RFC 850's two-digit years.
func parse(s string, now time.Time) (time.Time, bool) {
	switch {
	case len(s) == len("Sun, 06 Nov 1994 08:49:37 GMT") && s[3] == ',':
		return imfFixdate(s)
	case len(s) == len("Sun Nov  6 08:49:37 1994"):
		return asctime(s)
	}
	return rfc850(s, now)
}

// imfFixdate reads "Sun, 06 Nov 1994 08:49:37 GMT".
func imfFixdate(s string) (time.Time, bool) {
	if dayName(s[:3]) < 0 || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' || s[25] != ' ' ||
		!isGMT(s[26:]) {
		return time.Time{}, false
	}
	day, ok1 := digits(s[5:7])
	month := monthName(s[8:11])
	year, ok2 := digits(s[12:16])
	if !ok1 || !ok2 || month < 0 {
		return time.Time{}, false
	}
	return date(year, month, day, s[17:25])
}

// asctime reads "Sun Nov  6 08:49:37 1994" (a one-digit day is padded
// with a space, never a zero).
func asctime(s string) (time.Time, bool) {
	if dayName(s[:3]) < 0 || s[3] != ' ' || s[7] != ' ' || s[10] != ' ' || s[19] != ' ' {
		return time.Time{}, false
	}
	month := monthName(s[4:7])
	var day int
	var ok bool
	if s[8] == ' ' {
		day, ok = digits(s[9:10])
	} else {
		day, ok = digits(s[8:10])
	}
	year, ok2 := digits(s[20:24])
	if !ok || !ok2 || month < 0 {
		return time.Time{}, false
	}
	return date(year, month, day, s[11:19])
}

// rfc850 reads "Sunday, 06-Nov-94 08:49:37 GMT". A two-digit year more
// than 50 years ahead of now is the most recent past year with those
// digits (RFC 9110 section 5.6.7).
func rfc850(s string, now time.Time) (time.Time, bool) {
	comma := -1
	for i := 0; i < len(s) && i < len("Wednesday"); i++ {
		if s[i] == ',' {
			comma = i
			break
		}
	}
	if comma < 0 || longDayName(s[:comma]) < 0 {
		return time.Time{}, false
	}
	s = s[comma:]
	if len(s) != len(", 06-Nov-94 08:49:37 GMT") || s[1] != ' ' || s[4] != '-' || s[8] != '-' || s[11] != ' ' ||
		s[20] != ' ' || !isGMT(s[21:]) {
		return time.Time{}, false
	}
	day, ok1 := digits(s[2:4])
	month := monthName(s[5:8])
	yy, ok2 := digits(s[9:11])
	if !ok1 || !ok2 || month < 0 {
		return time.Time{}, false
	}
	nowYear := now.UTC().Year()
	year := nowYear - nowYear%100 + yy
	if year > nowYear+50 {
		year -= 100
	}
	return date(year, month, day, s[12:20])
}

// date checks the fields and builds the time; clock is "08:49:37", whose
// second may be 60 (a leap second, which time.Date carries over).
func date(year int, month time.Month, day int, clock string) (time.Time, bool) {
	if clock[2] != ':' || clock[5] != ':' {
		return time.Time{}, false
	}
	hour, ok1 := digits(clock[0:2])
	minute, ok2 := digits(clock[3:5])
	sec, ok3 := digits(clock[6:8])
	if !ok1 || !ok2 || !ok3 || hour > 23 || minute > 59 || sec > 60 ||
		day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	return time.Date(year, month, day, hour, minute, sec, 0, time.UTC), true
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// digits reads a run of ASCII digits, all of s.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

var (
	dayNames     = [...]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}
	longDayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
	monthNames   = [...]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
)

func dayName(s string) int { return index(dayNames[:], s) }

func longDayName(s string) int { return index(longDayNames[:], s) }

func monthName(s string) time.Month {
	i := index(monthNames[:], s)
	if i < 0 {
		return -1
	}
	return time.Month(i + 1)
}

func isGMT(s string) bool { return header.EqualFoldASCII(s, "gmt") }

// index finds s, in any case, among the lower-case names.
func index(names []string, s string) int {
	for i, n := range names {
		if header.EqualFoldASCII(s, n) {
			return i
		}
	}
	return -1
}
