package testuwsgi

import (
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel kill cmd when the test process dies, so
// that a test killed midway leaves no uWSGI running.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
