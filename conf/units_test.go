package conf

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "10": 10 * time.Second, "500ms": 500 * time.Millisecond, "2m": 2 * time.Minute,
		"1h30m": 90 * time.Minute, "1h 30m": 90 * time.Minute, "1d": 24 * time.Hour,
		"1w": 7 * 24 * time.Hour, "1m30": 90 * time.Second, "1500ms": 1500 * time.Millisecond,
		"1w2d3h4m5s6ms": 9*24*time.Hour + 3*time.Hour + 4*time.Minute + 5*time.Second + 6*time.Millisecond,
		// Seconds without a unit, then more at the end, as in NGINX.
		"1h 30": time.Hour + 30*time.Second, "1h 2 3": time.Hour + 5*time.Second, "1ms 2": 2*time.Second + time.Millisecond,
		// Milliseconds that an int64 holds, beyond a Duration: the longest.
		"9223372036854775807ms": math.MaxInt64, "9223372036854775": math.MaxInt64,
		// A unit without a number counts nothing, as in NGINX.
		"h1": time.Second,
	} {
		if got, err := ParseTime(in); err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "s", "10x", "-1", "+1", "1.5s", "1hh",
		// NGINX: each unit once, from the most significant down.
		"1h1h", "30m1h", "1s1m", "5ms1s",
		// Seconds without a unit are the last step: "30 1h" is no
		// 1h30s, and "1s 2 3" has seconds twice before the end.
		"30 1h", "1s 2 3", "2 3 4",
		// Months and years belong to the seconds mode.
		"1M", "1y", "1y2M3w",
		// More milliseconds than an int64 holds.
		"9223372036854776", "9223372036854775808ms", "10000000000000000000"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) succeeded", bad)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "10": 10 * time.Second, "1M": 30 * 24 * time.Hour, "1y": 365 * 24 * time.Hour,
		"1y2M3w4d5h6m7s": (365+60+21+4)*24*time.Hour + 5*time.Hour + 6*time.Minute + 7*time.Second,
		// Longer than a Duration: the longest, not a wrapped (negative)
		// time that would make "expires 300y" expire at once.
		"300y": math.MaxInt64, "292y 60w": math.MaxInt64, "9223372036854775807": math.MaxInt64,
	} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1ms", "1500ms", "1s 5ms", "1M1y", "9223372036854775808", "10000000000000000000",
		"292471208678y"} {
		if _, err := ParseSeconds(bad); err == nil {
			t.Errorf("ParseSeconds(%q) succeeded", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "16k": 16 << 10, "16K": 16 << 10, "8M": 8 << 20,
		"9223372036854775807": math.MaxInt64, "9007199254740991k": 9007199254740991 << 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	// As ngx_parse_size: no sign, no fraction, no g, nothing past int64.
	for _, bad := range []string{"", "k", "-1", "+1", "1.5m", "1t", "1g", "1G", "1kk",
		"9223372036854775808", "9007199254740992k", "10000000000000000000"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

func TestParseOffset(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "1g": 1 << 30, "2G": 2 << 30, "16k": 16 << 10, "8589934591g": 8589934591 << 30} {
		if got, err := ParseOffset(in); err != nil || got != want {
			t.Errorf("ParseOffset(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "g", "+1g", "-1", "1t", "8589934592g"} {
		if _, err := ParseOffset(bad); err == nil {
			t.Errorf("ParseOffset(%q) accepted", bad)
		}
	}
}

// FuzzUnits checks the parsers of sizes and times against each other:
// none panics or returns a negative value, an offset reads every size
// the same, a plain number is its decimal value, and a time without ms,
// M or y means the same in both modes wherever the milliseconds mode
// reads it ("set $limit_rate" hands ParseSize values from requests).
func FuzzUnits(f *testing.F) {
	for _, s := range []string{"0", "1k", "1g", "9223372036854775807", "1h 30m", "1ms 2", "1y2M", "h1", "+1", "1 1", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		size, errSize := ParseSize(s)
		off, errOff := ParseOffset(s)
		if errSize == nil && (size < 0 || errOff != nil || off != size) {
			t.Errorf("%q: size %d, offset %d, %v", s, size, off, errOff)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && s[0] != '+' && s[0] != '-' && (errSize != nil || size != n) {
			t.Errorf("%q: size %d, %v; want %d", s, size, errSize, n)
		}
		ms, errMs := ParseTime(s)
		sec, errSec := ParseSeconds(s)
		if errMs == nil && ms < 0 || errSec == nil && sec < 0 {
			t.Errorf("%q: negative time %v or %v", s, ms, sec)
		}
		if errMs == nil && !strings.ContainsAny(s, "My") && !strings.Contains(s, "ms") && (errSec != nil || sec != ms) {
			t.Errorf("%q: %v in milliseconds mode, %v (%v) in seconds mode", s, ms, sec, errSec)
		}
	})
}
