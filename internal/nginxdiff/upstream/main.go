// Command upstream proxies randomly drawn upstream answers (odd status
// lines, fields and framing) through Debian's NGINX and through mosaic on
// the same configuration and prints where what the client gets differs,
// grouped by class. See ../README.md.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

var (
	n       = flag.Int("n", 2000, "cases to send")
	seed    = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same cases every run)")
	workers = flag.Int("w", 8, "cases sent at once")
	show    = flag.Int("show", 3, "examples printed per class")
	only    = flag.Int("only", -1, "send only this case of the seed and print both exchanges in full")
	dump    = flag.Bool("dump", false, "print the cases the seed draws, and send nothing")
)

// config is the server both run: one upstream group with keepalive, so
// that an answer framed wrongly spoils the next one read on the same
// connection, reached plain, unbuffered, cached, with its errors
// intercepted and gzipped. The short timeouts end the cases where the
// origin leaves a body unfinished.
func config(oport int) nginxdiff.Config {
	return func(dir string, ports []int) string {
		return fmt.Sprintf(`proxy_cache_path %[3]s keys_zone=z:1m;
upstream up { server 127.0.0.1:%[2]d; keepalive 8; }
server { listen 127.0.0.1:%[1]d;
  proxy_http_version 1.1; proxy_set_header Connection "";
  proxy_read_timeout 1s; proxy_send_timeout 1s; proxy_connect_timeout 1s;
  location /p/ { proxy_pass http://up/o/; }
  location /b/ { proxy_pass http://up/o/; proxy_buffering off; }
  location /c/ { proxy_pass http://up/o/; proxy_cache z; proxy_cache_valid 200 301 302 404 1m; }
  location /i/ { proxy_pass http://up/o/; proxy_intercept_errors on; error_page 301 404 500 503 /err/page; }
  location /g/ { proxy_pass http://up/o/; gzip on; gzip_types text/plain; gzip_min_length 1; }
  location /err/ { internal; return 200 "error page\n"; }
  location /xr/ { internal; return 200 "xr $uri $args\n"; }
  location @named { return 200 "named\n"; }
}
`, ports[0], oport, filepath.Join(dir, "cache"))
	}
}

func main() { nginxdiff.Main("upstream", run) }

func run(dir string) error {
	r := rand.New(rand.NewSource(*seed))
	cases := make([]*tcase, *n)
	for i := range cases {
		cases[i] = genCase(r)
	}
	if *dump {
		for i, c := range cases {
			fmt.Printf("%d %s %s %q %q\n", i, c.loc, c.method, c.pieces, c.raw(c.method))
		}
		return nil
	}
	ol, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	defer ol.Close()
	go serveOrigin(ol, cases)
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, config(ol.Addr().(*net.TCPAddr).Port))
	if err != nil {
		return err
	}
	defer pair.Stop()
	nport, mport := pair.NGINX.Ports[0], pair.Mosaic.Ports[0]
	if *only >= 0 {
		c := cases[*only]
		fmt.Printf("case %d %s %s %q\norigin %s\n", *only, c.loc, c.method, c.pieces, nginxdiff.Trunc(fmt.Sprintf("%q", c.raw(c.method)), 300))
		fmt.Printf("nginx  %s\nmosaic %s\n", exchange(nport, *only, c), exchange(mport, *only, c))
		return nil
	}
	compare(cases, nport, mport)
	return nil
}

// compare runs every case through both servers, *workers at a time, and
// prints the count, then each class with *show examples.
func compare(cases []*tcase, nport, mport int) {
	var mu sync.Mutex
	classes := nginxdiff.Classes{}
	diffs := 0
	next := make(chan int)
	var wg sync.WaitGroup
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := cases[i]
				ns, ms := exchange(nport, i, c), exchange(mport, i, c)
				if ns == ms {
					continue
				}
				cls := explain(c, ns, ms)
				mu.Lock()
				diffs++
				classes.Add(cls, fmt.Sprintf("#%d %s %s %q\n  origin %s\n  nginx  %s\n  mosaic %s",
					i, c.loc, c.method, c.pieces, nginxdiff.Trunc(fmt.Sprintf("%q", c.raw(c.method)), 300), nginxdiff.Trunc(ns, 300), nginxdiff.Trunc(ms, 300)))
				mu.Unlock()
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	var kept, left int
	for k, ex := range classes {
		switch {
		case strings.HasPrefix(k, "KEPT "):
			kept += len(ex)
		case strings.HasPrefix(k, "LEFT "):
			left += len(ex)
		}
	}
	fmt.Printf("cases %d, differences %d (KEPT %d, LEFT %d, new %d), classes %d\n", len(cases), diffs, kept, left, diffs-kept-left, len(classes))
	ks := slices.Sorted(maps.Keys(classes))
	for _, k := range ks {
		fmt.Printf("    %4d %s\n", len(classes[k]), k)
	}
	for _, k := range ks {
		// Workers finish out of order: the examples sorted, so a
		// rerun prints the same ones.
		sort.Strings(classes[k])
	}
	classes.Print(os.Stdout, *show)
}

