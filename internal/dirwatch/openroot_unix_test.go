//go:build unix

package dirwatch

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestOpenRootRefusesFIFO: a FIFO named as a root is refused at once;
// os.OpenRoot would wait in open(2) for a writer.
func TestOpenRootRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		r, err := OpenRoot(fifo)
		if err == nil {
			r.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, syscall.ENOTDIR) {
			t.Fatalf("OpenRoot(fifo) = %v, want ENOTDIR", err)
		}
	case <-time.After(5 * time.Second):
		// Unblock the open so the test ends.
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		t.Fatal("OpenRoot(fifo) blocked")
	}
	for _, name := range []string{dir, dir + "/"} {
		r, err := OpenRoot(name)
		if err != nil {
			t.Fatalf("OpenRoot(%q): %v", name, err)
		}
		if _, err := r.Stat("fifo"); err != nil {
			t.Errorf("Stat through OpenRoot(%q): %v", name, err)
		}
		r.Close()
	}
}
