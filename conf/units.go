package conf

import (
	"fmt"
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
// M (30 days), y (365 days), from the most to the least significant and
// optionally separated by spaces ("1h30m", "1h 30m"); a bare number means
// seconds.
func ParseTime(s string) (time.Duration, error) {
	var total time.Duration
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
		var unit time.Duration
		switch rest[i:j] {
		case "ms":
			unit = time.Millisecond
		case "", "s":
			unit = time.Second
		case "m":
			unit = time.Minute
		case "h":
			unit = time.Hour
		case "d":
			unit = 24 * time.Hour
		case "w":
			unit = 7 * 24 * time.Hour
		case "M":
			unit = 30 * 24 * time.Hour
		case "y":
			unit = 365 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("invalid time %q", s)
		}
		if rest[i:j] == "" && j < len(rest) && rest[j] != ' ' {
			return 0, fmt.Errorf("invalid time %q", s)
		}
		total += time.Duration(n) * unit
		rest = strings.TrimLeft(rest[j:], " ")
	}
	return total, nil
}
