package static

import (
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
)

// opener opens and stats paths below a FileServer's root, never reaching
// outside it. On Linux it is openat2 (beneath_linux.go); elsewhere, and
// where the kernel lacks openat2, os.Root.
type opener interface {
	// open opens rel for reading and reports what it is.
	open(rel string) (descriptor, fileInfo, error)
	// stat reports what rel is without needing read permission.
	stat(rel string) (fileInfo, error)
	close() error
}

// descriptor is an open file as an opener returns it: an *os.File from
// os.Root, or an fdFile from openat2.
type descriptor interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
}

// fileInfo is what a request needs of fstat: the kind of file, its size
// and its modification time in Unix seconds (the precision of ETag and
// Last-Modified), and, where the opener knows it, the file's identity.
type fileInfo struct {
	kind  fileKind
	size  int64
	mtime int64
	id    fileID
}

// fileID tells whether a path still names the file a descriptor was opened
// on: the same inode, not changed since. Any write changes the
// modification time, and any chmod, chown, link, unlink or rename the
// change time (ctime), which no one can set. The zero fileID is unknown
// (the os.Root opener): such a file is always opened again.
type fileID struct {
	dev, ino     uint64
	mtime, ctime int64 // nanoseconds
	mode         uint32
}

// maxTraced is the depth up to which a kept descriptor can be checked by
// name: the check costs an lstat per path component, so from depth 3 on it
// would cost what an open, an fstat and a close cost.
const maxTraced = 2

// pathTrace is the way a path resolved when its file was opened beneath
// the root: for a file one directory down, that directory, by device and
// inode. A path traced went through no symbolic link and onto no other
// device, the file included, and lies on a local file system.
type pathTrace struct {
	dir    struct{ dev, ino uint64 }
	hasDir bool
}

// identifier is an opener that can confirm, with a stat of each component
// (lstat, following no link), that a path still resolves the way it did
// and to the same, unchanged file, so that the open file cache can check a
// kept descriptor against the path on every use. A path that resolves
// through the same directories, none of them a link, to the same inode
// resolves as an open beneath the root would, and lands on the file that
// open found.
type identifier interface {
	// trace records how rel, just opened and found to be info, resolves;
	// ok is false where it cannot be checked by name: too deep, through a
	// link or onto another device, on a network or FUSE file system, or
	// changed since the open.
	trace(rel string, info fileInfo) (t pathTrace, ok bool)
	// identify stats rel along t and returns what it names now; an error
	// if the way has changed.
	identify(rel string, t *pathTrace) (fileInfo, error)
}

type fileKind uint8

const (
	kindOther   fileKind = iota // FIFO, socket, device: never served
	kindRegular                 // served
	kindDir                     // redirected to, or its index served
)

// rootID tells root directories apart in the open file cache: by device
// and inode where the system has them, else by name; and by what links do
// below them, so that a file opened through a link for one location is
// not found in the cache by another that refuses links.
type rootID struct {
	dev, ino uint64
	name     string
	links    nolinks.Mode
}

// rootOpener opens through an os.Root, which opens every path component
// itself and so costs an openat and a close per directory level. When
// links are refused (links not 0), each component is looked at first.
type rootOpener struct {
	root  *os.Root
	links nolinks.Mode
}

// open uses O_NONBLOCK so that a FIFO cannot block the open until a writer
// appears (it is then refused as not a regular file); regular files ignore
// the flag, and it spares os.File the fcntl calls it otherwise makes to
// try the descriptor with the poller.
func (o rootOpener) open(rel string) (descriptor, fileInfo, error) {
	if o.links != 0 {
		if err := nolinks.Below(o.root, rel, o.links); err != nil {
			return nil, fileInfo{}, err
		}
	}
	f, err := o.root.OpenFile(rootPath(rel), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fileInfo{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fileInfo{}, err
	}
	return f, infoOf(fi), nil
}

func (o rootOpener) stat(rel string) (fileInfo, error) {
	if o.links != 0 {
		if err := nolinks.Below(o.root, rel, o.links); err != nil {
			return fileInfo{}, err
		}
	}
	fi, err := o.root.Stat(rootPath(rel))
	if err != nil {
		return fileInfo{}, err
	}
	return infoOf(fi), nil
}

func (o rootOpener) close() error { return o.root.Close() }

func infoOf(fi fs.FileInfo) fileInfo {
	kind := kindOther
	switch mode := fi.Mode(); {
	case mode.IsRegular():
		kind = kindRegular
	case mode.IsDir():
		kind = kindDir
	}
	return fileInfo{kind: kind, size: fi.Size(), mtime: fi.ModTime().Unix()}
}

// rootPath turns the empty path, which names the root itself, into ".",
// which os.Root and openat2 accept.
func rootPath(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

// linkedRoot is the opener of a root whose own path goes through a link
// while links are refused everywhere (RefuseSymlinks): every path below it
// is refused with err.
type linkedRoot struct {
	err error
	op  opener // closed with it
}

func (l linkedRoot) open(string) (descriptor, fileInfo, error) { return nil, fileInfo{}, l.err }

func (l linkedRoot) stat(string) (fileInfo, error) { return fileInfo{}, l.err }

func (l linkedRoot) close() error { return l.op.close() }
