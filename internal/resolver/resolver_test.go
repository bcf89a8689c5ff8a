package resolver

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/resolver/resolvertest"
)

func TestLookup(t *testing.T) {
	srv := resolvertest.Start(t, map[string][]resolvertest.Record{
		"app.test":   {{Addr: netip.MustParseAddr("127.0.0.2"), TTL: 60}, {Addr: netip.MustParseAddr("::1"), TTL: 30}},
		"v4.test":    {{Addr: netip.MustParseAddr("127.0.0.3"), TTL: 1}},
		"short.test": {{Addr: netip.MustParseAddr("127.0.0.4"), TTL: 0}},
	})
	r := &Resolver{Servers: []string{srv.Addr}, Timeout: 5 * time.Second}
	ctx := context.Background()
	got, err := r.Lookup(ctx, "App.Test.")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, netip.Addr.Compare)
	if want := []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("::1")}; !slices.Equal(got, want) {
		t.Errorf("app.test: %v, want %v", got, want)
	}
	n := srv.Queries.Load()
	if _, err := r.Lookup(ctx, "app.test"); err != nil || srv.Queries.Load() != n {
		t.Errorf("second lookup: %v, %d queries after %d: not from the cache", err, srv.Queries.Load(), n)
	}
	// A TTL of 0 is not cached.
	for range 2 {
		if _, err := r.Lookup(ctx, "short.test"); err != nil {
			t.Fatal(err)
		}
	}
	if q := srv.Queries.Load(); q != n+4 {
		t.Errorf("%d queries, want %d: a zero TTL is not cached", q, n+4)
	}
	_, err = r.Lookup(ctx, "missing.test")
	if e, ok := err.(*Error); !ok || e.Error() != "3: Host not found" {
		t.Errorf("missing.test: %v", err)
	}
	// valid= overrides the TTL; ipv6=off asks only for A records.
	r2 := &Resolver{Servers: []string{srv.Addr}, Valid: time.Hour, NoIPv6: true}
	got, err = r2.Lookup(ctx, "short.test")
	if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr("127.0.0.4") {
		t.Fatalf("short.test: %v, %v", got, err)
	}
	n = srv.Queries.Load()
	if _, err := r2.Lookup(ctx, "short.test"); err != nil || srv.Queries.Load() != n {
		t.Errorf("valid=1h: not cached (%v)", err)
	}
}

func TestLookupTimeout(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0") // never answers
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	r := &Resolver{Servers: []string{pc.LocalAddr().String()}, Timeout: 100 * time.Millisecond}
	start := time.Now()
	_, err = r.Lookup(context.Background(), "x.test")
	if e, ok := err.(*Error); !ok || e.Code != 110 {
		t.Errorf("error %v, want a timeout", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestParseAnswerRefuses(t *testing.T) {
	q, _ := AppendQuery(nil, 7, "a.test", typeA)
	good := resolvertest.Respond(q, map[string][]resolvertest.Record{"a.test": {{Addr: netip.MustParseAddr("10.0.0.1"), TTL: 5}}})
	if a, err := ParseAnswer(good, 7, typeA); err != nil || len(a.addrs) != 1 || a.ttl != 5 {
		t.Fatalf("good answer: %+v %v", a, err)
	}
	if _, err := ParseAnswer(good, 8, typeA); err != errOtherID {
		t.Errorf("other id: %v", err)
	}
	for i := range len(good) {
		_, _ = ParseAnswer(good[:i], 7, typeA) // no panic on any truncation
	}
	if _, err := AppendQuery(nil, 1, "a..b", typeA); err == nil {
		t.Error("empty label accepted")
	}
}

// FuzzParseAnswer feeds arbitrary datagrams, as any host that can reach
// the socket may send, to the response parser.
func FuzzParseAnswer(f *testing.F) {
	q, _ := AppendQuery(nil, 7, "a.test", typeA)
	f.Add(resolvertest.Respond(q, map[string][]resolvertest.Record{"a.test": {{Addr: netip.MustParseAddr("10.0.0.1"), TTL: 5}}}))
	f.Add(resolvertest.Respond(q, nil))
	f.Add([]byte{0, 7, 0x81, 0x80, 0, 0, 0, 1, 0, 0, 0, 0, 0xc0, 0xff})
	f.Fuzz(func(t *testing.T, msg []byte) {
		a, err := ParseAnswer(msg, 7, typeA)
		if err == nil {
			for _, addr := range a.addrs {
				if !addr.Is4() {
					t.Errorf("A record gave %v", addr)
				}
			}
		}
	})
}
