// Command h2stall measures what stalled HTTP/2 frames cost a server's
// memory: each round opens n cleartext (h2c, prior knowledge)
// connections, sends the preface and one frame header that announces a
// frame of -len bytes, 10 bytes of its payload, holds them -hold, then
// closes them, and prints the server's resident memory (VmRSS of -pid).
// A server that makes the frame's buffer when its header arrives holds
// the announced length per connection; one that refuses frames above
// 16 KB, or reads payloads as they come, holds none.
//
//	go run ./server/bench/h2stall -addr 127.0.0.1:8080 -pid PID
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"time"

	"github.com/mosaic-edge/mosaic/internal/procrss"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "the server's h2c listener")
	pid := flag.Int("pid", 0, "the server's process id, for VmRSS")
	n := flag.Int("n", 300, "connections a round")
	rounds := flag.Int("rounds", 3, "rounds")
	length := flag.Int("len", 1<<20-1, "the frame length each header announces")
	hold := flag.Duration("hold", time.Second, "how long the connections stall")
	flag.Parse()
	// A SETTINGS frame header (type 4, no flags, stream 0) with the
	// announced length, and the start of its payload.
	frame := []byte{byte(*length >> 16), byte(*length >> 8), byte(*length), 4, 0, 0, 0, 0, 0}
	frame = append(frame, make([]byte, 10)...)
	for r := 1; r <= *rounds; r++ {
		conns := make([]net.Conn, 0, *n)
		for range *n {
			c, err := net.Dial("tcp", *addr)
			if err != nil {
				log.Fatalf("round %d: %v", r, err)
			}
			if _, err := c.Write(append([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), frame...)); err != nil {
				log.Fatalf("round %d: %v", r, err)
			}
			conns = append(conns, c)
		}
		time.Sleep(*hold)
		rss, err := procrss.Of(*pid)
		if err != nil {
			log.Fatalf("round %d: %v", r, err)
		}
		fmt.Printf("round %d: VmRSS %d kB\n", r, rss>>10)
		for _, c := range conns {
			c.Close()
		}
	}
}
