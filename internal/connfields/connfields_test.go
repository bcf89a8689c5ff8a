package connfields

import (
	"context"
	"testing"
)

func TestKept(t *testing.T) {
	ctx := context.Background()
	if Kept(ctx) {
		t.Error("an unmarked context is kept")
	}
	child, cancel := context.WithCancel(Keep(ctx))
	defer cancel()
	if !Kept(child) {
		t.Error("a marked context's child is not kept")
	}
}
