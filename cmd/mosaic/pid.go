package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// signals are the names "mosaic -s" takes, with what NGINX's -s sends for
// each: stop and quit both end mosaic gracefully (see main's loop).
var signals = map[string]syscall.Signal{
	"stop":   syscall.SIGTERM,
	"quit":   syscall.SIGQUIT,
	"reopen": syscall.SIGUSR1,
	"reload": syscall.SIGHUP,
}

// writePid writes the process ID into path, through a file beside it
// renamed over it, so that a reader never finds it empty or half written.
func writePid(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".mosaic-pid-*")
	if err != nil {
		return fmt.Errorf("open() %q failed (%w)", path, err)
	}
	_, err = fmt.Fprintf(tmp, "%d\n", os.Getpid())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing pid file %q: %w", path, err)
	}
	return nil
}

// readPid returns the process ID that the file at path holds.
func readPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return 0, fmt.Errorf("open() %q failed (%w)", path, err)
	}
	s := strings.TrimSpace(string(b))
	pid, err := strconv.Atoi(s)
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("invalid PID number %q in %q", s, path)
	}
	return pid, nil
}

// removePid removes the file at path if it still holds this process's ID:
// one that another mosaic has written since is left to it.
func removePid(path string) error {
	if path == "" {
		return nil
	}
	if pid, err := readPid(path); err != nil || pid != os.Getpid() {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing pid file: %w", err)
	}
	return nil
}

// sendSignal is "mosaic -s name": the signal goes to the process whose ID
// the configuration's pid file holds.
func sendSignal(pidFile, name string) error {
	if pidFile == "" {
		return errors.New(`the configuration has no "pid" directive: no process to signal`)
	}
	pid, err := readPid(pidFile)
	if err != nil {
		return err
	}
	if err := syscall.Kill(pid, signals[name]); err != nil {
		return fmt.Errorf("kill(%d, %d) failed (%w)", pid, signals[name], err)
	}
	return nil
}
