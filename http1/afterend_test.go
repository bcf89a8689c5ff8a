package http1

import (
	"context"
	"testing"
	"time"
)

// AfterEnd holds one function, which runs when the request's context
// ends unless StopEnd took it back first, without an allocation.
func TestRequestCtxAfterEnd(t *testing.T) {
	c := newTestCtx()
	ran := make(chan int, 4)
	tok, ok := c.AfterEnd(func() { ran <- 1 })
	if !ok {
		t.Fatal("AfterEnd refused a function")
	}
	if _, ok := c.AfterEnd(func() { ran <- 2 }); ok {
		t.Error("AfterEnd took a second function while holding one")
	}
	if !c.StopEnd(tok) || c.StopEnd(tok) {
		t.Error("StopEnd does not report once that it took the function back")
	}
	tok, ok = c.AfterEnd(func() { ran <- 3 })
	if !ok {
		t.Fatal("AfterEnd refused a function after StopEnd")
	}
	c.cancel()
	select {
	case n := <-ran:
		if n != 3 {
			t.Errorf("function %d ran", n)
		}
	case <-time.After(testTimeout):
		t.Fatal("the function did not run when the context ended")
	}
	if c.StopEnd(tok) {
		t.Error("StopEnd reports that it stopped a function that ran")
	}
	// After the end, a function runs at once and cannot be stopped.
	tok, ok = c.AfterEnd(func() { ran <- 4 })
	if !ok || c.StopEnd(tok) {
		t.Errorf("after the end: AfterEnd %v, StopEnd true", ok)
	}
	select {
	case <-ran:
	case <-time.After(testTimeout):
		t.Fatal("a function given after the end did not run")
	}

	// A connection's context that can end by itself is not watched here.
	base, stop := context.WithCancel(context.Background())
	defer stop()
	if _, ok := (&requestCtx{Context: base}).AfterEnd(func() {}); ok {
		t.Error("AfterEnd took a function on a context whose connection's can end")
	}

	c = newTestCtx()
	f := func() {}
	if n := testing.AllocsPerRun(100, func() {
		tok, _ := c.AfterEnd(f)
		c.StopEnd(tok)
	}); n != 0 {
		t.Errorf("AfterEnd and StopEnd allocate %v times", n)
	}
}
