// Command idle measures what an idle keep-alive connection costs a server:
// it starts the mosaic binary and Debian's NGINX (one worker each) on
// loopback ports, serving a small file, opens -n connections to each that
// make one request and then wait, and prints the growth of the server
// process's resident memory (VmRSS in /proc/PID/status) divided by the
// number of connections.
//
//	ulimit -n 30000; go run ./http1/bench/idle -mosaic ./mosaic [-n 5000]
//
// The file descriptor limit must leave room for both ends of every
// connection (the client's here, the server's in the server), which
// http1/bench/idle.sh sees to.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mosaic-edge/mosaic/internal/procrss"
)

func main() {
	mosaic := flag.String("mosaic", "", "the mosaic binary (required)")
	nginx := flag.String("nginx", "/usr/sbin/nginx", "the nginx binary; empty to skip it")
	n := flag.Int("n", 5000, "idle connections per server")
	settle := flag.Duration("settle", 3*time.Second, "wait before reading the memory")
	flag.Parse()
	if *mosaic == "" {
		log.Fatal("-mosaic is required")
	}
	dir, err := os.MkdirTemp("", "idle-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), []byte(strings.Repeat("x", 4096)), 0o644); err != nil {
		log.Fatal(err)
	}
	servers := []struct{ name, bin, port string }{{"mosaic", *mosaic, "18301"}, {"nginx", *nginx, "18302"}}
	for _, s := range servers {
		if s.bin == "" {
			continue
		}
		perConn, base, err := measure(dir, s.name, s.bin, s.port, *n, *settle)
		if err != nil {
			log.Fatalf("%s: %v", s.name, err)
		}
		fmt.Printf("%-7s %6d idle connections: %7.2f KB RSS each (%d KB before them)\n", s.name, *n, perConn/1024, base/1024)
	}
}

// measure starts one server, opens n idle connections to it and returns
// the RSS per connection and the RSS before them, in bytes.
func measure(dir, name, bin, port string, n int, settle time.Duration) (float64, int64, error) {
	cmd, err := start(dir, name, bin, port, n)
	if err != nil {
		return 0, 0, err
	}
	// SIGTERM: NGINX's master stops its worker with it, where a kill
	// would leave the worker running.
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	addr := "127.0.0.1:" + port
	// A few requests first, so that what one request leaves behind
	// (pools, the file's cache entry) is in the base figure.
	for range 10 {
		c, err := dial(addr)
		if err != nil {
			return 0, 0, err
		}
		c.Close()
	}
	time.Sleep(settle)
	pid := cmd.Process.Pid
	if name == "nginx" {
		// The worker holds the connections, not the master.
		if pid, err = nginxWorker(pid); err != nil {
			return 0, 0, err
		}
	}
	before, after, release, err := procrss.Growth(pid, n, settle, func() (net.Conn, error) { return dial(addr) })
	defer release()
	if err != nil {
		return 0, 0, err
	}
	return float64(after-before) / float64(n), before, nil
}

// dial opens a connection and makes one keep-alive request on it.
func dial(addr string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if _, err := io.WriteString(c, "GET /file.txt HTTP/1.1\r\nHost: bench\r\nUser-Agent: idle-bench\r\nAccept: */*\r\n\r\n"); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReader(c)
	length := -1
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			c.Close()
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if length < 0 || br.Buffered() > length {
		c.Close()
		return nil, fmt.Errorf("unexpected response framing")
	}
	if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func start(dir, name, bin, port string, n int) (*exec.Cmd, error) {
	conf := filepath.Join(dir, name+".conf")
	errLog := filepath.Join(dir, name+"-error.log")
	var text string
	var cmd *exec.Cmd
	// Timeouts longer than the run, so that no connection is closed
	// while it is counted.
	common := fmt.Sprintf(`access_log off; keepalive_timeout 300s; client_header_timeout 300s;
		server { listen 127.0.0.1:%s; root %s; }`, port, dir)
	if name == "nginx" {
		text = fmt.Sprintf(`daemon off; worker_processes 1; pid %s/nginx.pid; error_log %s;
			events { worker_connections %d; }
			http { client_body_temp_path %[1]s; proxy_temp_path %[1]s; fastcgi_temp_path %[1]s;
				uwsgi_temp_path %[1]s; scgi_temp_path %[1]s; %[4]s }`, dir, errLog, n+100, common)
		cmd = exec.Command(bin, "-p", dir, "-c", conf, "-e", errLog)
	} else {
		text = fmt.Sprintf("worker_processes 1; error_log %s;\nhttp { %s }\n", errLog, common)
		cmd = exec.Command(bin, "-c", conf)
	}
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	for range 100 {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			return cmd, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, fmt.Errorf("%s did not start listening on %s", bin, port)
}

// nginxWorker returns the pid of the worker process of the master pid.
func nginxWorker(master int) (int, error) {
	for range 50 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", master, master))
		if err != nil {
			return 0, err
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			return strconv.Atoi(f[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
	return 0, fmt.Errorf("no worker under nginx %d", master)
}
