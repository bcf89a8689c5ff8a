package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Lines written while the file is renamed and reopened, again and again,
// all land in one file or another, whole.
func TestReopenLogsLosesNoLine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	cfg := &Config{}
	defer cfg.Close()
	w, err := cfg.OpenLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const writers, lines, rotations = 4, 500, 20
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range lines {
				if _, err := fmt.Fprintf(w, "writer %d line %d\n", g, i); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	for k := range rotations {
		if err := os.Rename(path, fmt.Sprintf("%s.%d", path, k)); err != nil {
			t.Fatal(err)
		}
		if err := cfg.ReopenLogs(); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	seen := map[string]bool{}
	files, _ := filepath.Glob(path + "*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			if l != "" {
				seen[l] = true
			}
		}
	}
	if len(seen) != writers*lines {
		t.Fatalf("%d distinct lines in %d files, want %d", len(seen), len(files), writers*lines)
	}
}

// A file that cannot be opened again keeps the old one, and the error
// names it.
func TestReopenLogsKeepsTheOldFileOnError(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "logs")
	os.Mkdir(sub, 0o755)
	path := filepath.Join(sub, "error.log")
	cfg := &Config{}
	defer cfg.Close()
	w, err := cfg.OpenLogFile(path)
	if err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "moved")
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	if err := cfg.ReopenLogs(); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("reopen into a missing directory: %v", err)
	}
	fmt.Fprintln(w, "still written")
	if b, _ := os.ReadFile(filepath.Join(moved, "error.log")); string(b) != "still written\n" {
		t.Fatalf("the old file holds %q", b)
	}
}
