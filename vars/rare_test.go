package vars

import (
	"sync"
	"testing"
)

// TestMakeRareConcurrent: a subrequest's $request_id makes its parent's
// Rare in the subrequest's goroutine while the parent's own goroutine
// makes it for another value (an upstream's X-Accel-Charset). Both
// values must land in the one Rare the State keeps: a Rare made twice,
// the second replacing the first, would lose one of them.
func TestMakeRareConcurrent(t *testing.T) {
	for i := range 2000 {
		parent, sub := &State{}, &State{}
		sub.UseRare(new(Rare))
		sub.ShareRequestID(parent)
		var start, done sync.WaitGroup
		start.Add(1)
		done.Add(2)
		var id string
		go func() {
			defer done.Done()
			start.Wait()
			id = sub.RequestID()
		}()
		go func() {
			defer done.Done()
			start.Wait()
			parent.MakeRare().AccelCharset = "koi8-r"
		}()
		start.Done()
		done.Wait()
		if got := parent.Rare().AccelCharset; got != "koi8-r" {
			t.Fatalf("run %d: AccelCharset %q, want koi8-r: a second Rare replaced the first", i, got)
		}
		if got := parent.RequestID(); got != id {
			t.Fatalf("run %d: parent's $request_id %q, the subrequest's %q: a second Rare replaced the first", i, got, id)
		}
	}
}
