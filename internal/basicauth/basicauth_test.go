package basicauth

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestCredentials: the cases NGINX's ngx_http_auth_basic_user accepts
// and refuses.
func TestCredentials(t *testing.T) {
	enc := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for _, c := range []struct {
		header, user, pass string
		ok                 bool
	}{
		{"Basic " + enc("u:p"), "u", "p", true},
		{"bAsIc    " + enc("u:p:q"), "u", "p:q", true},
		{"Basic " + strings.TrimRight(enc("user:pw"), "="), "user", "pw", true},
		{"Basic " + enc("u:"), "u", "", true},
		{"Basic " + enc(":p"), "", "", false},
		{"Basic " + enc("nocolon"), "", "", false},
		{"Basic ", "", "", false},
		{"Basic\t" + enc("u:p"), "", "", false},
		{"Bearer " + enc("u:p"), "", "", false},
		{"Basic !!!!", "", "", false},
		{"", "", "", false},
	} {
		u, p, ok := Credentials(c.header)
		if u != c.user || p != c.pass || ok != c.ok {
			t.Errorf("Credentials(%q) = %q %q %v", c.header, u, p, ok)
		}
	}
}

func FuzzCredentials(f *testing.F) {
	f.Add("Basic dTpw")
	f.Add("basic   dTpwOg==")
	f.Fuzz(func(t *testing.T, header string) {
		u, p, ok := Credentials(header)
		if !ok {
			return
		}
		if u == "" || strings.Contains(u, ":") {
			t.Fatalf("user %q", u)
		}
		// What came in encodes back to an equivalent header.
		u2, p2, ok2 := Credentials("Basic " + base64.StdEncoding.EncodeToString([]byte(u+":"+p)))
		if !ok2 || u2 != u || p2 != p {
			t.Fatalf("round trip of %q:%q", u, p)
		}
	})
}
