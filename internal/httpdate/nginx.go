package httpdate

import "github.com/mosaic-edge/mosaic/internal/header"

// Conditional returns the time, in Unix seconds, that a request's
// If-Modified-Since, If-Unmodified-Since or If-Range date names as NGINX
// reads those fields (ngx_parse_http_time), and whether it names one.
// The conditionals of the servers that stand for NGINX compare with it,
// so that a client gets the same 200, 206, 304, 412 or 416 from mosaic
// as from NGINX. It is looser than Parse in some ways and stricter in
// others:
//
//   - whatever precedes the first comma (or the first space, which
//     selects the asctime form) is the day's name and is not read;
//   - blanks may follow that comma;
//   - a month is known by its initial and at most two more letters
//     ("Sxx" is September);
//   - whatever follows the seconds (IMF-fixdate, RFC 850) or the year
//     (asctime) is not read: "GMT", "UTC" or nothing;
//   - an RFC 850 year below 70 is in the 2000s, others in the 1900s;
//   - a day 0 is the last day of the month before; 60 seconds is no time;
//   - "Wed, 31 Dec 1969 23:59:59 GMT", Unix time -1, is NGINX's error
//     and so no date; earlier ones are negative times.
//
// One difference is kept: NGINX knows a month only by a capital initial
// and tells months apart by lower-case second and third letters, so that
// "sep" names none and "JAN" or "JUN" is July, "MAR" May and "APR"
// August; here, as in Parse, the case of names does not matter (RFC 9111
// section 4.2), so that a month's name in any case means that month.
//
// Parse stays the reader of the dates a cache computes freshness from
// (Date, Expires, and Last-Modified for the heuristic), which RFC 9111
// has it read strictly; an origin's Last-Modified is read with
// Conditional wherever NGINX uses the last_modified_time its upstream
// module read (conditionals, revalidation, expires modified,
// proxy_store).
func Conditional(s string) (int64, bool) {
	s = header.TrimOWS(s)
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	digit := func(i int) (uint64, bool) {
		c := at(i)
		return uint64(c - '0'), '0' <= c && c <= '9'
	}
	twoDigits := func(i int) (uint64, bool) {
		a, ok1 := digit(i)
		b, ok2 := digit(i + 1)
		return a*10 + b, ok1 && ok2
	}
	const (
		imf = iota + 1 // "Sun, 06 Nov 1994 08:49:37 GMT"
		rfc850
		asctime // "Sun Nov  6 08:49:37 1994"
	)
	form, p := 0, 0
	for ; p < len(s); p++ {
		if s[p] == ',' {
			break
		}
		if s[p] == ' ' {
			form = asctime
			break
		}
	}
	if p == len(s) {
		return 0, false
	}
	for p++; at(p) == ' '; p++ {
	}
	if len(s)-p < 18 {
		return 0, false
	}
	var day, year uint64
	if form != asctime {
		d, ok := twoDigits(p)
		if !ok {
			return 0, false
		}
		day = d
		p += 2
		switch at(p) {
		case ' ':
			if len(s)-p < 18 {
				return 0, false
			}
			form = imf
		case '-':
			form = rfc850
		default:
			return 0, false
		}
		p++
	}
	// Letters compared in either case: c|0x20 is the lower-case letter
	// of c, and no other byte becomes one.
	lower := func(i int) byte { return at(i) | 0x20 }
	var month int64 // 0 for January
	switch lower(p) {
	case 'j':
		switch {
		case lower(p+1) == 'a':
			month = 0
		case lower(p+2) == 'n':
			month = 5
		default:
			month = 6
		}
	case 'f':
		month = 1
	case 'm':
		month = 4
		if lower(p+2) == 'r' {
			month = 2
		}
	case 'a':
		month = 7
		if lower(p+1) == 'p' {
			month = 3
		}
	case 's':
		month = 8
	case 'o':
		month = 9
	case 'n':
		month = 10
	case 'd':
		month = 11
	default:
		return 0, false
	}
	p += 3
	if (form == imf && at(p) != ' ') || (form == rfc850 && at(p) != '-') {
		return 0, false
	}
	p++
	switch form {
	case imf:
		hi, ok1 := twoDigits(p)
		lo, ok2 := twoDigits(p + 2)
		if !ok1 || !ok2 {
			return 0, false
		}
		year = hi*100 + lo
		p += 4
	case rfc850:
		y, ok := twoDigits(p)
		if !ok {
			return 0, false
		}
		year = 1900 + y
		if y < 70 {
			year = 2000 + y
		}
		p += 2
	case asctime:
		if at(p) == ' ' {
			p++
		}
		d, ok := digit(p)
		if !ok {
			return 0, false
		}
		day = d
		p++
		if at(p) != ' ' {
			d, ok := digit(p)
			if !ok {
				return 0, false
			}
			day = day*10 + d
			p++
		}
		if len(s)-p < 14 {
			return 0, false
		}
	}
	if at(p) != ' ' {
		return 0, false
	}
	hour, ok1 := twoDigits(p + 1)
	minute, ok2 := twoDigits(p + 4)
	sec, ok3 := twoDigits(p + 7)
	if !ok1 || !ok2 || !ok3 || at(p+3) != ':' || at(p+6) != ':' {
		return 0, false
	}
	p += 9
	if form == asctime {
		hi, ok1 := twoDigits(p + 1)
		lo, ok2 := twoDigits(p + 3)
		if at(p) != ' ' || !ok1 || !ok2 {
			return 0, false
		}
		year = hi*100 + lo
	}
	if hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	if day == 29 && month == 1 {
		if year%4 != 0 || (year%100 == 0 && year%400 != 0) {
			return 0, false
		}
	} else if day > monthDays[month] {
		return 0, false
	}
	// Days since 1 March of 1 BC by Gauss's formula, the year starting
	// in March so that February's length comes last; unsigned, as
	// NGINX computes it, so that the year 0 wraps as it does there.
	month--
	if month <= 0 {
		month += 12
		year--
	}
	days := 365*year + year/4 - year/100 + year/400 + uint64(367*month/12) - 30 + day - 1 - 719527 + 31 + 28
	t := int64(days*86400 + hour*3600 + minute*60 + sec)
	// NGINX's error is the time -1, so the second before 1970 (and a
	// year 0 that wraps onto it) is no date there: an origin's
	// Last-Modified of that second is none, as if absent.
	if t == -1 {
		return 0, false
	}
	return t, true
}

// monthDays are the days of each month, February's in a common year.
var monthDays = [12]uint64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
