// Command stalled measures the resident memory that compressing
// connections hold while their clients read nothing: it starts the mosaic
// binary (one worker) serving a large text file with gzip on, opens -n
// connections that each ask for the file gzipped and then stop reading,
// and prints the growth of the server's VmRSS (/proc/PID/status) divided
// by the number of connections. It is the server README's "Compression
// memory with many slow clients" scenario (128 clients, a 19 MB file,
// level 6).
//
//	go run ./compress/bench/stalled -mosaic ./mosaic [-n 128] [-size 19000000] [-level 6]
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
	n := flag.Int("n", 128, "stalled connections")
	size := flag.Int("size", 19_000_000, "the text file's size in bytes")
	level := flag.Int("level", 6, "gzip_comp_level")
	extra := flag.String("conf", "", "more directives for the http block")
	settle := flag.Duration("settle", 3*time.Second, "wait before reading the memory")
	flag.Parse()
	if *mosaic == "" {
		log.Fatal("-mosaic is required")
	}
	dir, err := os.MkdirTemp("", "stalled-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), text(*size), 0o644); err != nil {
		log.Fatal(err)
	}
	const port = "18311"
	conf := filepath.Join(dir, "mosaic.conf")
	body := fmt.Sprintf(`worker_processes 1; error_log %s/error.log;
http { access_log off; send_timeout 300s; keepalive_timeout 300s;
	gzip on; gzip_comp_level %d; gzip_types text/plain; %s
	server { listen 127.0.0.1:%s; root %s; } }
`, dir, *level, *extra, port, dir)
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command(*mosaic, "-c", conf)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		log.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	addr := "127.0.0.1:" + port
	if err := waitListening(addr); err != nil {
		log.Fatal(err)
	}
	// One whole response first, so that what a response leaves behind
	// (pools, the open file cache) is in the base figure.
	c, err := stall(addr)
	if err != nil {
		log.Fatal(err)
	}
	c.Close()
	time.Sleep(*settle)
	before, after, release, err := procrss.Growth(cmd.Process.Pid, *n, *settle, func() (net.Conn, error) { return stall(addr) })
	defer release()
	if err != nil {
		log.Fatal(err)
	}
	if hook := os.Getenv("STALLED_HOOK"); hook != "" {
		// A command to run while the clients are stalled (a profile).
		h := exec.Command("sh", "-c", hook)
		h.Env = append(os.Environ(), "MOSAIC_PID="+strconv.Itoa(cmd.Process.Pid))
		h.Stdout, h.Stderr = os.Stderr, os.Stderr
		_ = h.Run()
	}
	fmt.Printf("mosaic %d stalled gzip connections (level %d, %d-byte file): %d KB RSS before, %d KB after, %.0f KB each\n",
		*n, *level, *size, before>>10, after>>10, float64(after-before)/float64(*n)/1024)
}

// text returns size bytes of varied English-like lines, compressible about
// as much as prose.
func text(size int) []byte {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards " +
		"quietly hex jolly zebras and many packing boxes of liquor jugs arrive late")
	b := make([]byte, 0, size+64)
	x := uint32(1)
	for len(b) < size {
		x = x*1664525 + 1013904223
		b = append(b, words[x>>27%uint32(len(words))]...)
		if x&0xf == 0 {
			b = append(b, '\n')
		} else {
			b = append(b, ' ')
		}
	}
	return b[:size]
}

// stall asks for the file gzipped, reads the response head and then
// nothing more, with a small receive buffer, as a client on a slow link.
func stall(addr string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.(*net.TCPConn).SetReadBuffer(16 << 10)
	if _, err := io.WriteString(c, "GET /big.txt HTTP/1.1\r\nHost: bench\r\nAccept-Encoding: gzip\r\n\r\n"); err != nil {
		c.Close()
		return nil, err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || !strings.Contains(line, " 200 ") {
		c.Close()
		return nil, fmt.Errorf("status line %q: %v", line, err)
	}
	return c, nil
}

func waitListening(addr string) error {
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("mosaic did not start listening on %s", addr)
}
