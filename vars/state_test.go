package vars_test

import (
	"context"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// stateHolder is a request context that carries the State itself, the way
// the server's does.
type stateHolder struct {
	context.Context
	st vars.State
}

func (h *stateHolder) Value(key any) any {
	if vars.IsStateKey(key) {
		return &h.st
	}
	return h.Context.Value(key)
}

func TestStateKey(t *testing.T) {
	h := &stateHolder{Context: context.Background()}
	if got := vars.FromContext(h); got != &h.st {
		t.Fatalf("FromContext of a context answering StateKey: %p, want %p", got, &h.st)
	}
	st := &vars.State{}
	if got := vars.FromContext(vars.NewContext(context.Background(), st)); got != st {
		t.Fatalf("FromContext after NewContext: %p, want %p", got, st)
	}
	if got := vars.FromContext(context.Background()); got != nil {
		t.Fatalf("FromContext of a bare context: %p", got)
	}
	type otherKey struct{}
	for _, key := range []any{nil, struct{}{}, otherKey{}, "StateKey", &h.st} {
		if vars.IsStateKey(key) {
			t.Errorf("IsStateKey(%#v) is true", key)
		}
	}
	if !vars.IsStateKey(vars.StateKey()) {
		t.Error("IsStateKey(StateKey()) is false")
	}
}
