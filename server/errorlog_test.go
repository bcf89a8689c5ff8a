package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
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

// A line that quotes 64 KB of client input is cut at NGINX's 2,048
// bytes, at a rune boundary, and says so; short lines go through whole.
func TestErrorLogLinesBounded(t *testing.T) {
	var out strings.Builder
	lg := NewLogger(&out, LevelNotice)
	lg.Error("short", "uri", "/a")
	// "é" is two bytes: the cut falls inside one for some prefix length.
	for pad := range 2 {
		lg.Error("static: open failed", "path", strings.Repeat("x", pad)+strings.Repeat("é", 32<<10))
	}
	lines := strings.SplitAfter(out.String(), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("got %d lines, want 3", len(lines)-1)
	}
	if !strings.Contains(lines[0], `msg=short uri=/a`) || strings.Contains(lines[0], "[cut]") {
		t.Errorf("short line changed: %q", lines[0])
	}
	for _, l := range lines[1:3] {
		if len(l) > MaxLogLine || len(l) < MaxLogLine-utf8.UTFMax {
			t.Errorf("line of %d bytes, want at most %d and close to it", len(l), MaxLogLine)
		}
		if !utf8.ValidString(l) || !strings.HasSuffix(l, "é"+cutMark) {
			t.Errorf("line ends %q, want a whole rune and %q", l[len(l)-16:], cutMark)
		}
	}
}
