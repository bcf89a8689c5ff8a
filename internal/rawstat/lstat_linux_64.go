//go:build linux && (amd64 || arm64)

package rawstat

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Lstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW, a short path passed from
// the stack. newfstatat fills unix.Stat_t as it is laid out on these
// architectures.
//
// It is made raw, without telling the scheduler that the goroutine is in a
// system call: an ordinary call wakes the runtime's sysmon thread, which
// then naps and yields a few times a request. A stat that must read the
// disk holds the processor, and the collector's stop-the-world, for that
// read: callers keep to paths on a local file system (Local) whose
// entries are in the kernel's caches (see README).
func Lstatat(dirfd int, path string, st *unix.Stat_t) error {
	var buf PathBuf
	p, ok := buf.CString(path)
	if !ok {
		return unix.Fstatat(dirfd, path, st, unix.AT_SYMLINK_NOFOLLOW)
	}
	_, _, errno := unix.RawSyscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(p)),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// Fstat is fstat(2), made raw as Lstatat is. The descriptor's inode is in
// memory while it is open, so on a local file system the call copies it
// and does not wait; callers keep to descriptors of such file systems.
func Fstat(fd int, st *unix.Stat_t) error {
	_, _, errno := unix.RawSyscall(unix.SYS_FSTAT, uintptr(fd), uintptr(unsafe.Pointer(st)), 0)
	if errno != 0 {
		return errno
	}
	return nil
}
