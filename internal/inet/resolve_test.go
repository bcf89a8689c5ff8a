package inet

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"testing"
)

func TestResolveHostLiteralsAndUnknownNames(t *testing.T) {
	ctx := context.Background()
	for host, want := range map[string]string{"127.0.0.2": "127.0.0.2", "[::1]": "::1", "[fe80::1]": "fe80::1"} {
		got, err := ResolveHost(ctx, host)
		if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr(want) {
			t.Errorf("%s: %v, %v; want %s", host, got, err, want)
		}
	}
	for _, host := range []string{"no-such-host.invalid", "[::1"} {
		if got, err := ResolveHost(ctx, host); !errors.Is(err, ErrHostNotFound) {
			t.Errorf("%s: %v, %v; want host not found", host, got, err)
		}
	}
	for _, host := range []string{"[127.0.0.1]", "[fe80::1%eth0]", "[zz]"} {
		if got, err := ResolveHost(ctx, host); !errors.Is(err, ErrInvalidIPv6) {
			t.Errorf("%s: %v, %v; want invalid IPv6 address", host, got, err)
		}
	}
	got, err := ResolveHost(ctx, "localhost")
	if err != nil || !slices.Contains(got, netip.MustParseAddr("127.0.0.1")) && !slices.Contains(got, netip.MustParseAddr("::1")) {
		t.Errorf("localhost: %v, %v", got, err)
	}
}

// The order glibc's getaddrinfo gives (its default tables): loopback
// IPv6 before IPv4, global IPv6 before IPv4, unreachable addresses last,
// the longer prefix shared with the source first (IPv4 addresses only
// within the source's subnet; IPv6 ones over all 128 bits), and
// otherwise the order found. The cases with a shared prefix are what
// Debian's getaddrinfo ("getent ahosts") answers on a host with
// 127.0.0.1/8, 192.0.2.2/24 and fd00::2/64.
func TestSortAddrsAsGlibc(t *testing.T) {
	src := map[string]string{
		"127.0.0.1": "127.0.0.1/8", "::1": "::1/128",
		"192.0.2.7": "192.0.2.2/24", "2001:db8::7": "2001:db8::2/64",
		"198.51.100.1": "192.0.2.2/24", "fe80::9": "fe80::1/64",
		"127.0.0.2": "127.0.0.1/8", "127.0.0.3": "127.0.0.1/8", "127.0.0.5": "127.0.0.1/8",
		"192.0.2.200": "192.0.2.2/24", "192.0.2.3": "192.0.2.2/24", "192.0.2.130": "192.0.2.2/24",
		"198.18.0.1": "192.0.2.2/24", "10.0.0.1": "192.0.2.2/24", "192.0.3.1": "192.0.2.2/24",
		"fd00::8000:0:0:5": "fd00::2/64", "fd00::3": "fd00::2/64", "fd00::1:0:0:5": "fd00::2/64", "fd00:0:0:1::9": "fd00::2/64",
	}
	source := func(a netip.Addr) (netip.Prefix, bool) {
		s, ok := src[a.String()]
		if !ok {
			return netip.Prefix{}, false
		}
		return netip.MustParsePrefix(s), true
	}
	for _, c := range []struct{ in, want []string }{
		{[]string{"127.0.0.1", "::1"}, []string{"::1", "127.0.0.1"}},
		{[]string{"192.0.2.7", "2001:db8::7"}, []string{"2001:db8::7", "192.0.2.7"}},
		{[]string{"2001:db8::99", "192.0.2.7"}, []string{"192.0.2.7", "2001:db8::99"}}, // no route to the first
		{[]string{"198.51.100.1", "192.0.2.7"}, []string{"192.0.2.7", "198.51.100.1"}}, // the second is in the source's subnet
		{[]string{"2001:db8::7", "fe80::9"}, []string{"fe80::9", "2001:db8::7"}},       // the smaller scope
		{[]string{"127.0.0.2", "127.0.0.5", "127.0.0.3"}, []string{"127.0.0.2", "127.0.0.3", "127.0.0.5"}},
		{[]string{"192.0.2.200", "192.0.2.3", "198.18.0.1", "192.0.2.130"}, []string{"192.0.2.3", "192.0.2.200", "192.0.2.130", "198.18.0.1"}},
		{[]string{"198.18.0.1", "10.0.0.1", "192.0.3.1"}, []string{"198.18.0.1", "10.0.0.1", "192.0.3.1"}}, // none in the subnet
		{[]string{"fd00::8000:0:0:5", "fd00::3", "fd00::1:0:0:5", "fd00:0:0:1::9"}, []string{"fd00::3", "fd00::1:0:0:5", "fd00::8000:0:0:5", "fd00:0:0:1::9"}},
	} {
		addrs := make([]netip.Addr, len(c.in))
		for i, s := range c.in {
			addrs[i] = netip.MustParseAddr(s)
		}
		sortAddrs(addrs, source)
		var got []string
		for _, a := range addrs {
			got = append(got, a.String())
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%v sorted %v, want %v", c.in, got, c.want)
		}
	}
}

// A host written as inet_aton writes IPv4 addresses is that address, as
// getaddrinfo reads it; these are Debian's "getent ahosts" answers.
func TestResolveHostNumbersAsInetAton(t *testing.T) {
	ctx := context.Background()
	for host, want := range map[string]string{
		"10.1": "10.0.0.1", "0x7f.1": "127.0.0.1", "0X7F.0.1": "127.0.0.1", "1.256": "1.0.1.0",
		"4294967295": "255.255.255.255", "1.2.65535": "1.2.255.255", "012.1": "10.0.0.1", "00": "0.0.0.0",
	} {
		got, err := ResolveHost(ctx, host)
		if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr(want) {
			t.Errorf("%s: %v, %v; want %s", host, got, err, want)
		}
	}
	for _, host := range []string{"256.1", "08.1", "0x", "1.2.3.4.5", "4294967296", "1.2.65536", "1.2.", "+1.2", "0x_1.2"} {
		if a, ok := parseInetAton(host); ok {
			t.Errorf("%s read as %v", host, a)
		}
	}
}

// The families kept are AI_ADDRCONFIG's, and an address found twice is
// kept twice, as glibc's getaddrinfo keeps it ("getent ahosts" on a
// name that two lines of /etc/hosts give the same address).
func TestOfFamiliesAsAddrconfig(t *testing.T) {
	var found []netip.Addr
	for _, s := range []string{"127.0.0.2", "::1", "127.0.0.3", "127.0.0.2"} {
		found = append(found, netip.MustParseAddr(s))
	}
	for _, c := range []struct {
		v4, v6 bool
		want   string
	}{
		{true, true, "[127.0.0.2 ::1 127.0.0.3 127.0.0.2]"},
		{false, false, "[127.0.0.2 ::1 127.0.0.3 127.0.0.2]"},
		{true, false, "[127.0.0.2 127.0.0.3 127.0.0.2]"},
		{false, true, "[::1]"},
	} {
		if got := fmt.Sprint(ofFamilies(found, c.v4, c.v6)); got != c.want {
			t.Errorf("IPv4 %v, IPv6 %v: %s, want %s", c.v4, c.v6, got, c.want)
		}
	}
}
