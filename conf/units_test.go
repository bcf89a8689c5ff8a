package conf

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"10": 10 * time.Second, "500ms": 500 * time.Millisecond, "2m": 2 * time.Minute,
		"1h30m": 90 * time.Minute, "1h 30m": 90 * time.Minute, "1d": 24 * time.Hour,
		"1w": 7 * 24 * time.Hour, "1M": 30 * 24 * time.Hour, "1y": 365 * 24 * time.Hour, "1m30": 90 * time.Second,
	} {
		if got, err := ParseTime(in); err != nil || got != want {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "s", "10x", "-1", "1.5s", "h1", "1hh"} {
		if _, err := ParseTime(bad); err == nil {
			t.Errorf("ParseTime(%q) succeeded", bad)
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "16k": 16 << 10, "8M": 8 << 20, "1g": 1 << 30} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "k", "-1", "1.5m", "1t"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}
