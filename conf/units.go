package conf

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// ParseSize reads an NGINX size as ngx_parse_size does: digits with an
// optional k or m (either case), within int64 ("512", "16k", "8M"). A
// sign, a fraction or a g is an error: sizes of buffers, rates and
// shared memory zones stop at megabytes; offsets (ParseOffset) go on.
func ParseSize(s string) (int64, error) { return parseScaled(s, "kKmM") }

// ParseOffset reads an NGINX offset as ngx_parse_offset does: a size
// that may also end in g or G ("1g"), the unit of client_max_body_size,
// the cache's max_size and the like.
func ParseOffset(s string) (int64, error) { return parseScaled(s, "kKmMgG") }

// parseScaled reads digits and one optional unit among units, failing on
// an overflow of int64 as NGINX's parsers do.
func parseScaled(s, units string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	digits, scale := s, int64(1)
	if u := s[len(s)-1]; strings.IndexByte(units, u) >= 0 {
		digits = s[:len(s)-1]
		switch u {
		case 'k', 'K':
			scale = 1 << 10
		case 'm', 'M':
			scale = 1 << 20
		case 'g', 'G':
			scale = 1 << 30
		}
	}
	n, ok := Atoi(digits)
	if !ok || n > math.MaxInt64/scale {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * scale, nil
}

// Atoi reads a non-negative decimal number as NGINX's ngx_atoi does:
// digits only (no sign), within int64; false for anything else.
func Atoi(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || n > (math.MaxInt64-int64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ParseTime reads an NGINX time in NGINX's millisecond mode, that of
// the timeouts (ngx_conf_set_msec_slot): numbers with units ms, s, m, h,
// d, w, from the most to the least significant, each once, optionally
// separated by spaces ("1h30m", "1h 30m", "500ms"); a bare number means
// seconds. Months and years are errors in this mode, as is a time of
// more milliseconds than an int64 holds; a time beyond what a Duration
// holds (292 years) is that longest.
func ParseTime(s string) (time.Duration, error) {
	ms, err := parseTime(s, false)
	if err != nil {
		return 0, err
	}
	return scaleClamped(ms, time.Millisecond), nil
}

// ParseSeconds reads an NGINX time in NGINX's seconds mode, that of
// ngx_conf_set_sec_slot and of expires, the cache's validity and the
// like: the units of ParseTime and M (30 days) and y (365 days), but
// not ms. A time of more seconds than an int64 holds is an error; a
// longer one than a Duration holds is that longest, so that "expires
// 300y", which NGINX takes, means as much as never.
func ParseSeconds(s string) (time.Duration, error) {
	sec, err := parseTime(s, true)
	if err != nil {
		return 0, err
	}
	return scaleClamped(sec, time.Second), nil
}

func scaleClamped(n int64, unit time.Duration) time.Duration {
	if n > math.MaxInt64/int64(unit) {
		return math.MaxInt64
	}
	return time.Duration(n) * unit
}

// The steps of a time, in the order they must come (ngx_parse_time).
const (
	stStart = iota
	stYear
	stMonth
	stWeek
	stDay
	stHour
	stMin
	stSec
	stMsec
	stLast // seconds without a unit, before a space
)

// parseTime follows ngx_parse_time's rules: it returns seconds when sec
// is true, else milliseconds, and fails where NGINX's does (a unit out of
// order or twice, "ms" in seconds mode, "M" and "y" in milliseconds mode,
// an overflow of int64).
func parseTime(s string, sec bool) (int64, error) {
	bad := fmt.Errorf("invalid time %q", s)
	step := stStart
	if !sec {
		step = stMonth // the years and months of seconds mode are refused
	}
	var total, value int64
	digits := false
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if c >= '0' && c <= '9' {
			if value > (math.MaxInt64-int64(c-'0'))/10 {
				return 0, bad
			}
			value = value*10 + int64(c-'0')
			digits = true
			continue
		}
		var next int
		var scale int64
		switch c {
		case 'y':
			next, scale = stYear, 365*24*3600
		case 'M':
			next, scale = stMonth, 30*24*3600
		case 'w':
			next, scale = stWeek, 7*24*3600
		case 'd':
			next, scale = stDay, 24*3600
		case 'h':
			next, scale = stHour, 3600
		case 'm':
			next, scale = stMin, 60
			if i < len(s) && s[i] == 's' {
				if sec {
					return 0, bad
				}
				i++
				next, scale = stMsec, 1
			}
		case 's':
			next, scale = stSec, 1
		case ' ':
			// A bare number before a space: seconds, after which only
			// more bare seconds may come.
			if step >= stSec {
				return 0, bad
			}
			next, scale = stLast, 1
		default:
			return 0, bad
		}
		// Years may only come first; every other unit below the last.
		if next == stYear && step > stStart || next != stYear && next != stLast && step >= next {
			return 0, bad
		}
		step = next
		if !sec && step != stMsec {
			scale *= 1000
		}
		if value > math.MaxInt64/scale || total > math.MaxInt64-value*scale {
			return 0, bad
		}
		total += value * scale
		value = 0
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	if !digits {
		return 0, bad
	}
	if !sec {
		if value > math.MaxInt64/1000 {
			return 0, bad
		}
		value *= 1000
	}
	if total > math.MaxInt64-value {
		return 0, bad
	}
	return total + value, nil
}
