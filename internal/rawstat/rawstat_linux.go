package rawstat

import (
	"strings"

	"golang.org/x/sys/unix"
)

// PathBuf holds a short path NUL-terminated on the caller's stack, for
// the system calls made for every request, where unix's wrappers copy
// the path to the heap.
type PathBuf [256]byte

// CString copies path into b and returns its first byte; false for a path
// too long for b, or holding a NUL (which the kernel refuses anyway).
func (b *PathBuf) CString(path string) (*byte, bool) {
	if len(path) >= len(b) || strings.IndexByte(path, 0) >= 0 {
		return nil, false
	}
	copy(b[:], path)
	b[len(path)] = 0
	return &b[0], true
}

// Local reports whether the directory dirfd lies on a local file system
// that is known to keep no attribute cache apart from the disk.
func Local(dirfd int) bool {
	var sfs unix.Statfs_t
	if err := unix.Fstatfs(dirfd, &sfs); err != nil {
		return false
	}
	switch uint32(sfs.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC,
		unix.OVERLAYFS_SUPER_MAGIC, unix.F2FS_SUPER_MAGIC, unix.RAMFS_MAGIC, unix.SQUASHFS_MAGIC,
		zfsSuperMagic:
		return true
	}
	return false
}

// zfsSuperMagic is OpenZFS's statfs type, which x/sys/unix does not name.
const zfsSuperMagic = 0x2fc12fc1
