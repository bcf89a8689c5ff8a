package proxymod

import (
	"net/netip"
	"slices"
	"testing"
)

// rotate hands the addresses out as NGINX's resolver does: the IPv4
// ones in turn, then the IPv6 ones in turn, the whole list turned, each
// address first now and then.
func TestRotateAsNGINXResolver(t *testing.T) {
	var ips []netip.Addr
	for _, s := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "::1", "::2"} {
		ips = append(ips, netip.MustParseAddr(s))
	}
	cyclic := func(got, want []netip.Addr) bool {
		for k := range want {
			if slices.Equal(got, append(slices.Clone(want[k:]), want[:k]...)) {
				return true
			}
		}
		return false
	}
	first := map[netip.Addr]bool{}
	for range 300 {
		got := rotate(ips)
		if len(got) != len(ips) {
			t.Fatalf("rotate(%v) = %v", ips, got)
		}
		first[got[0]] = true
		// Turned back to where the IPv4 addresses lead, the list is a
		// turn of the IPv4 ones followed by a turn of the IPv6 ones.
		ok := false
		for k := range got {
			whole := append(slices.Clone(got[k:]), got[:k]...)
			if cyclic(whole[:3], ips[:3]) && cyclic(whole[3:], ips[3:]) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("rotate(%v) = %v: not NGINX's turns", ips, got)
		}
	}
	if len(first) != len(ips) {
		t.Errorf("first addresses over 300 turns: %v", first)
	}
}
