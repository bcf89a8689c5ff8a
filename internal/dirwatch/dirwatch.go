// Package dirwatch notices when a directory's name comes to mean another
// directory: an atomic deploy that points a symbolic link (current ->
// releases/N) at a new release. NGINX opens files by path and serves the
// new release at once; a server that holds its roots open would go on
// serving the old one, so it asks Stale now and then and reopens.
package dirwatch

import (
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// Interval is how often a name is looked up again: a switched root is
// served within about this long, for one stat(2) per root per interval.
const Interval = time.Second

// Name is one directory name and what it meant when opened.
type Name struct {
	name    string
	info    os.FileInfo
	checked atomic.Int64 // Unix nanoseconds of the last look
}

// New records what name means now (at now).
func New(name string, now time.Time) (*Name, error) {
	info, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	n := &Name{name: name, info: info}
	n.checked.Store(now.UnixNano())
	return n, nil
}

// Stale reports whether name has come to mean another directory, or
// none. It looks at most once per Interval (one caller looks; the others
// meanwhile report false), so it is cheap to ask on every request.
func (n *Name) Stale(now time.Time) bool {
	last := n.checked.Load()
	t := now.UnixNano()
	if t-last < int64(Interval) || !n.checked.CompareAndSwap(last, t) {
		return false
	}
	info, err := os.Stat(n.name)
	return err != nil || !os.SameFile(info, n.info)
}

// OpenRoot opens the directory name as an os.Root. os.OpenRoot opens
// the name as it is and checks that it is a directory afterwards, so a
// FIFO there (a root or regex alias whose captured part names one)
// blocks the open, and the request, until a writer comes. With a slash
// after it the kernel refuses anything but a directory on the way
// (ENOTDIR), before any open.
func OpenRoot(name string) (*os.Root, error) {
	if !strings.HasSuffix(name, "/") {
		name += "/"
	}
	return os.OpenRoot(name)
}
