package compress

import (
	"strconv"
	"strings"
	"testing"
)

// TestParseLength holds the digit loop to what TrimSpace and ParseInt
// answer, which every value the loop does not take still goes through.
func TestParseLength(t *testing.T) {
	ref := func(s string) int64 {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 0 {
			return -1
		}
		return n
	}
	values := []string{
		"", "0", "7", "2032", "00012", " 12", "12 ", "\t12", "+12", "-12", "1 2", "12a", "a12", "0x10",
		"999999999999999999", "1000000000000000000", "9223372036854775807", "9223372036854775808",
		"99999999999999999999", "１２", "12\x00",
	}
	for n := int64(1); n > 0 && n < 1<<62; n = n*7 + 3 {
		values = append(values, strconv.FormatInt(n, 10))
	}
	for _, s := range values {
		if got, want := parseLength(s), ref(s); got != want {
			t.Errorf("parseLength(%q) = %d, want %d", s, got, want)
		}
	}
}
