package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
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

// TestLimitRateAfterCountsFramesOnHTTP2AsNGINX: over HTTP/2 NGINX's
// stream counts each frame it sends in c->sent, its 9-byte head and its
// payload: the HEADERS frame before the body, so at limit_rate 1 and
// limit_rate_after 10000 what comes of the body at once is 10,001 bytes
// less the HEADERS frame (9 bytes and the HPACK block), and less again
// by each DATA frame's head (its send's limit is of payload). mosaic
// counted the body alone there: 10,001 bytes of it. Both servers are
// read over h2c (listen ... http2, prior knowledge); their headers
// differ a little (Server, mosaic's HPACK reckoning), so the bodies may
// too, by a few bytes.
func TestLimitRateAfterCountsFramesOnHTTP2AsNGINX(t *testing.T) {
	const after = 10000
	bases := limitBoth(t, map[string]string{"f": strings.Repeat("x", 2*after)}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server { %s root %s; limit_rate 1; limit_rate_after %d; }`, strings.Replace(listen, ";", " http2;", 1), root, after)
	})
	h2 := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
		return new(net.Dialer).DialContext(ctx, network, addr)
	}}
	defer h2.CloseIdleConnections()
	got := map[string]int{}
	for name, base := range bases {
		// The burst however slow the machine, then what follows within
		// 300 ms: the next byte is due a second after the request began.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/f", nil)
		resp, err := h2.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		n, err := io.CopyN(io.Discard, resp.Body, after-200)
		if err != nil {
			t.Fatalf("%s: %d bytes, then %v", name, n, err)
		}
		more := make(chan int64)
		go func() {
			m, _ := io.Copy(io.Discard, resp.Body)
			more <- m
		}()
		time.Sleep(300 * time.Millisecond)
		h2.CloseIdleConnections()
		cancel()
		n += <-more
		got[name] = int(n)
		// The HEADERS frame of either is 9 bytes and 40 to 150 of HPACK,
		// the DATA frames' heads 9 bytes each of 8 KB or less (2).
		if n < after+1-9-150-2*9 || n > after+1-9-40-9 {
			t.Errorf("%s: %d body bytes at once; want 10,001 less the HEADERS frame and the DATA frames' heads", name, n)
		}
	}
	t.Logf("body bytes at once: %v", got)
}
