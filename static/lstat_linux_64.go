//go:build linux && (amd64 || arm64)

package static

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW, a short path passed from
// the stack: the checked cache makes it for every request. newfstatat
// fills unix.Stat_t as it is laid out on these architectures.
//
// It is made raw, without telling the scheduler that the goroutine is in a
// system call: an ordinary call wakes the runtime's sysmon thread, which
// then naps and yields a few times a request. Only the checked cache calls
// it, for paths on local file systems that were resolved moments before
// (see README, "The checked cache's calls without the scheduler"), whose
// entries are in the kernel's caches; a stat that must read the disk
// holds the processor, and the collector's stop-the-world, for that read.
func lstatat(dirfd int, path string, st *unix.Stat_t) error {
	var buf pathBuf
	p, ok := buf.cstring(path)
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
