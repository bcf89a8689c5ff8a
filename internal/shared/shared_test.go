package shared_test

import (
	"errors"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/shared"
)

type closer struct{ closed int }

func (c *closer) Close() error { c.closed++; return nil }

// A value is made once per signature, shared while held, closed with its
// last release, and made anew after that.
func TestRegistry(t *testing.T) {
	var r shared.Registry[*closer]
	opened := 0
	open := func() (*closer, error) { opened++; return &closer{}, nil }
	a, _ := r.Acquire("x", open)
	b, _ := r.Acquire("x", open)
	if a != b || opened != 1 {
		t.Fatalf("second acquire opened again (%d) or gave another value", opened)
	}
	if err := r.Release("x"); err != nil || a.closed != 0 {
		t.Fatalf("closed while still held: %d, %v", a.closed, err)
	}
	if err := r.Release("x"); err != nil || a.closed != 1 {
		t.Fatalf("not closed by the last release: %d, %v", a.closed, err)
	}
	c, _ := r.Acquire("x", open)
	if c == a || opened != 2 {
		t.Fatalf("a released signature was not opened anew")
	}
	if _, err := r.Acquire("y", func() (*closer, error) { return nil, errors.New("no") }); err == nil {
		t.Fatal("open's error lost")
	}
	if err := r.Release("y"); err != nil {
		t.Fatalf("releasing what failed to open: %v", err)
	}
}
