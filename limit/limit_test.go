package limit

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// fakeClock makes the zones' clock stand still until advanced.
func fakeClock(t *testing.T) *int64 {
	now := int64(1 << 40)
	old := nowMS
	nowMS = func() int64 { return now }
	t.Cleanup(func() { nowMS = old })
	return &now
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]Rate{"1r/s": 1000, "10r/s": 10000, "30r/m": 500, "1r/m": 16, "5": 5000} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "r/s", "0r/s", "-1r/s", "1r/h", "x"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) accepted", in)
		}
	}
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"1r/s", "30r/m", "5", "", "+1r/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err == nil && r < 0 {
			t.Fatalf("%q gave negative rate %d", s, r)
		}
	})
}

// TestBucketAsNGINX follows NGINX's arithmetic: each request adds 1000 to
// the excess, which drains at the rate; a request that would take it over
// the burst is refused and not counted.
func TestBucketAsNGINX(t *testing.T) {
	now := fakeClock(t)
	z := newMemReq(2000, MinZoneSize) // 2r/s
	type step struct {
		advance int64
		rc      code
		excess  int64
	}
	steps := []step{
		{0, codeOK, 0}, {0, codeOK, 1000}, {0, codeOK, 2000}, {0, codeOK, 3000},
		{0, codeBusy, 4000},   // over burst=3: refused, not counted
		{250, codeBusy, 3500}, // 250ms drain 500: still over
		{250, codeOK, 3000},   // 500ms drain 1000
		{0, codeBusy, 4000},
		{5000, codeOK, 0},
	}
	for i, s := range steps {
		*now += s.advance
		rc, e, _ := z.lookup(context.Background(), "k", 3000, true)
		if rc != s.rc || e != s.excess {
			t.Fatalf("step %d: %d, excess %d; want %d, %d", i, rc, e, s.rc, s.excess)
		}
	}
}

func TestZoneEvictsOldestAndRefusesWhenHeld(t *testing.T) {
	fakeClock(t)
	z := newMemReq(1000, MinZoneSize)
	per := reqNodeCost(4)
	capacity := int(z.capacity / per)
	for i := 0; i < capacity; i++ {
		if rc, _, _ := z.lookup(context.Background(), key4(i), 0, true); rc != codeOK {
			t.Fatalf("key %d: %d", i, rc)
		}
	}
	if n := z.states(); n != capacity {
		t.Fatalf("%d states, want %d", n, capacity)
	}
	// Full: a new key pushes the oldest out.
	if rc, _, _ := z.lookup(context.Background(), key4(capacity), 0, true); rc != codeOK || z.states() != capacity {
		t.Fatalf("new key in a full zone: %d, %d states", rc, z.states())
	}
	if _, ok := z.nodes[key4(0)]; ok {
		t.Fatal("the oldest key was not evicted")
	}
	// The oldest is held by a request in progress: nothing can go.
	oldest := z.tail.key
	rc, _, h := z.lookup(context.Background(), oldest, 1<<40, false)
	if rc != codeAgain {
		t.Fatalf("hold: %d", rc)
	}
	// Every other key is used after it: the held one is the oldest.
	for k := range z.nodes {
		if k != oldest {
			z.lookup(context.Background(), k, 1<<40, true)
		}
	}
	if rc, _, _ := z.lookup(context.Background(), "new!", 0, true); rc != codeError {
		t.Fatalf("a full zone whose oldest is held: %d, want codeError", rc)
	}
	h.unlock()
	if rc, _, _ := z.lookup(context.Background(), "new!", 0, true); rc != codeOK {
		t.Fatalf("after unlock: %d", rc)
	}
}

func key4(i int) string { return string([]byte{byte(i >> 24), byte(i >> 16), byte(i >> 8), byte(i)}) }

func TestConnZone(t *testing.T) {
	z := newMemConn(MinZoneSize)
	rc1, rel1 := z.acquire(context.Background(), "a", 2)
	rc2, rel2 := z.acquire(context.Background(), "a", 2)
	rc3, _ := z.acquire(context.Background(), "a", 2)
	if rc1 != codeOK || rc2 != codeOK || rc3 != codeBusy {
		t.Fatalf("%d %d %d", rc1, rc2, rc3)
	}
	rel1()
	rel1() // once only
	if z.count("a") != 1 {
		t.Fatalf("count %d after one release", z.count("a"))
	}
	rel2()
	if len(z.nodes) != 0 || z.used != 0 {
		t.Fatalf("a key with no request left stays: %v, %d", z.nodes, z.used)
	}
	per := int(z.capacity / connNodeCost(4))
	for i := 0; i < per; i++ {
		if rc, _ := z.acquire(context.Background(), key4(i), 1); rc != codeOK {
			t.Fatalf("key %d: %d", i, rc)
		}
	}
	if rc, _ := z.acquire(context.Background(), "full", 1); rc != codeError {
		t.Fatalf("full zone: %d", rc)
	}
}

