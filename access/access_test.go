package access

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/inet"
)

func TestCheck(t *testing.T) {
	var l List
	for _, r := range []struct {
		deny bool
		arg  string
	}{
		{true, "192.168.1.1"},
		{false, "192.168.1.0/24"},
		{false, "10.1.2.3/8"},
		{false, "2001:db8::/32"},
		{false, "unix:"},
		{true, "all"},
	} {
		w, err := l.Add(r.deny, r.arg)
		if err != nil {
			t.Fatal(err)
		}
		if (w != "") != (r.arg == "10.1.2.3/8") {
			t.Errorf("Add(%q) warning %q", r.arg, w)
		}
	}
	for addr, want := range map[string]Result{
		"192.168.1.1:5000":       Deny, // the first rule that matches decides
		"192.168.1.2:5000":       Allow,
		"10.200.0.1:1":           Allow,
		"172.16.0.1:1":           Deny,
		"[2001:db8::5]:80":       Allow,
		"[2001:db9::5]:80":       Deny,
		"[::ffff:192.168.1.2]:1": Allow, // checked as IPv4
		"[::ffff:192.168.1.1]:1": Deny,
		"unix:":                  Allow,
		"not an address":         NoMatch,
	} {
		if got := l.Check(addr); got != want {
			t.Errorf("Check(%q) = %v, want %v", addr, got, want)
		}
	}

	// The families are separate lists: IPv6 rules say nothing of IPv4
	// clients, nor "unix:" of TCP ones.
	var v6 List
	v6.Add(true, "::/0")
	v6.Add(true, "unix:")
	if got := v6.Check("127.0.0.1:1"); got != NoMatch {
		t.Errorf("IPv4 client against IPv6 rules: %v", got)
	}
	if got := v6.Check("[::1]:1"); got != Deny {
		t.Errorf("IPv6 client: %v", got)
	}
	// An IPv4-mapped client meets the IPv6 rules when there is no IPv4
	// rule, as in NGINX.
	if got := v6.Check("[::ffff:127.0.0.1]:1"); got != Deny {
		t.Errorf("mapped client without IPv4 rules: %v", got)
	}
}

func TestHandler(t *testing.T) {
	var l List
	l.Add(false, "127.0.0.1")
	l.Add(true, "all")
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	for addr, want := range map[string]int{"127.0.0.1:9": 204, "127.0.0.2:9": 403} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", addr, w.Code, want)
		}
	}
}

func FuzzParseCIDR(f *testing.F) {
	for _, s := range []string{"10.0.0.1", "10.1.2.3/8", "2001:db8::1/64", "::ffff:1.2.3.4/100", "1..2.3", "all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, exact, err := inet.ParseCIDR(s)
		if err != nil {
			return
		}
		if p != p.Masked() {
			t.Fatalf("%q: %v is not masked", s, p)
		}
		if exact {
			// An exact block reads back as itself.
			if q, ex, err := inet.ParseCIDR(p.String()); err != nil || q != p || !ex {
				t.Fatalf("%q: %v reads back as %v %v %v", s, p, q, ex, err)
			}
		}
		var l List
		if _, err := l.Add(false, s); err != nil {
			t.Fatalf("Add(%q): %v", s, err)
		}
		if l.Check(p.Addr().String()) != Allow {
			t.Fatalf("%v does not contain its own address", p)
		}
	})
}
