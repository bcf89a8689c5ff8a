// Package procrss reads a process's resident memory on Linux, for the
// benchmark commands that measure what connections cost a server.
package procrss

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Of returns the resident memory of pid in bytes (VmRSS in
// /proc/PID/status).
func Of(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("resident memory of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("VmRSS of %d: %w", pid, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// Growth reads pid's resident memory, opens n connections to it with
// open, waits settle for the server to take them in, and reads it again.
// release closes the connections opened, whatever err says: the caller
// may look at the server while they are held first.
func Growth(pid, n int, settle time.Duration, open func() (net.Conn, error)) (before, after int64, release func(), err error) {
	conns := make([]net.Conn, 0, n)
	release = func() {
		for _, c := range conns {
			c.Close()
		}
	}
	if before, err = Of(pid); err != nil {
		return 0, 0, release, err
	}
	for range n {
		c, err := open()
		if err != nil {
			return before, 0, release, fmt.Errorf("after %d connections: %w", len(conns), err)
		}
		conns = append(conns, c)
	}
	time.Sleep(settle)
	after, err = Of(pid)
	return before, after, release, err
}
