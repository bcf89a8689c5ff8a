package geoipmod

import "testing"

// degrees rounds as NGINX's ngx_sprintf("%.4f"): half up on the
// magnitude, the sign written first, so a small negative value keeps it.
func TestDegrees(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want string
	}{
		{37.7697, "37.7697"},
		{-122.3933, "-122.3933"},
		{0, "0.0000"},
		{-0.00001, "-0.0000"},
		{179.99995, "180.0000"},
		{-180, "-180.0000"},
	} {
		if got := degrees(c.in); got != c.want {
			t.Errorf("%v: %q, want %q", c.in, got, c.want)
		}
	}
}
