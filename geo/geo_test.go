package geo

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// build reads lines ("name arg" each) into a Table.
func build(t testing.TB, lines ...string) *Table {
	t.Helper()
	b := NewBuilder()
	for _, l := range lines {
		f := strings.Fields(l)
		if _, err := b.Line(f[0], f[1:]); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	return b.Table()
}

func TestCIDRLongestPrefix(t *testing.T) {
	tb := build(t, "10.0.0.0/8 ten", "10.1.0.0/16 one", "10.1.2.3 host", "2001:db8::/32 doc", "255.255.255.255 none")
	for addr, want := range map[string]string{
		"10.9.9.9": "ten", "10.1.9.9": "one", "10.1.2.3": "host", "11.0.0.0": "",
		"2001:db8::5": "doc", "::1": "", "::ffff:10.1.2.3": "host", "unix:": "none", "": "none",
	} {
		if got := tb.Lookup(addr, nil); got != want {
			t.Errorf("%q: %q, want %q", addr, got, want)
		}
	}
}

// A duplicate network's warning names as the old value NGINX's radix
// tree's answer for the network's address: the most specific network
// holding it, which the default's IPv4 warning shows too.
func TestDuplicateNetworkOldValue(t *testing.T) {
	b := NewBuilder()
	var warns []string
	for _, l := range []string{"10.0.0.0/8 a", "10.0.0.0/16 b", "10.0.0.0/8 c", "0.0.0.0/8 x",
		"default d", "default e", "2001:db8::/32 v6", "2001:db8::/48 v6-48", "2001:db8::/32 v6-again"} {
		f := strings.Fields(l)
		w, err := b.Line(f[0], f[1:])
		if err != nil {
			t.Fatal(err)
		}
		warns = append(warns, w...)
	}
	want := []string{
		`duplicate network "10.0.0.0/8", value: "c", old value: "b"`,
		`duplicate network "default", value: "e", old value: "x"`,
		`duplicate network "default", value: "e", old value: "d"`,
		`duplicate network "2001:db8::/32", value: "v6-again", old value: "v6-48"`,
	}
	if strings.Join(warns, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
}

func TestRangesCut(t *testing.T) {
	tb := build(t, "ranges", "default out", "10.0.0.0-10.0.0.255 a", "10.0.0.10-10.0.0.20 b",
		"10.0.0.0-10.0.0.5 c", "10.0.0.250-10.0.0.255 d", "10.0.255.0-10.1.0.10 e")
	for addr, want := range map[string]string{
		"10.0.0.0": "c", "10.0.0.5": "c", "10.0.0.6": "a", "10.0.0.10": "b", "10.0.0.20": "b",
		"10.0.0.21": "a", "10.0.0.249": "a", "10.0.0.250": "d", "10.0.1.0": "out", "10.0.255.7": "e",
		"10.1.0.10": "e", "10.1.0.11": "out", "2001:db8::1": "out", "::ffff:10.0.0.12": "b",
	} {
		if got := tb.Lookup(addr, nil); got != want {
			t.Errorf("%q: %q, want %q", addr, got, want)
		}
	}
	b := NewBuilder()
	for _, l := range [][]string{{"ranges"}, {"10.0.0.0-10.0.0.9", "a"}} {
		if _, err := b.Line(l[0], l[1:]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Line("10.0.0.5-10.0.0.20", []string{"b"}); err == nil ||
		err.Error() != `range "10.0.0.5-10.0.0.20" overlaps "10.0.0.0-10.0.0.9"` {
		t.Errorf("overlap: %v", err)
	}
}

func TestProxies(t *testing.T) {
	tb := build(t, "proxy 127.0.0.1", "proxy 10.0.0.0/8", "127.0.0.1 self", "10.9.9.9 inner", "192.0.2.1 outer")
	h := http.Header{"X-Forwarded-For": {"192.0.2.1, 10.9.9.9"}}
	if got := tb.Lookup("127.0.0.1", h); got != "inner" {
		t.Errorf("last address: %q", got)
	}
	if got := tb.Lookup("192.0.2.9", h); got != "" {
		t.Errorf("untrusted client: %q", got)
	}
	tb.Recursive = true
	if got := tb.Lookup("127.0.0.1", h); got != "outer" {
		t.Errorf("recursive: %q", got)
	}
}

// FuzzLookup: any address text and X-Forwarded-For give a value, and an
// address that parses gives what Find gives it directly.
func FuzzLookup(f *testing.F) {
	f.Add("127.0.0.1", "10.1.1.1, 2001:db8::1")
	f.Add("::ffff:10.0.0.1", "")
	f.Add("unix:", "x")
	f.Fuzz(func(t *testing.T, addr, xff string) {
		tb := build(t, "proxy 127.0.0.0/8", "10.0.0.0/8 ten", "::/0 six", "127.0.0.1 lo")
		tb.Recursive = len(xff)%2 == 0
		got := tb.Lookup(addr, http.Header{"X-Forwarded-For": {xff}})
		switch got {
		case "", "ten", "six", "lo":
		default:
			t.Fatalf("%q %q: %q", addr, xff, got)
		}
		if a, err := netip.ParseAddr(addr); err == nil && a.Zone() == "" && !a.Unmap().Is4() {
			if want := tb.Find(a, true); tb.Lookup(addr, nil) != want {
				t.Fatalf("%q: Lookup and Find differ", addr)
			}
		}
	})
}
