// Package nginxdiff starts Debian's NGINX and a mosaic binary on the same
// configuration (or runs their -t on it) and exchanges raw bytes with
// them, and files the differences it finds by class, for the random
// differential tools in the directories under it. Only those import it;
// see README.md.
package nginxdiff

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testport"
)

// The flags both tools take: the two binaries and the work directory.
var (
	NGINXBin  = flag.String("nginx", "/usr/sbin/nginx", "NGINX binary")
	MosaicBin = flag.String("mosaic", "mosaic", "mosaic binary")
	workDir   = flag.String("dir", "", "directory for the files, configurations and logs (kept); default a temporary one, removed")
)

// Main parses the flags and calls run with the work directory (-dir, or a
// temporary one removed once run returns); an error is logged under the
// tool's name and ends the process with status 1.
func Main(name string, run func(dir string) error) {
	flag.Parse()
	err := func() error {
		dir := *workDir
		if dir == "" {
			d, err := os.MkdirTemp("", "nginxdiff-"+name)
			if err != nil {
				return fmt.Errorf("work directory: %w", err)
			}
			defer os.RemoveAll(d)
			dir = d
		}
		return run(dir)
	}()
	if err != nil {
		slog.Error(name, "err", err)
		os.Exit(1)
	}
}

// Config returns what goes inside the http block for one server: dir is
// its own work directory (for caches and temp paths) and ports the
// loopback ports it listens on.
type Config func(dir string, ports []int) string

// Side is one of the two servers.
type Side struct {
	Name  string
	Dir   string
	Ports []int
	cmd   *exec.Cmd
}

// Pair is NGINX and mosaic, each on its own ports, under one directory.
type Pair struct {
	NGINX, Mosaic Side
	stopping      chan struct{}
	stop          sync.Once
}

// Start writes the configuration that cfg gives into dir/nginx and
// dir/mosaic, starts both binaries on it, each with nports fresh ports,
// and waits until every port answers. The same text goes to both: mosaic
// reads NGINX's main-level directives (daemon, pid, events, temp paths).
func Start(nginxBin, mosaicBin, dir string, nports int, cfg Config) (*Pair, error) {
	return StartMain(nginxBin, mosaicBin, dir, nports, "", cfg)
}

// StartMain is Start with main added to the main block, for the
// load_module lines of NGINX's dynamic modules (ngx_brotli), which mosaic
// reads and needs nothing for.
func StartMain(nginxBin, mosaicBin, dir string, nports int, main string, cfg Config) (*Pair, error) {
	p := &Pair{stopping: make(chan struct{})}
	for _, s := range []struct {
		side *Side
		name string
		bin  string
	}{{&p.NGINX, "nginx", nginxBin}, {&p.Mosaic, "mosaic", mosaicBin}} {
		if err := s.side.start(s.name, s.bin, filepath.Join(dir, s.name), nports, main, cfg); err != nil {
			p.Stop()
			return nil, err
		}
		go p.watch(s.side)
	}
	for _, s := range []*Side{&p.NGINX, &p.Mosaic} {
		for _, port := range s.Ports {
			if err := waitPort(port); err != nil {
				p.Stop()
				return nil, fmt.Errorf("%s (log in %s): %w", s.Name, s.Dir, err)
			}
		}
	}
	return p, nil
}

func (s *Side) start(name, bin, dir string, nports int, main string, cfg Config) error {
	conf, err := s.write(name, dir, nports, main, cfg)
	if err != nil {
		return err
	}
	args := []string{"-c", conf}
	if name == "nginx" {
		args = nginxArgs(dir, conf)
	}
	out, err := os.Create(filepath.Join(dir, "out.log"))
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	return nil
}

// nginxArgs are NGINX's arguments for the configuration conf: -p and -e
// keep it off its compiled-in prefix and log, which need root.
func nginxArgs(dir, conf string) []string {
	return []string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log")}
}

// Verdict is what one binary's -t said of a configuration: whether it
// accepted it, and its output.
type Verdict struct {
	OK  bool
	Out string
}

