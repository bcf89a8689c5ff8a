package accesslog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// line writes s to path through c, counting the opens.
func line(t *testing.T, c *FileCache, path, s string, opens *int) {
	t.Helper()
	w, err := c.Open(path, func(p string) (*os.File, error) {
		*opens++
		return os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(s + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func lines(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "\n", " ")
}

// A file is opened once it is used min_uses times, kept while lines come
// within inactive, and the least recently used goes beyond max.
func TestFileCacheKeeps(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log"), filepath.Join(dir, "c.log")
	fc := &FileCache{Max: 2, Inactive: time.Hour, MinUses: 3, Valid: time.Hour}
	defer fc.Close()
	opens := 0
	for i := range 6 {
		line(t, fc, a, string(rune('1'+i)), &opens)
	}
	if opens != 3 || lines(t, a) != "1 2 3 4 5 6 " {
		t.Errorf("min_uses 3: %d opens, %q", opens, lines(t, a))
	}
	opens = 0
	fc.MinUses = 1
	line(t, fc, b, "b", &opens) // a and b kept
	line(t, fc, c, "c", &opens) // a, the oldest, goes
	line(t, fc, b, "b", &opens)
	line(t, fc, a, "7", &opens) // opened again
	if opens != 3 || lines(t, a) != "1 2 3 4 5 6 7 " || lines(t, b) != "b b " {
		t.Errorf("max 2: %d opens, %q %q", opens, lines(t, a), lines(t, b))
	}
}

// A file renamed away (a rotation) is let go at the next look, valid
// after the last; one without lines for inactive is closed.
func TestFileCacheRotationAndInactive(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	fc := &FileCache{Max: 10, Inactive: 150 * time.Millisecond, MinUses: 1, Valid: 50 * time.Millisecond}
	defer fc.Close()
	opens := 0
	line(t, fc, a, "1", &opens)
	if err := os.Rename(a, a+".1"); err != nil {
		t.Fatal(err)
	}
	line(t, fc, a, "2", &opens) // within valid: still the old file
	time.Sleep(60 * time.Millisecond)
	line(t, fc, a, "3", &opens)
	if lines(t, a+".1") != "1 2 " || lines(t, a) != "3 " || opens != 2 {
		t.Errorf("rotation: %q, %q, %d opens", lines(t, a+".1"), lines(t, a), opens)
	}
	time.Sleep(200 * time.Millisecond)
	line(t, fc, a, "4", &opens)
	if opens != 3 {
		t.Errorf("inactive: %d opens", opens)
	}
}

// A retired cache keeps no file open: a line after it opens and closes.
func TestFileCacheRetired(t *testing.T) {
	a := filepath.Join(t.TempDir(), "a.log")
	fc := &FileCache{Max: 10, Inactive: time.Hour, MinUses: 1, Valid: time.Hour}
	opens := 0
	line(t, fc, a, "1", &opens)
	fc.Retire()
	line(t, fc, a, "2", &opens)
	line(t, fc, a, "3", &opens)
	if opens != 3 || fc.order.Len() != 0 || lines(t, a) != "1 2 3 " {
		t.Errorf("after Retire: %d opens, %d kept, %q", opens, fc.order.Len(), lines(t, a))
	}
}
