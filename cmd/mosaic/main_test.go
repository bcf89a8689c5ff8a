package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/cbrotli"
	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testport"
)

// The integration tests run the real binary, built once.
var binPath string

// checkPath is the binary the tests run for "mosaic -t": binPath built
// without the race detector when the tests run under it. A check loads
// the configuration on one goroutine and exits, so the detector has
// nothing to find there that it does not find in the servers the tests
// start from binPath (which load the same configurations, and reload
// them while serving) or in TestDirectiveArgumentsAsNGINX (which loads
// thousands of them in this process, two at a time); but a race-built
// program takes about 90 ms of CPU to check a small configuration where
// this one takes 26 ms, and the tests run "mosaic -t" hundreds of times.
var checkPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mosaic-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "mosaic")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
		// A race-built program sleeps a second as it exits, for other
		// threads to finish a report (the detector's atexit_sleep_ms):
		// the tests run the binary to its end ("mosaic -t") hundreds of
		// times. A race found is still reported when it is found, and
		// still fails the exit status.
		if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
			os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
		}
	}
	builds := [][]string{args}
	checkPath = binPath
	if raceEnabled {
		checkPath = filepath.Join(dir, "mosaic-check")
		builds = append(builds, []string{"build", "-o", checkPath})
	}
	// The builds run at once: the second one's link would add seconds
	// to the package's time.
	outs := make([]bytes.Buffer, len(builds))
	cmds := make([]*exec.Cmd, len(builds))
	for i, args := range builds {
		cmds[i] = exec.Command("go", append(args, ".")...)
		cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
		if err := cmds[i].Start(); err != nil {
			fmt.Fprintf(os.Stderr, "building mosaic: %v\n", err)
			os.Exit(1)
		}
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			fmt.Fprintf(os.Stderr, "building mosaic (%s): %v\n%s", builds[i][2], err, outs[i].Bytes())
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	cbrotli.Cleanup()
	os.Exit(code)
}

// waitCeiling bounds the tests' waits for what a server does in its own
// time (a log line written after the answer, a reload, a store
// update): reached only when it never comes, so it may be long enough for
// a loaded machine (a race-built binary on two cores shared by many
// tests) without slowing a test that passes.
const waitCeiling = 30 * time.Second

// freePort returns a loopback port that was free a moment ago, below the
// kernel's ephemeral range (internal/testport).
func freePort(t *testing.T) int {
	t.Helper()
	p, err := testport.Free()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// refusedPort returns a loopback port that refuses connections until the
// test ends, for a server that is down (testport.Refused). A port that
// freePort returns is free only until another test, run in parallel,
// starts a server on it.
func refusedPort(t *testing.T) int {
	t.Helper()
	p, release, err := testport.Refused()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release() })
	return p
}

// syncBuffer collects a process's output safely.
type syncBuffer = syncbuf.Buffer

type proc struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error
}

// startMosaic writes conf (with {port} replaced) into dir and runs the
// binary on it until the test ends; it waits until port accepts, and every
// other loopback address the configuration listens on (127.0.0.1, [::1],
// [::] dialled on [::1]): mosaic binds its
// listeners one after another, in no set order, so that a test which
// dials a second one (TLS beside plain) as soon as the first accepts
// could find it closed.
func startMosaic(t *testing.T, dir, conf string, port int) *proc {
	t.Helper()
	conf = strings.ReplaceAll(conf, "{port}", fmt.Sprint(port))
	path := filepath.Join(dir, "mosaic.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p := runMosaic(t, dir, path, port)
	for _, m := range loopbackListen.FindAllStringSubmatch(conf, -1) {
		// An IPv6 listener ([::1], or the wildcard [::]) is dialled on
		// [::1]: the IPv4 one on the same port says nothing of it.
		network, host := "tcp4", "127.0.0.1"
		if m[1] != "127.0.0.1" {
			network, host = "tcp6", "::1"
		}
		if network != "tcp4" || m[2] != strconv.Itoa(port) {
			waitAddr(t, network, net.JoinHostPort(host, m[2]), p)
		}
	}
	return p
}

// loopbackListen finds a configuration's listen directives on 127.0.0.1,
// [::1] and [::]: the host, then the port.
var loopbackListen = regexp.MustCompile(`listen\s+(127\.0\.0\.1|\[::1?\]):(\d+)`)

// runMosaic runs the binary on the configuration file path, in the
// working directory dir, until the test ends; it waits until port accepts.
func runMosaic(t *testing.T, dir, path string, port int) *proc {
	t.Helper()
	p := startProc(t, dir, path)
	waitPort(t, port, p)
	return p
}

// startProc starts the binary on the configuration file path, in the
// working directory dir, and stops it when the test ends.
func startProc(t *testing.T, dir, path string) *proc {
	t.Helper()
	p := &proc{out: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binPath, "-c", path)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("mosaic output:\n%s", p.out.String())
		}
	})
	return p
}

