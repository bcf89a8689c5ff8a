package endhook

import (
	"context"
	"testing"
	"time"
)

// hooker is a context that is a Hooker, holding its function as http1's
// request context does, and counting what After asks of it.
type hooker struct {
	context.Context
	f      func()
	taken  int
	refuse bool
}

func (h *hooker) AfterEnd(f func()) (uint64, bool) {
	if h.refuse {
		return 0, false
	}
	h.f = f
	h.taken++
	return uint64(h.taken), true
}

func (h *hooker) StopEnd(token uint64) bool {
	if h.f == nil || token != uint64(h.taken) {
		return false
	}
	h.f = nil
	return true
}

func TestAfterUsesHooker(t *testing.T) {
	h := &hooker{Context: context.Background()}
	ran := false
	s := After(h, func() { ran = true })
	if h.taken != 1 || h.f == nil {
		t.Fatal("After did not give the function to the context's AfterEnd")
	}
	if !s.Stop() || h.f != nil {
		t.Error("Stop did not take the function back")
	}
	if s.Stop() {
		t.Error("a second Stop reports that it stopped the function")
	}
	if ran {
		t.Error("the function ran")
	}
}

// A context that refuses the function, or that only derives from a
// Hooker (its end may come sooner), gets context.AfterFunc's.
func TestAfterFallsBack(t *testing.T) {
	inner := &hooker{Context: context.Background()}
	derived, cancelDerived := context.WithCancel(inner)
	refusing := &hooker{Context: context.Background(), refuse: true}
	for name, ctx := range map[string]context.Context{"derived": derived, "refusing": refusing} {
		ctx, cancel := context.WithCancel(ctx)
		ran := make(chan struct{})
		s := After(ctx, func() { close(ran) })
		cancel()
		select {
		case <-ran:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the function did not run when the context ended", name)
		}
		if s.Stop() {
			t.Errorf("%s: Stop after the function ran reports that it stopped it", name)
		}
	}
	cancelDerived()
	if inner.taken != 0 {
		t.Error("a derived context's function went to its parent's AfterEnd")
	}
	stopped := After(context.Background(), func() { t.Error("ran") })
	if !stopped.Stop() {
		t.Error("Stop of context.AfterFunc's function before the end reports false")
	}
	if (Stop{}).Stop() {
		t.Error("the zero Stop reports that it stopped something")
	}
}
