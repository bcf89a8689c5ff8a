package proxy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func methodUpstream(t *testing.T, m Method, servers ...Server) *Upstream {
	t.Helper()
	up, err := NewUpstream("g", servers, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := up.SetMethod(m, func(r *http.Request) string { return r.URL.Path }); err != nil {
		t.Fatal(err)
	}
	return up
}

// pickFor runs one selection for a request and releases the server.
func pickFor(up *Upstream, r *http.Request) string {
	var sel selection
	sel.reset(up, r)
	p := sel.next(time.Now())
	if p == nil {
		return ""
	}
	up.release(p, false, time.Now())
	return p.addr
}

func servers(n int) []Server {
	s := make([]Server, n)
	for i := range s {
		s[i] = Server{Addr: fmt.Sprintf("10.0.0.%d:80", i+1), MaxFails: 1}
	}
	return s
}

// TestConsistentHashMovesFewKeys: removing one server of four moves only
// the keys it had; the plain hash moves most of them.
func TestConsistentHashMovesFewKeys(t *testing.T) {
	for _, tc := range []struct {
		m       Method
		maxMove int
		minMove int
	}{{ConsistentHash, 0, 0}, {Hash, 1000, 300}} {
		four := methodUpstream(t, tc.m, servers(4)...)
		three := methodUpstream(t, tc.m, servers(3)...)
		moved, lost := 0, 0
		for i := range 1000 {
			r := httptest.NewRequest("GET", fmt.Sprintf("/k%d", i), nil)
			a, b := pickFor(four, r), pickFor(three, r)
			switch {
			case a == "10.0.0.4:80":
				lost++
			case a != b:
				moved++
			}
		}
		if moved > tc.maxMove || moved < tc.minMove || lost < 150 || lost > 350 {
			t.Errorf("%v: %d keys of the remaining servers moved, %d lost", tc.m, moved, lost)
		}
	}
}

// TestHashSameKeySameServer: the hashing methods send one key (one client
// network for ip_hash) to one server, and spread different ones.
func TestHashSameKeySameServer(t *testing.T) {
	for _, m := range []Method{Hash, ConsistentHash, IPHash} {
		up := methodUpstream(t, m, servers(3)...)
		got := map[string]bool{}
		for i := range 60 {
			r := httptest.NewRequest("GET", fmt.Sprintf("/k%d", i), nil)
			r.RemoteAddr = fmt.Sprintf("192.0.%d.7:1234", i)
			first := pickFor(up, r)
			for j := range 3 {
				r.RemoteAddr = fmt.Sprintf("192.0.%d.%d:999", i, j+20)
				if again := pickFor(up, r); again != first {
					t.Fatalf("%v: %s then %s for one key", m, first, again)
				}
			}
			got[first] = true
		}
		if len(got) != 3 {
			t.Errorf("%v: 60 keys went to %d servers", m, len(got))
		}
	}
}

// TestLeastConnAndMaxConns: least_conn avoids the busy server; max_conns
// takes a full server out, and a group whose servers are all full has no
// live upstream.
func TestLeastConnAndMaxConns(t *testing.T) {
	s := servers(2)
	s[0].MaxConns, s[1].MaxConns = 2, 2
	up := methodUpstream(t, LeastConn, s...)
	r := httptest.NewRequest("GET", "/", nil)
	var held []*peer
	for range 4 {
		var sel selection
		sel.reset(up, r)
		p := sel.next(time.Now())
		if p == nil {
			t.Fatal("no server while some had room")
		}
		held = append(held, p)
	}
	if held[0] == held[1] || held[2] == held[3] {
		t.Errorf("least_conn gave one server two requests while the other had none: %v %v %v %v",
			held[0].addr, held[1].addr, held[2].addr, held[3].addr)
	}
	var sel selection
	sel.reset(up, r)
	if p := sel.next(time.Now()); p != nil {
		t.Errorf("both servers at max_conns, yet %s was picked", p.addr)
	}
	up.release(held[0], false, time.Now())
	sel.reset(up, r)
	if p := sel.next(time.Now()); p != held[0] {
		t.Errorf("the server with room was not picked")
	}
}

// TestRandomTwoPrefersIdle: of two servers, one busy, random two sends
// nearly everything to the idle one (both drawn, the idle one wins; the
// same one drawn twice is drawn again).
func TestRandomTwoPrefersIdle(t *testing.T) {
	up := methodUpstream(t, RandomTwo, servers(2)...)
	busy := up.primary[0]
	busy.conns = 5
	r := httptest.NewRequest("GET", "/", nil)
	for range 50 {
		if got := pickFor(up, r); got != up.primary[1].addr {
			t.Fatalf("random two picked the busy server")
		}
	}
	rnd := methodUpstream(t, Random, servers(2)...)
	rnd.primary[0].conns = 5
	counts := map[string]int{}
	for range 200 {
		counts[pickFor(rnd, r)]++
	}
	if counts["10.0.0.1:80"] < 50 || counts["10.0.0.2:80"] < 50 {
		t.Errorf("random is not spread: %v", counts)
	}
}

// TestBackupAfterHashing: a hashing group that has a backup server (as
// NGINX allows when the backup line comes first) falls back to it, by
// round robin, once no primary server is usable.
func TestBackupAfterHashing(t *testing.T) {
	for _, m := range []Method{Hash, ConsistentHash, IPHash, Random, RandomTwo} {
		s := servers(3)
		s[1].Down = true
		s[2].Backup = true
		up := methodUpstream(t, m, s...)
		r := httptest.NewRequest("GET", "/k", nil)
		if got := pickFor(up, r); got != "10.0.0.1:80" {
			t.Errorf("%v: %s, want the primary", m, got)
		}
		up.primary[0].down = true
		if got := pickFor(up, r); got != "10.0.0.3:80" {
			t.Errorf("%v: %s, want the backup", m, got)
		}
	}
}

// The servers a name resolved to share the name's points on the
// consistent-hash ring, as in NGINX, whose ring is built from the
// server line as written: 160 points for the name, not per address.
func TestRingPointsPerServerLine(t *testing.T) {
	servers := []Server{
		{Addr: "127.0.0.1:80", Name: "h:80", MaxFails: 1},
		{Addr: "127.0.0.2:80", Name: "h:80", MaxFails: 1},
	}
	u, err := NewUpstream("g", servers, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := u.SetMethod(ConsistentHash, func(*http.Request) string { return "k" }); err != nil {
		t.Fatal(err)
	}
	if len(u.ring) != chashPointsPerWeight {
		t.Errorf("%d points for one server line, want %d", len(u.ring), chashPointsPerWeight)
	}
}
