package esi

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSubstituteAttrLinear: an include's src of many references after
// "//" (up to the 16 KiB of a tag, from the page, each value from the
// client) costs about what the same references cost in a path: telling
// whether a value lands in the authority looks at each byte once, not at
// the whole URL built so far for each reference.
func TestSubstituteAttrLinear(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Cookie", strings.Repeat("a", 1<<10))
	v := variables{r: r}
	refs := strings.Repeat("$(HTTP_COOKIE)", maxTag/len("$(HTTP_COOKIE)")-1)
	cost := func(s string) time.Duration {
		best := time.Duration(math.MaxInt64)
		for range 3 {
			start := time.Now()
			v.substituteAttr(s)
			best = min(best, time.Since(start))
		}
		return best
	}
	if a, p := cost("//"+refs), cost("x"+refs); a > 10*p {
		t.Errorf("references in the authority took %v, in a path %v", a, p)
	}
}

// TestSubstituteAttrBounded: an include's src made of references to a
// value from the client is no URL once it passes maxIncludeURL: it comes
// back empty (the include fails), not as megabytes held by each include.
func TestSubstituteAttrBounded(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Cookie", strings.Repeat("a", 4<<10))
	v := variables{r: r}
	for _, src := range []string{"/f?c=" + strings.Repeat("$(HTTP_COOKIE)", 3), "//" + strings.Repeat("$(HTTP_COOKIE)", 1000)} {
		if out, _, long := v.substituteAttr(src); out != "" || !long {
			t.Errorf("%.20s...: %d bytes, long %v; want none", src, len(out), long)
		}
	}
	if out, _, long := v.substituteAttr("/f?c=$(HTTP_COOKIE)"); long || len(out) != len("/f?c=")+4<<10 {
		t.Errorf("one reference: %d bytes, long %v", len(out), long)
	}
}
