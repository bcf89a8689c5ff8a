package esi

import "testing"

func TestAsksForESI(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   bool
	}{
		{[]string{`content="ESI/1.0"`}, true},
		{[]string{`max-age=60, content="ESI/1.0 ESI-Inline/1.0"`}, true},
		{[]string{`max-age=60`, `Content="esi/1.0";mosaic`}, true},
		{[]string{`content=ESI/1.0;other`}, true},
		{[]string{`no-store, content="ESI-Inline/1.0"`}, false},
		{[]string{`max-age="a, content=ESI/1.0"`}, false},
		{[]string{`contents="ESI/1.0"`}, false},
		{nil, false},
	} {
		if got := asksForESI(tc.values); got != tc.want {
			t.Errorf("%q: got %v", tc.values, got)
		}
	}
}
