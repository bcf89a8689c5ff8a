package realip

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

func TestParseFrom(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    string
		partial bool
		bad     bool
	}{
		{"10.0.0.0/8", "10.0.0.0/8", false, false},
		{"10.1.0.0/8", "10.0.0.0/8", true, false},
		{"192.168.1.1", "192.168.1.1/32", false, false},
		{"2001:db8::/32", "2001:db8::/32", false, false},
		{"::1", "::1/128", false, false},
		{"10.0.0.0/33", "", false, true},
		{"10.0.0.0/", "", false, true},
		{"256.0.0.1", "", false, true},
		{"example.com", "", false, true},
	} {
		p, partial, err := ParseFrom(c.in)
		if (err != nil) != c.bad || (!c.bad && (p.String() != c.want || partial != c.partial)) {
			t.Errorf("ParseFrom(%q) = %v %v %v", c.in, p, partial, err)
		}
	}
}

func TestResolve(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")}
	for _, c := range []struct {
		cfg    Config
		remote string
		hdr    http.Header
		want   string
	}{
		{Config{From: trusted}, "127.0.0.1:5", http.Header{"X-Real-Ip": {"1.2.3.4"}}, "1.2.3.4"},
		{Config{From: trusted}, "8.8.8.8:5", http.Header{"X-Real-Ip": {"1.2.3.4"}}, ""},
		{Config{FromUnix: true}, "unix:", http.Header{"X-Real-Ip": {"1.2.3.4:99"}}, "1.2.3.4:99"},
		{Config{From: trusted}, "unix:", http.Header{"X-Real-Ip": {"1.2.3.4"}}, ""},
		{Config{From: trusted, Source: XForwardedFor}, "[::ffff:127.0.0.1]:5", http.Header{"X-Forwarded-For": {"1.1.1.1, 2.2.2.2"}}, "2.2.2.2"},
		{Config{From: trusted, Source: XForwardedFor, Recursive: true}, "127.0.0.1:5", http.Header{"X-Forwarded-For": {"1.1.1.1, 10.2.2.2"}}, "1.1.1.1"},
		{Config{From: trusted, Source: XForwardedFor, Recursive: true}, "127.0.0.1:5", http.Header{"X-Forwarded-For": {"10.1.1.1, 10.2.2.2"}}, "10.1.1.1"},
		{Config{From: trusted, Source: XForwardedFor}, "127.0.0.1:5", http.Header{"X-Forwarded-For": {""}}, ""},
		{Config{From: trusted, Source: XForwardedFor}, "127.0.0.1:5", http.Header{"X-Forwarded-For": {"1.2.3.4:0"}}, ""},
		{Config{From: trusted, Source: Header, Header: "True-Client-IP"}, "127.0.0.1:5", http.Header{"True-Client-Ip": {"[::1]:8"}}, "[::1]:8"},
		{Config{From: trusted, Source: ProxyProtocol, ProxyProtocol: func(*http.Request) (string, string, bool) { return "5.5.5.5", "1234", true }},
			"127.0.0.1:5", nil, "5.5.5.5:1234"},
	} {
		r := &http.Request{RemoteAddr: c.remote, Header: c.hdr}
		got, _ := c.cfg.Resolve(r)
		if got != c.want {
			t.Errorf("%s %v: %q, want %q", c.remote, c.hdr, got, c.want)
		}
	}
}

// FuzzResolve feeds forwarded lists to the walk: it must not panic, and
// what it finds must be an address the request's fields named.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "1.2.3.4, 10.0.0.1", " , ,", "[::1]:80", "[::1]", "1.2.3.4:", ",1.2.3.4", "a,b, 10.0.0.1 ,"} {
		f.Add(s, true)
	}
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32")}
	f.Fuzz(func(t *testing.T, list string, recursive bool) {
		c := Config{From: trusted, Source: XForwardedFor, Recursive: recursive}
		r := &http.Request{RemoteAddr: "127.0.0.1:1", Header: http.Header{"X-Forwarded-For": {list}}}
		got, ok := c.Resolve(r)
		if !ok {
			return
		}
		if _, err := netip.ParseAddrPort(got); err != nil {
			if _, err := netip.ParseAddr(got); err != nil {
				t.Fatalf("%q gave %q", list, got)
			}
		}
	})
}

// TestApplyKeepsConnAddrInState: the connection's address that Apply
// replaces stays readable ($realip_remote_addr) and lives in the State
// itself, not in its Rare part: behind a load balancer every request is
// rewritten, and a Rare would cost each one an allocation.
func TestApplyKeepsConnAddrInState(t *testing.T) {
	c := &Config{From: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}
	st := &vars.State{}
	r := httptest.NewRequest("GET", "/", nil).WithContext(vars.NewContext(context.Background(), st))
	r.RemoteAddr = "10.1.2.3:5000"
	r.Header.Set("X-Real-IP", "192.0.2.7")
	if !c.Apply(r) {
		t.Fatal("Apply did not replace the address")
	}
	if !strings.HasPrefix(r.RemoteAddr, "192.0.2.7") || st.RemoteAddr != r.RemoteAddr {
		t.Errorf("RemoteAddr %q, the State's %q", r.RemoteAddr, st.RemoteAddr)
	}
	get, _ := vars.Lookup("realip_remote_addr")
	if got := get(r, st); got != "10.1.2.3" {
		t.Errorf("$realip_remote_addr = %q, want 10.1.2.3", got)
	}
	if st.Rare() != nil {
		t.Error("Apply made the State's Rare part")
	}
}
