// Command slowloris is the attacker of http1/bench/slowloris.sh: for
// -duration it keeps -conns connections open to -addr (loopback only),
// each sending the start of a request header and then nothing; when the
// server closes one (client_header_timeout), it reconnects at once. It
// prints how many connections it opened and how many the server ended.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18311", "the server, a loopback address")
	conns := flag.Int("conns", 1000, "connections held at once")
	duration := flag.Duration("duration", 10*time.Second, "how long to attack")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		log.Fatalf("-addr %q: a loopback address is required", *addr)
	}
	var opened, ended atomic.Int64
	end := time.Now().Add(*duration)
	var wg sync.WaitGroup
	for range *conns {
		wg.Go(func() {
			buf := make([]byte, 512)
			for time.Now().Before(end) {
				c, err := net.DialTimeout("tcp", *addr, time.Second)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				opened.Add(1)
				_ = c.SetDeadline(end)
				if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: victim\r\nUser-Agent: "+strings.Repeat("s", 40)); err == nil {
					// Read until the server closes the connection or
					// the attack ends.
					for {
						if _, err := c.Read(buf); err != nil {
							if time.Now().Before(end) {
								ended.Add(1)
							}
							break
						}
					}
				}
				c.Close()
			}
		})
	}
	wg.Wait()
	fmt.Printf("attacker: %d connections opened, %d ended by the server\n", opened.Load(), ended.Load())
}
