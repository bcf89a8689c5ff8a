package header

import (
	"net/http"
	"testing"
)

func TestJoin(t *testing.T) {
	h := http.Header{"A": {"1"}, "B": {"1", "2"}}
	if Join(h, "A") != "1" || Join(h, "B") != "1, 2" || Join(h, "C") != "" {
		t.Fatal(Join(h, "A"), Join(h, "B"))
	}
}

func TestHasToken(t *testing.T) {
	for _, c := range []struct {
		values []string
		token  string
		want   bool
	}{
		{[]string{"keep-alive, Upgrade"}, "upgrade", true},
		{[]string{"a", " b ,c"}, "b", true},
		{[]string{`private="set-cookie", max-age=5`}, "private", true},
		{[]string{"max-age=5"}, "max-age", true},
		{[]string{"no-cachex"}, "no-cache", false},
		{nil, "x", false},
		{[]string{"Accept-Encoding"}, "accept-encoding", true},
	} {
		if got := HasToken(c.values, c.token); got != c.want {
			t.Errorf("%q %q = %v", c.values, c.token, got)
		}
	}
}
