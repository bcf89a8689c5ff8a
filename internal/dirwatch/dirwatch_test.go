package dirwatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testfs"
)

func TestStaleAfterSwitch(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"r1", "r2"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cur := filepath.Join(base, "current")
	if err := os.Symlink("r1", cur); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1000, 0)
	n, err := New(cur, t0)
	if err != nil {
		t.Fatal(err)
	}
	if n.Stale(t0.Add(2 * Interval)) {
		t.Fatal("stale with nothing changed")
	}
	// The deploy: current now points at r2, swapped in by a rename.
	testfs.Relink(t, cur, "r2")
	if n.Stale(t0.Add(2*Interval + Interval/2)) {
		t.Error("looked again within the interval")
	}
	if !n.Stale(t0.Add(4 * Interval)) {
		t.Error("not stale after the switch")
	}
	if err := os.Remove(cur); err != nil {
		t.Fatal(err)
	}
	if !n.Stale(t0.Add(6 * Interval)) {
		t.Error("not stale once the name is gone")
	}
	if _, err := New(cur, t0); err == nil {
		t.Error("New of a missing name succeeded")
	}
}
