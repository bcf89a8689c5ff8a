//go:build !linux

package testuwsgi

import "os/exec"

// dieWithParent: only Linux has a parent-death signal; elsewhere a test
// killed midway may leave uWSGI running (Stop ends it otherwise).
func dieWithParent(*exec.Cmd) {}
