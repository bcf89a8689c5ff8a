package gctune

import (
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const floor = 12 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 400},        // nothing marked yet
		{1 << 20, 400},  // an edge server's usual heap: headroom 4 MiB (the minimum heap at 400 is 16)
		{3 << 20, 400},  // headroom exactly the floor
		{4 << 20, 300},  // the floor over 4 MiB
		{6 << 20, 200},  // and over 6
		{12 << 20, 100}, // the floor itself: Go's default
		{1 << 30, 100},  // a 1 GiB cache holds 2 GiB, not 5
	} {
		if got := Percent(c.live, floor, 400); got != c.want {
			t.Errorf("Percent(%d MiB) = %d, want %d", c.live>>20, got, c.want)
		}
	}
}

// gogc reads the target in force back from the runtime.
func gogc() uint64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// waitPercent runs cycles until the finalizer, which runs on its own
// goroutine after a cycle, has set the target to want.
func waitPercent(t *testing.T, want uint64) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		if gogc() == want {
			return
		}
	}
	t.Fatalf("GOGC %d after cycles, want %d", gogc(), want)
}

// A live heap above the floor brings the target down to Go's 100 after a
// cycle; once it is garbage, a cycle brings it back to the maximum.
func TestStartFollowsLiveHeap(t *testing.T) {
	const floor = 12 << 20
	Start(floor, 400)
	if got := gogc(); got != 400 {
		t.Fatalf("GOGC %d after Start, want 400", got)
	}
	waitPercent(t, 400) // the test binary's own heap is well under 3 MiB
	holdLive(t, 4*floor)
	waitPercent(t, 400)
}

// holdLive keeps n bytes live until a cycle has brought the target to 100.
func holdLive(t *testing.T, n int) {
	live := make([]byte, n)
	for i := range live { // touched, so that it is a real heap, not just reserved
		live[i] = byte(i)
	}
	waitPercent(t, 100)
	runtime.KeepAlive(live)
}
