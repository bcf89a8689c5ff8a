package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestLimitRateAfterCountsHeaderAsNGINX: limit_rate_after counts the
// status line and the header with the body, as NGINX's write filter
// weighs c->sent. At limit_rate 1 (a byte a second) and
// limit_rate_after 10000, what arrives at once is 10,001 bytes in all,
// header included (10,002 for NGINX when the request spans a second
// boundary of its whole-second clock); mosaic sent 10,001 bytes of body
// after its header before.
func TestLimitRateAfterCountsHeaderAsNGINX(t *testing.T) {
	const after = 10000
	bases := limitBoth(t, map[string]string{"f": strings.Repeat("x", 2*after)}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server { %s root %s; limit_rate 1; limit_rate_after %d; }`, listen, root, after)
	})
	for name, base := range bases {
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, "GET /f HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		// The burst however slow the machine, then what follows within
		// 300 ms: the next byte is due a second after the request began.
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := io.CopyN(io.Discard, c, after+1)
		if err != nil {
			t.Fatalf("%s: %d bytes, then %v", name, n, err)
		}
		c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		more, err := io.Copy(io.Discard, c)
		if n += more; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s: %d bytes, then %v; want the wait for the next byte", name, n, err)
		}
		if n < after+1 || n > after+2 {
			t.Errorf("%s: %d bytes at once, header included; want %d (or one more)", name, n, after+1)
		}
	}
}
