// Package testmemcached runs the real memcached (Debian's memcached
// package) for tests of the memcached module: on a loopback port below
// the ephemeral range, TCP only ("-U 0"), stopped when the test ends.
package testmemcached

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testport"
)

// Server is a running memcached.
type Server struct {
	Addr string // 127.0.0.1:port
	cmd  *exec.Cmd
	done chan error
}

// Start runs memcached until the test ends; the test is skipped when it
// is not installed (.ci/run installs it).
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("memcached")
	if err != nil {
		t.Skip("memcached is not installed (.ci/run installs it)")
	}
	for range 5 {
		port, err := testport.Free()
		if err != nil {
			t.Fatal(err)
		}
		args := []string{"-l", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "0", "-m", "16", "-c", "64"}
		if os.Geteuid() == 0 {
			args = append(args, "-u", "root") // memcached will not run as root without -u
		}
		s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), done: make(chan error, 1)}
		s.cmd = exec.Command(bin, args...)
		s.cmd.Dir = t.TempDir()
		var out strings.Builder
		s.cmd.Stdout, s.cmd.Stderr = &out, &out
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { s.done <- s.cmd.Wait() }()
		if s.wait() {
			t.Cleanup(s.Stop)
			return s
		}
		s.Stop()
		t.Logf("memcached on port %d did not start: %s", port, out.String())
	}
	t.Fatal("memcached did not start")
	return nil
}

// wait reports whether the server accepts connections within 5 seconds.
func (s *Server) wait() bool {
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
		select {
		case <-s.done:
			s.done <- nil
			return false
		default:
		}
		if c, err := net.Dial("tcp", s.Addr); err == nil {
			c.Close()
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// Stop kills the server and waits for it; a second Stop does nothing.
func (s *Server) Stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill()
	err := <-s.done
	s.done <- err
}

// Set stores value under key (as memcached sees it: already escaped)
// with flags.
func (s *Server) Set(t testing.TB, key string, flags uint32, value string) {
	t.Helper()
	got := s.command(t, fmt.Sprintf("set %s %d 0 %d\r\n%s\r\n", key, flags, len(value), value), "STORED\r\n")
	if got != "STORED\r\n" {
		t.Fatalf("set %q: %q", key, got)
	}
}

// Stats returns the server's general statistics (curr_connections,
// total_connections, get_hits, ...).
func (s *Server) Stats(t testing.TB) map[string]string {
	t.Helper()
	out := s.command(t, "stats\r\n", "END\r\n")
	m := map[string]string{}
	for _, line := range strings.Split(out, "\r\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "STAT" {
			m[f[1]] = f[2]
		}
	}
	return m
}

// command sends cmd on a connection of its own and returns the answer up
// to and including the line end.
func (s *Server) command(t testing.TB, cmd, end string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(cmd)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	var b strings.Builder
	for !strings.HasSuffix(b.String(), end) {
		line, err := br.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			t.Fatalf("%q: %v after %q", cmd, err, b.String())
		}
		if strings.HasPrefix(line, "ERROR") || strings.Contains(line, "_ERROR") {
			break
		}
	}
	return b.String()
}

// Signal sends sig to the server: SIGSTOP makes it a server that accepts
// connections and never answers, until SIGCONT.
func (s *Server) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}