// exchange sends case i's request twice on one connection (a cache's
// miss, then its hit), then the control request, each after the answer
// before it, and summarises what came back; it stops at the first
// answer it cannot read to its end or a connection the server closed.
func exchange(port, i int, c *tcase) string {
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer conn.Close()
	br := bufio.NewReader(conn)
	var out []string
	for k, path := range []string{fmt.Sprintf("/%s/%d/x", c.loc, i), fmt.Sprintf("/%s/%d/x", c.loc, i), "/" + c.loc + "/ctl"} {
		method := c.method
		if k == 2 {
			method = "GET"
		}
		req := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: t.test\r\nAccept-Encoding: gzip\r\n\r\n", method, path)
		conn.SetDeadline(time.Now().Add(4 * time.Second))
		if _, err := io.WriteString(conn, req); err != nil {
			return strings.Join(append(out, "write failed"), " | ")
		}
		s, ok := readAnswer(br, method)
		out = append(out, s)
		if !ok {
			break
		}
	}
	// The servers' own ports differ: a Location made absolute names them.
	return strings.ReplaceAll(strings.Join(out, " | "), fmt.Sprintf(":%d/", port), ":PORT/")
}

// readAnswer reads one answer (interim ones noted before it) and
// summarises the status, the fields that matter and the body; ok is
// false when the connection cannot carry another.
func readAnswer(br *bufio.Reader, method string) (string, bool) {
	var b strings.Builder
	for {
		resp, err := http.ReadResponse(br, &http.Request{Method: method})
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b.String() + "closed", false
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return b.String() + "timeout", false
			}
			return b.String() + "unreadable: " + err.Error(), false
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != 101 {
			fmt.Fprintf(&b, "[%d] ", resp.StatusCode)
			continue
		}
		body, berr := io.ReadAll(resp.Body)
		fmt.Fprintf(&b, "%d", resp.StatusCode)
		h := resp.Header
		for _, k := range []string{"Content-Length", "Location", "Content-Type", "Content-Encoding", "Set-Cookie", "Last-Modified",
			"Cache-Control", "Connection", "Keep-Alive", "X-Drop", "X-Accel-Expires", "X-Accel-Buffering", "X-Accel-Redirect"} {
			v := h.Values(k)
			switch {
			case k == "Connection" && len(v) == 1 && strings.EqualFold(v[0], "keep-alive") && resp.ProtoAtLeast(1, 1):
				// What HTTP/1.1 means without it: mosaic leaves it out.
				continue
			case k == "Content-Length" && resp.StatusCode >= 400 && h.Get("Content-Type") == "text/html" && (len(body) == 0 || isErrorPage(body)):
				// The servers' own pages differ in their signature line.
				continue
			case k == "Content-Length" && h.Get("Content-Encoding") == "gzip":
				// A compressed body's framing: mosaic sends the length of
				// one that fits its buffers (compress/README.md,
				// *Headers*), NGINX chunks it. The body is compared.
				continue
			}
			if len(v) > 0 {
				fmt.Fprintf(&b, " %s=%q", k, strings.Join(v, "|"))
			}
		}
		if len(resp.TransferEncoding) > 0 && h.Get("Content-Encoding") != "gzip" {
			fmt.Fprintf(&b, " TE=%q", strings.Join(resp.TransferEncoding, ","))
		}
		if h.Get("Content-Encoding") == "gzip" && len(body) > 0 {
			if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
				if d, err := io.ReadAll(zr); err == nil {
					body = d
				}
			}
		}
		if resp.StatusCode >= 400 && isErrorPage(body) {
			body = []byte("(error page)")
		}
		if len(body) > 200 {
			fmt.Fprintf(&b, " body=%q...(%d bytes, crc %08x)", body[:200], len(body), crc32.ChecksumIEEE(body))
		} else {
			fmt.Fprintf(&b, " body=%q", body)
		}
		if berr != nil {
			fmt.Fprintf(&b, " bodyerr=%v", berr)
			return b.String(), false
		}
		if resp.Close || resp.StatusCode == 101 {
			// Whether the server then closed is part of the answer.
			_, err := br.Peek(1)
			if err == io.EOF {
				b.WriteString(" closed")
			} else {
				b.WriteString(" open")
			}
			return b.String(), false
		}
		return b.String(), true
	}
}

// isErrorPage tells a server's own error page (NGINX's and mosaic's
// differ only in their signature line) from an upstream's body.
func isErrorPage(body []byte) bool { return bytes.Contains(body, []byte("<center>")) }
