package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A reload sent while mosaic starts is taken once it runs, not the end of
// the process. The configuration file is a FIFO: opening it for writing
// returns once mosaic opens it to read, so the signal comes in the
// middle of the startup every time. (The signals were once set up after
// the sockets opened: Go's default for SIGHUP ended mosaic, which
// TestReloadAndGracefulStop hit now and then on a loaded machine.)
func TestSignalDuringStartup(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	path := filepath.Join(dir, "mosaic.fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startProc(t, dir, path)
	conf := func(body string) string {
		return fmt.Sprintf(`http { server { listen 127.0.0.1:%d; location / { return 200 %q; } } }`, port, body)
	}
	// feed writes one configuration into the FIFO once mosaic reads it;
	// before that, signal (if any) goes to mosaic.
	feed := func(text string, signal os.Signal) {
		t.Helper()
		opened := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err == nil {
				if signal != nil {
					err = p.cmd.Process.Signal(signal)
				}
				if _, werr := f.WriteString(text); err == nil {
					err = werr
				}
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			opened <- err
		}()
		select {
		case err := <-opened:
			if err != nil {
				t.Fatal(err)
			}
		case err := <-p.done:
			p.done <- err
			t.Fatalf("mosaic exited while it read its configuration: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("mosaic never read its configuration")
		}
	}
	feed(conf("first"), syscall.SIGHUP)
	// Then the reload reads the file again (once the first read is over:
	// a writer that opened the FIFO before would add to the first text).
	waitOutput(t, p, "mosaic started")
	feed(conf("second"), nil)
	waitOutput(t, p, "configuration reloaded")
	if _, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/", port)); body != "second" {
		t.Fatalf("body %q after the reload", body)
	}
}

// The pid directive, "mosaic -s", and the reopen of the log files on
// SIGUSR1 that log rotation relies on: Debian's logrotate script for
// NGINX renames the files and sends USR1 to the process in the pid file.
func TestPidFileSignalsAndReopen(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	conf := func(pid, body string) string {
		return fmt.Sprintf(`pid %s; error_log %s/error.log notice;
http { access_log %s/access.log combined buffer=32k flush=2s; server { listen 127.0.0.1:%d; location / { return 200 %q; } } }`, pid, dir, dir, port, body)
	}
	confPath := filepath.Join(dir, "mosaic.conf")
	pidA, pidB := filepath.Join(dir, "a.pid"), filepath.Join(dir, "b.pid")
	p := startMosaic(t, dir, conf(pidA, "first"), port)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	mosaic := func(args ...string) (string, error) {
		out, err := exec.Command(binPath, append([]string{"-c", confPath}, args...)...).CombinedOutput()
		return string(out), err
	}
	// The pid file is written once the sockets are open (and moved once
	// the reloaded configuration serves): it is waited for.
	checkPid := func(path string) {
		t.Helper()
		waitFile(t, path, strconv.Itoa(p.cmd.Process.Pid)+"\n")
	}
	checkPid(pidA)

	// -s reload.
	os.WriteFile(confPath, []byte(conf(pidA, "second")), 0o644)
	if out, err := mosaic("-s", "reload"); err != nil {
		t.Fatalf("-s reload: %v %s", err, out)
	}
	waitBody(t, base, "second")
	// A reload that names another pid file moves it. (-s would read the
	// new configuration's file, not there yet: NGINX's -s does the same.)
	os.WriteFile(confPath, []byte(conf(pidB, "third")), 0o644)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitBody(t, base, "third")
	checkPid(pidB)
	waitFor(t, "the old pid file to go", func() bool {
		_, err := os.Stat(pidA)
		return os.IsNotExist(err)
	})

	// Rotation: the files are renamed, lines go on into the renamed ones
	// until -s reopen, then into new files at the paths. The access log's
	// buffer is flushed into the renamed file before the reopen; the
	// notice goes into the renamed error log, as NGINX writes it.
	access, errlog := filepath.Join(dir, "access.log"), filepath.Join(dir, "error.log")
	for _, f := range []string{access, errlog} {
		if err := os.Rename(f, f+".1"); err != nil {
			t.Fatal(err)
		}
	}
	httpGet(t, base+"before-reopen")
	if out, err := mosaic("-s", "reopen"); err != nil {
		t.Fatalf("-s reopen: %v %s", err, out)
	}
	waitFile(t, errlog+".1", "reopening logs")
	waitFile(t, access+".1", "GET /before-reopen ")
	httpGet(t, base+"after-reopen")
	waitFile(t, access, "GET /after-reopen ")
	old, _ := os.ReadFile(access + ".1")
	if !strings.Contains(string(old), "GET /before-reopen ") || strings.Contains(string(old), "after-reopen") {
		t.Fatalf("the renamed access log:\n%s", old)
	}
	if now, _ := os.ReadFile(access); strings.Contains(string(now), "before-reopen") {
		t.Fatalf("the new access log:\n%s", now)
	}

	// -s quit: a graceful stop, and the pid file goes.
	if out, err := mosaic("-s", "quit"); err != nil {
		t.Fatalf("-s quit: %v %s", err, out)
	}
	waitExit(t, p)
	if _, err := os.Stat(pidB); !os.IsNotExist(err) {
		t.Fatalf("the pid file stays after the stop: %v", err)
	}
	// Nothing runs now: -s says so, naming the file.
	if out, err := mosaic("-s", "stop"); err == nil || !strings.Contains(out, pidB) {
		t.Fatalf("-s stop with no pid file: %v %s", err, out)
	}
}

// -s takes NGINX's four names, and needs a pid directive to find the
// process.
func TestSignalOptionErrors(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "mosaic.conf")
	os.WriteFile(conf, []byte("http { server { listen 127.0.0.1:1; return 200 x; } }\n"), 0o644)
	out, err := exec.Command(binPath, "-c", conf, "-s", "restart").CombinedOutput()
	if code := exitCode(err); code != 2 || !strings.Contains(string(out), `invalid option: "-s restart"`) {
		t.Fatalf("-s restart: exit %d %q", code, out)
	}
	out, err = exec.Command(binPath, "-c", conf, "-s", "reload").CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), `no "pid" directive`) {
		t.Fatalf("-s reload without pid: exit %d %q", code, out)
	}
	os.WriteFile(filepath.Join(dir, "x.pid"), []byte("none\n"), 0o644)
	os.WriteFile(conf, []byte("pid x.pid;\nhttp { server { listen 127.0.0.1:1; return 200 x; } }\n"), 0o644)
	cmd := exec.Command(binPath, "-c", conf, "-s", "reload")
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(out), `invalid PID number "none"`) {
		t.Fatalf("-s reload with a bad pid file: exit %d %q", code, out)
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// waitFile waits until the file at path contains want.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("%s lacks %q:\n%s", path, want, b)
}
