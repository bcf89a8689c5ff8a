package conf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSize reads "512", "16k", "8m", "1g" (case-insensitive).
func ParseSize(s string) (int64, error) {
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	mult := int64(1)
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1 << 10
	case 'm', 'M':
		mult = 1 << 20
	case 'g', 'G':
		mult = 1 << 30
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	return n * mult, nil
}

// ParseTime reads NGINX times: numbers with units ms, s, m, h, d, w,
// M (30 days), y (365 days), from the most to the least significant, each
// once, and optionally separated by spaces ("1h30m", "1h 30m"); a bare
// number means seconds. As NGINX's ngx_parse_time, "30m1h" and "1h1h" are
// errors. A time longer than a Duration holds (292 years) is that
// longest: NGINX, counting seconds, takes "expires 300y", which means as
// much as never.
func ParseTime(s string) (time.Duration, error) {
	var total time.Duration
	rank := 0 // the rank of the last unit read: each must be lower
	rest := strings.TrimSpace(s)
	if rest == "" {
		return 0, fmt.Errorf("empty time")
	}
	for rest != "" {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i > 18 {
			return 0, fmt.Errorf("invalid time %q", s)
		}
		n, _ := strconv.ParseInt(rest[:i], 10, 64)
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != ' ' {
			j++
		}
		unit, r := time.Second, 0
		switch rest[i:j] {
		case "ms":
			unit, r = time.Millisecond, 8
		case "":
			if j < len(rest) {
				// Seconds without their unit, before a space: NGINX's
				// last step, after "s", which only more seconds
				// without a unit, at the end, may follow ("1h 2 3"
				// is 1h5s; "30 1h" and "1s 2 3" are errors).
				if rank >= 7 {
					return 0, fmt.Errorf("invalid time %q", s)
				}
				r = 9
			}
		case "s":
			r = 7
		case "m":
			unit, r = time.Minute, 6
		case "h":
			unit, r = time.Hour, 5
		case "d":
			unit, r = 24*time.Hour, 4
		case "w":
			unit, r = 7*24*time.Hour, 3
		case "M":
			unit, r = 30*24*time.Hour, 2
		case "y":
			unit, r = 365*24*time.Hour, 1
		default:
			return 0, fmt.Errorf("invalid time %q", s)
		}
		if rest[i:j] == "" && j < len(rest) && rest[j] != ' ' {
			return 0, fmt.Errorf("invalid time %q", s)
		}
		if r != 0 {
			if r <= rank {
				return 0, fmt.Errorf("invalid time %q", s)
			}
			rank = r
		}
		if add := time.Duration(n) * unit; n > math.MaxInt64/int64(unit) || total > math.MaxInt64-add {
			total = math.MaxInt64
		} else {
			total += add
		}
		rest = strings.TrimLeft(rest[j:], " ")
	}
	return total, nil
}
