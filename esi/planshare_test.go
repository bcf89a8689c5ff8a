package esi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
)

// memShare is a PlanShare in memory, as two servers would see Redis.
type memShare struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *memShare) Load(_ context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return nil, errors.New("not found")
	}
	return b, nil
}

func (s *memShare) Save(_ context.Context, key string, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = b
	return nil
}

func (s *memShare) waitFor(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.mu.Lock()
		got := len(s.m)
		s.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d plans shared, want %d", got, n)
		}
	}
}

// TestPlanShare: a plan one server records is replayed by another that
// shares it, and a damaged shared plan is not used.
func TestPlanShare(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	share := &memShare{m: map[string][]byte{}}
	server := func() (*esi.PlanStore, func(cookie string) string) {
		plans := newPlans(t, 1<<20)
		h := mustNew(t, storedPage(body, "HIT", 333, false), esi.Options{
			Fetcher: esi.FetchHandler(fragments()), Plans: plans, PlanShare: share, Logger: discardLog()})
		return plans, func(cookie string) string { return serve(h, planRequest("/page?x=0", cookie, "")).Body.String() }
	}
	plansA, getA := server()
	if got := getA(planCookies[0]); got != wants[0] {
		t.Fatalf("server A: %q", got)
	}
	share.waitFor(t, 1)
	plansB, getB := server()
	if got := getB(planCookies[0]); got != wants[0] {
		t.Fatalf("server B: %q", got)
	}
	if a, b := plansA.Stats(), plansB.Stats(); a.Recorded != 1 || b.Recorded != 0 || b.Loaded != 1 || b.Replayed != 1 {
		t.Fatalf("A %+v, B %+v", a, b)
	}
	var good []byte
	for k, v := range share.m {
		good = v
		share.m[k] = v[:len(v)-1] // damaged
	}
	plansC, getC := server()
	if got := getC(planCookies[0]); got != wants[0] {
		t.Fatalf("server C: %q", got)
	}
	if c := plansC.Stats(); c.Loaded != 0 || c.Recorded != 1 {
		t.Fatalf("C %+v: the damaged plan was used", c)
	}

	// A plan saved under the name of another stored body (a forced
	// collision) describes other bytes: it is not used.
	other := bytes.Replace(body, []byte(`<esi:include src="/f/a"/> after`), []byte(`<esi:include src="/f/b"/> after`), 1)
	otherWants := want(t, other)
	share.mu.Lock()
	share.m = map[string][]byte{fmt.Sprintf("%016x", bodyID("/page?x=0", other)): good}
	share.mu.Unlock()
	log, sink := newLog()
	plansD := newPlans(t, 1<<20)
	d := mustNew(t, storedPage(other, "HIT", 333, false), esi.Options{
		Fetcher: esi.FetchHandler(fragments()), Plans: plansD, PlanShare: share, Logger: log})
	if got := serve(d, planRequest("/page?x=0", planCookies[0], "")).Body.String(); got != otherWants[0] {
		t.Fatalf("server D: %q", got)
	}
	if st := plansD.Stats(); st.Loaded != 0 || st.Recorded != 1 || sink.count("of another stored body") != 1 {
		t.Fatalf("D %+v: the plan of another body was used\n%s", st, sink)
	}
}

// TestPlanLargerThanStore: a plan larger than the whole store, recorded
// here or found in the share, is not kept, and the store remembers that
// its page is parsed: later deliveries neither record it again nor load
// it from the share on every request.
func TestPlanLargerThanStore(t *testing.T) {
	var page strings.Builder
	for i := range 1500 { // 3,000 steps of 64 bytes and more: over 32 KiB
		fmt.Fprintf(&page, "<p>%d</p><esi:include src=\"/f/a\"/>", i)
	}
	body := []byte(page.String())
	wants := want(t, body)
	// A server with a large store shares the plan.
	share := &countingShare{memShare: memShare{m: map[string][]byte{}}}
	big := mustNew(t, storedPage(body, "HIT", 4096, false), esi.Options{
		Fetcher: esi.FetchHandler(fragments()), Plans: newPlans(t, 16<<20), PlanShare: share, Logger: discardLog()})
	serve(big, planRequest("/page?x=0", planCookies[0], ""))
	share.waitFor(t, 1)
	share.loads.Store(0)

	small := newPlans(t, esi.MinPlanStoreSize)
	h := mustNew(t, storedPage(body, "HIT", 4096, false), esi.Options{
		Fetcher: esi.FetchHandler(fragments()), Plans: small, PlanShare: share, Logger: discardLog()})
	for i := range 3 {
		if got := serve(h, planRequest("/page?x=0", planCookies[0], "")).Body.String(); got != wants[0] {
			t.Fatalf("delivery %d: wrong page", i)
		}
	}
	if st := small.Stats(); st.Oversize != 1 || st.Recorded != 0 || st.Loaded != 0 || st.Plans != 1 || st.Bytes > 1024 {
		t.Errorf("stats %+v: want one oversize plan, marked", st)
	}
	if n := share.loads.Load(); n != 1 {
		t.Errorf("the share was asked %d times, want once", n)
	}
}

// countingShare is a memShare that counts loads.
type countingShare struct {
	memShare
	loads atomic.Int64
}

func (s *countingShare) Load(ctx context.Context, key string) ([]byte, error) {
	s.loads.Add(1)
	return s.memShare.Load(ctx, key)
}
