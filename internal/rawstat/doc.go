// Package rawstat stats files with system calls that the Go scheduler is
// not told about, for the paths a server looks up on every request, and
// tells which file systems such a stat may be trusted on.
//
// An ordinary system call (syscall.Syscall) wakes the runtime's sysmon
// thread when it sleeps, and sysmon then naps and yields a few times: on
// an idle server, four calls and more for the one the request made.
// Lstatat and Fstat make their calls raw on 64-bit Linux; Local says
// whether a directory lies on a local file system, whose stat of a cached
// entry or of an open file does not wait.
package rawstat