// Test writes the configuration that cfg gives into dir/nginx and
// dir/mosaic, as Start does, and runs each binary's -t on it: a tool
// that draws configurations compares the verdicts before it serves the
// ones both accept.
func Test(nginxBin, mosaicBin, dir string, nports int, cfg Config) (nginx, mosaic Verdict, err error) {
	for _, s := range []struct {
		v    *Verdict
		name string
		bin  string
	}{{&nginx, "nginx", nginxBin}, {&mosaic, "mosaic", mosaicBin}} {
		var side Side
		d := filepath.Join(dir, s.name)
		conf, err := side.write(s.name, d, nports, "", cfg)
		if err != nil {
			return nginx, mosaic, err
		}
		args := []string{"-t", "-c", conf}
		if s.name == "nginx" {
			args = append([]string{"-t"}, nginxArgs(d, conf)...)
		}
		cmd := exec.Command(s.bin, args...)
		cmd.Dir = d
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			return nginx, mosaic, fmt.Errorf("%s -t: %w", s.name, err)
		}
		*s.v = Verdict{OK: err == nil, Out: string(out)}
	}
	return nginx, mosaic, nil
}

// write makes dir, draws nports fresh ports and writes the configuration
// file, main's lines in its main block, and returns the file's path.
func (s *Side) write(name, dir string, nports int, main string, cfg Config) (string, error) {
	s.Name, s.Dir = name, dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	for range nports {
		port, err := testport.Free()
		if err != nil {
			return "", fmt.Errorf("%s: %w", name, err)
		}
		s.Ports = append(s.Ports, port)
	}
	conf := filepath.Join(dir, name+".conf")
	text := fmt.Sprintf(`%[3]sdaemon off; master_process off; worker_processes 1;
error_log %[1]s/error.log info; pid %[1]s/nginx.pid;
events { worker_connections 512; }
http {
	client_body_temp_path %[1]s/body; proxy_temp_path %[1]s/proxy; fastcgi_temp_path %[1]s/fcgi;
	uwsgi_temp_path %[1]s/uwsgi; scgi_temp_path %[1]s/scgi;
	access_log off;
%[2]s
}
`, dir, cfg(dir, s.Ports), main)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return conf, nil
}

// watch ends the program when a server dies before Stop: every case
// after it would count as a difference and bury what the run found.
func (p *Pair) watch(s *Side) {
	err := s.cmd.Wait()
	select {
	case <-p.stopping:
		return
	default:
	}
	slog.Error("server exited during the run", "server", s.Name, "err", err, "log", filepath.Join(s.Dir, "out.log"))
	// The other one would outlive the tool (a configuration mosaic
	// refuses leaves NGINX running otherwise).
	p.Stop()
	os.Exit(3)
}

// Stop kills both servers.
func (p *Pair) Stop() {
	p.stop.Do(func() {
		close(p.stopping)
		for _, s := range []*Side{&p.NGINX, &p.Mosaic} {
			if s.cmd != nil && s.cmd.Process != nil {
				s.cmd.Process.Kill()
			}
		}
	})
}

func waitPort(port int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var err error
	for range 200 {
		var c net.Conn
		if c, err = net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("port %d never opened: %w", port, err)
}

// Exchange sends raw to port on loopback and reads what comes back until
// the server closes (closed is true), nothing comes for quiet, or total
// has passed. The quiet limit is what tells a server that keeps the
// connection open, waiting for more, from one that closed it: heads
// compares that too.
func Exchange(port int, raw []byte, quiet, total time.Duration) (got []byte, closed bool, err error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		return nil, false, fmt.Errorf("dial: %w", err)
	}
	defer c.Close()
	if _, err := c.Write(raw); err != nil {
		return nil, false, fmt.Errorf("write: %w", err)
	}
	var b bytes.Buffer
	buf := make([]byte, 64<<10)
	end := time.Now().Add(total)
	for time.Now().Before(end) {
		d := time.Now().Add(quiet)
		if d.After(end) {
			d = end
		}
		c.SetReadDeadline(d)
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				break
			}
			// An end of file or a reset: either way the server is done.
			return b.Bytes(), true, nil
		}
	}
	return b.Bytes(), false, nil
}

// Trunc keeps a report's line readable beside long bodies: s cut to n
// bytes, its whole length after it, where it is longer.
func Trunc(s string, n int) string {
	if len(s) > n {
		return fmt.Sprintf("%s...(%d)", s[:n], len(s))
	}
	return s
}

// Send sends one request that asks for Connection: close, reads the
// answer to the server's close and parses it; method tells a HEAD's
// answer, which has no body whatever its length says.
func Send(port int, raw, method string) (*http.Response, []byte, error) {
	all, _, err := Exchange(port, []byte(raw), 10*time.Second, 10*time.Second)
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("empty answer: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), &http.Request{Method: method})
	if err != nil {
		return nil, nil, fmt.Errorf("parse: %w: %q", err, all)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp, body, fmt.Errorf("body: %w", err)
	}
	return resp, body, nil
}
