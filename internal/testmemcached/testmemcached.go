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
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testport"
)

// Server is a running memcached.
type Server struct {
	Network string // "tcp" or "unix"
	Addr    string // 127.0.0.1:port, or the socket's path
	cmd     *exec.Cmd
	done    chan error
}

// Start runs memcached on a loopback port until the test ends; the test
// is skipped when it is not installed (.ci/run installs it).
func Start(t testing.TB) *Server {
	t.Helper()
	for range 5 {
		port, err := testport.Free()
		if err != nil {
			t.Fatal(err)
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		if s := start(t, "tcp", addr, "-l", "127.0.0.1", "-p", fmt.Sprint(port)); s != nil {
			return s
		}
	}
	t.Fatal("memcached did not start")
	return nil
}

// StartUnix runs memcached on a Unix-domain socket in a temporary
// directory (Addr is its path) until the test ends.
func StartUnix(t testing.TB) *Server {
	t.Helper()
	path := filepath.Join(t.TempDir(), "memcached.sock")
	s := start(t, "unix", path, "-s", path, "-a", "0666")
	if s == nil {
		t.Fatal("memcached did not start")
	}
	return s
}

// start runs memcached with args, listening on addr, and returns nil when
// it does not accept connections there.
func start(t testing.TB, network, addr string, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("memcached")
	if err != nil {
		t.Skip("memcached is not installed (.ci/run installs it)")
	}
	args = append(args, "-U", "0", "-m", "16", "-c", "64")
	if os.Geteuid() == 0 {
		args = append(args, "-u", "root") // memcached will not run as root without -u
	}
	s := &Server{Network: network, Addr: addr, done: make(chan error, 1)}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = t.TempDir()
	out := &syncbuf.Buffer{}
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- s.cmd.Wait() }()
	if !s.wait() {
		s.Stop()
		t.Logf("memcached on %s did not start: %s", addr, out.String())
		return nil
	}
	t.Cleanup(s.Stop)
	return s
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
		if c, err := net.Dial(s.Network, s.Addr); err == nil {
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
	m := map[string]string{}
	for _, f := range s.stats(t, "stats") {
		m[f[0]] = f[1]
	}
	return m
}

// ClientAddrs returns the addresses that the server's open client
// connections come from ("stats conns"), this call's own included.
func (s *Server) ClientAddrs(t testing.TB) []string {
	t.Helper()
	var addrs []string
	for _, f := range s.stats(t, "stats conns") {
		// "<fd>:addr tcp:127.0.0.2:40000", listening sockets included:
		// those have no listen_addr line, but their addr is the
		// server's own, which a client's never is.
		if strings.HasSuffix(f[0], ":addr") && f[1] != "tcp:"+s.Addr {
			addrs = append(addrs, strings.TrimPrefix(f[1], "tcp:"))
		}
	}
	return addrs
}

// stats returns the name and value of each line of a stats command.
func (s *Server) stats(t testing.TB, cmd string) [][2]string {
	t.Helper()
	var lines [][2]string
	for _, line := range strings.Split(s.command(t, cmd+"\r\n", "END\r\n"), "\r\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "STAT" {
			lines = append(lines, [2]string{f[1], f[2]})
		}
	}
	return lines
}

// command sends cmd on a connection of its own and returns the answer up
// to and including the line end.
func (s *Server) command(t testing.TB, cmd, end string) string {
	t.Helper()
	c, err := net.DialTimeout(s.Network, s.Addr, 5*time.Second)
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
