//go:build !linux

package static

import (
	"os"
	"path/filepath"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
)

// newOpener returns the os.Root opener: openat2 is Linux's alone. The
// cache tells roots apart by their absolute name.
func newOpener(name string, root *os.Root, links nolinks.Mode) (opener, rootID, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return rootOpener{root, links}, rootID{name: abs, links: links}, nil
}

// reopen has no way to give a shared descriptor a file position of its
// own here; cached bodies are read at offsets.
func reopen(descriptor) descriptor { return nil }
