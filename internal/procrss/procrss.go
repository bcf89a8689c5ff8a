// Package procrss reads a process's resident memory on Linux, for the
// benchmark commands that measure what connections cost a server.
package procrss

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