func waitPort(t *testing.T, port int, p *proc) {
	t.Helper()
	waitAddr(t, "tcp4", fmt.Sprintf("127.0.0.1:%d", port), p)
}

// waitAddr waits until addr accepts, or fails the test if the server
// exits first. The bound is for a server that hangs as it starts; one
// that starts under load (a race-built binary, on a CPU shared by many
// tests) has up to a minute.
func waitAddr(t *testing.T, network, addr string, p *proc) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		c, err := net.Dial(network, addr)
		if err == nil {
			c.Close()
			return
		}
		select {
		case err := <-p.done:
			p.done <- err // for the cleanup, which waits for the exit too
			t.Fatalf("mosaic exited: %v\n%s", err, p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("%s never opened\n%s", addr, p.out.String())
}

// waitUnix waits until the Unix-domain socket at path accepts: mosaic
// binds its listeners one after another, so a socket beside the port
// startMosaic waited for may still be closed.
func waitUnix(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never accepted: %v", path, err)
		}
	}
}

func httpGet(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestVersionAndConfigTest(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(binPath, "-v").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "mosaic version ") {
		t.Fatalf("-v: %v %q", err, out)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.conf")
	os.WriteFile(good, []byte("events {}\nhttp { server { listen 127.0.0.1:1; return 200 x; } }\n"), 0o644)
	out, err = exec.Command(checkPath, "-t", "-c", good).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "configuration file "+good+" test is successful") {
		t.Fatalf("-t good: %v %q", err, out)
	}
	bad := filepath.Join(dir, "bad.conf")
	os.WriteFile(bad, []byte("http {\n  server {\n    brotly on;\n  }\n}\n"), 0o644)
	cmd := exec.Command(checkPath, "-t", "-c", bad)
	out, err = cmd.CombinedOutput()
	if err == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("-t bad: exit %v", err)
	}
	if want := `unknown directive "brotly" in ` + bad + `:3`; !strings.Contains(string(out), want) {
		t.Fatalf("-t bad output %q, want %q", out, want)
	}
}

func TestReloadAndGracefulStop(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, `http { server { listen 127.0.0.1:{port}; location / { return 200 "first"; } } }`, port)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	if _, body := httpGet(t, base); body != "first" {
		t.Fatalf("body %q", body)
	}
	// Keep a connection open across the reload: the socket must survive.
	os.WriteFile(filepath.Join(dir, "mosaic.conf"), []byte(fmt.Sprintf(`http { server { listen 127.0.0.1:%d; location / { return 200 "second"; } } }`, port)), 0o644)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitBody(t, base, "second")

	// A broken configuration is refused; the old one keeps serving.
	os.WriteFile(filepath.Join(dir, "mosaic.conf"), []byte("http { server { brotly; } }"), 0o644)
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitOutput(t, p, "reload failed")
	if _, body := httpGet(t, base); body != "second" {
		t.Fatalf("after failed reload: %q", body)
	}

	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
		p.done <- nil // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}

func waitBody(t *testing.T, url, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var body string
	for time.Now().Before(deadline) {
		_, body = httpGet(t, url)
		if body == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("body %q, want %q", body, want)
}

func waitOutput(t *testing.T, p *proc, want string) {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for time.Now().Before(deadline) {
		if strings.Contains(p.out.String(), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("output lacks %q:\n%s", want, p.out.String())
}

// awaitSignal waits for a value on ch, which a test's server sends when
// what happens, and fails the test if it never comes (by waitCeiling).
func awaitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(waitCeiling):
		t.Fatalf("%s never came", what)
	}
}

// countOutput waits until p's output has want occurrences of s, or
// waitCeiling, and returns how many it has: a server may write a line for
// a request after its answer.
func countOutput(p *proc, s string, want int) int {
	deadline := time.Now().Add(waitCeiling)
	for {
		n := strings.Count(p.out.String(), s)
		if n >= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Without -c and without ./mosaic.conf, mosaic serves the working
// directory on 127.0.0.1:8080 and says so in one line.
func TestBuiltinDefault(t *testing.T) {
	if l, err := net.Listen("tcp4", "127.0.0.1:8080"); err != nil {
		t.Skip("127.0.0.1:8080 is taken")
	} else {
		l.Close()
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hi from cwd"), 0o644)
	p := &proc{out: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd = exec.Command(binPath)
	p.cmd.Dir = dir
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	defer func() { p.cmd.Process.Kill(); <-p.done }()
	waitPort(t, 8080, p)
	if _, body := httpGet(t, "http://127.0.0.1:8080/hello.txt"); body != "hi from cwd" {
		t.Fatalf("body %q", body)
	}
	if n := strings.Count(p.out.String(), "serving the current directory"); n != 1 {
		t.Fatalf("notice printed %d times:\n%s", n, p.out.String())
	}
}
