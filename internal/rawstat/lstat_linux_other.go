//go:build linux && !amd64 && !arm64

package rawstat

import "golang.org/x/sys/unix"

// Lstatat is fstatat(2) with AT_SYMLINK_NOFOLLOW.
func Lstatat(dirfd int, path string, st *unix.Stat_t) error {
	return unix.Fstatat(dirfd, path, st, unix.AT_SYMLINK_NOFOLLOW)
}

// Fstat is fstat(2).
func Fstat(fd int, st *unix.Stat_t) error { return unix.Fstat(fd, st) }