func statusOf(p *Policy, r *http.Request) (int, string) {
	st := &vars.State{}
	r = r.WithContext(vars.NewContext(r.Context(), st))
	w := httptest.NewRecorder()
	p.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})).ServeHTTP(w, r)
	s, _ := st.Get(VarReqStatus)
	return w.Code, s
}

func TestPolicyStatusesAndDryRun(t *testing.T) {
	now := fakeClock(t)
	z, err := NewReqZone(ZoneOptions{Name: "z", Key: func(r *http.Request) string { return r.Header.Get("K") }, Rate: 1000, Size: MinZoneSize})
	if err != nil {
		t.Fatal(err)
	}
	var heard []string // what the Rejected hook heard
	p := &Policy{Req: []ReqLimit{{Zone: z, Burst: 1, Delay: NoDelay}}, ReqStatus: 429,
		Rejected: func(limit, zone string) { heard = append(heard, limit+" "+zone) }}
	req := func() *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("K", "a")
		return r
	}
	var got []string
	for i := 0; i < 3; i++ {
		c, s := statusOf(p, req())
		got = append(got, strconv.Itoa(c)+" "+s)
	}
	if want := "[200 PASSED 200 PASSED 429 REJECTED]"; strconvList(got) != want {
		t.Fatalf("%v, want %s", got, want)
	}
	// An empty key is not limited, and leaves the variable unset.
	if c, s := statusOf(p, httptest.NewRequest("GET", "/", nil)); c != 200 || s != "" {
		t.Fatalf("empty key: %d %q", c, s)
	}
	dry := &Policy{Req: p.Req, ReqDryRun: true, Rejected: p.Rejected}
	if c, s := statusOf(dry, req()); c != 200 || s != "REJECTED_DRY_RUN" {
		t.Fatalf("dry run: %d %q", c, s)
	}
	// The hook hears of the refusal, with its zone, not of the dry run's.
	if strings.Join(heard, ",") != "req z" {
		t.Fatalf("Rejected heard %v, want [req z]", heard)
	}
	*now += 1000
	delayDry := &Policy{Req: []ReqLimit{{Zone: z, Burst: 5}}, ReqDryRun: true}
	statusOf(delayDry, req())
	if c, s := statusOf(delayDry, req()); c != 200 || s != "DELAYED_DRY_RUN" {
		t.Fatalf("delay dry run: %d %q", c, s)
	}
}

// A burst or a delay as large as an int holds (NoDelay is the largest)
// means no bound. Counted in thousandths of a request, math.MaxInt64
// wrapped below zero on a 64-bit platform: every request over the rate
// was refused, or every one of a burst delayed. On a 32-bit one, the
// earlier NoDelay, a 64-bit count, did not fit an int at all.
func TestPolicyLargestBurstAndDelay(t *testing.T) {
	fakeClock(t)
	z, err := NewReqZone(ZoneOptions{Name: "z", Key: func(r *http.Request) string { return r.Header.Get("K") }, Rate: 1000, Size: MinZoneSize})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key   string
		burst int
		delay int
		want  string
	}{
		{"nodelay", math.MaxInt, NoDelay, "[200 PASSED 200 PASSED 200 PASSED]"},
		{"burst", math.MaxInt, 0, "[200 PASSED 200 DELAYED_DRY_RUN 200 DELAYED_DRY_RUN]"},
		{"delay", 5, math.MaxInt, "[200 PASSED 200 PASSED 200 PASSED]"},
	} {
		// A dry run says what would be delayed without waiting for it.
		p := &Policy{Req: []ReqLimit{{Zone: z, Burst: tc.burst, Delay: tc.delay}}, ReqDryRun: true}
		var got []string
		for range 3 {
			r := httptest.NewRequest("GET", "/", nil)
			r.Header.Set("K", tc.key)
			c, s := statusOf(p, r)
			got = append(got, strconv.Itoa(c)+" "+s)
		}
		if strconvList(got) != tc.want {
			t.Errorf("burst %d, delay %d: %v, want %s", tc.burst, tc.delay, got, tc.want)
		}
	}
}

func strconvList(s []string) string {
	out := "["
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += v
	}
	return out + "]"
}
