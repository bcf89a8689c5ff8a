// Command heads sends random HTTP/1 request heads (and, with -h2, random
// h2c streams) to Debian's NGINX and to mosaic on the same configuration,
// byte for byte over raw sockets, and prints each case whose answers
// differ. See ../README.md.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httputil"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
	"github.com/mosaic-edge/mosaic/internal/testport"
)

var (
	n       = flag.Int("n", 2000, "HTTP/1 cases to send")
	seed    = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same cases every run)")
	workers = flag.Int("w", 12, "cases sent at once")
	only    = flag.String("only", "", "send this one request (a Go-quoted string) to both servers and print both answers")
	h2n     = flag.Int("h2", 0, "send this many h2c streams instead of HTTP/1 cases")
)

// The servers' ports, by index: the default server, the lax one
// (underscores, invalid headers, no slash merging), and h2c.
const (
	portDefault = iota
	portLax
	portH2
	nPorts
)

// origin answers every request with the request line and the sorted
// header lines it got, and the body, quoted: what the proxy sent
// upstream is then part of the answer compared.
func origin(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func(c net.Conn) {
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			br := bufio.NewReader(c)
			var head bytes.Buffer
			cl, chunked := -1, false
			for {
				l, err := br.ReadString('\n')
				head.WriteString(l)
				if err != nil {
					return
				}
				if l == "\r\n" {
					break
				}
				name, val, _ := strings.Cut(l, ":")
				val = strings.TrimSpace(val)
				switch strings.ToLower(name) {
				case "content-length":
					cl, _ = strconv.Atoi(val)
				case "transfer-encoding":
					chunked = strings.Contains(strings.ToLower(val), "chunked")
				}
			}
			var body []byte
			if chunked {
				body, _ = io.ReadAll(httputil.NewChunkedReader(br))
			} else if cl > 0 {
				body = make([]byte, cl)
				io.ReadFull(br, body)
			}
			out := fmt.Sprintf("ORIGIN %s BODY %q", normHead(head.String()), body)
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(out), out)
		}(c)
	}
}

// normHead keeps the request line and the sorted header lines: NGINX and
// mosaic order them differently by design.
func normHead(h string) string {
	lines := strings.Split(strings.TrimSuffix(h, "\r\n\r\n"), "\r\n")
	rest := lines[1:]
	sort.Strings(rest)
	return fmt.Sprintf("%q %q", lines[0], rest)
}

// echo shows, in the answer, how the server read the request.
const echo = `"E|$request_method|$uri|$args|$request_uri|$host|$http_host|x=$http_x|xy=$http_x_y|cl=$content_length|te=$http_transfer_encoding|ex=$http_expect|co=$http_connection|$server_protocol|$is_args\n"`

func config(originPort int) nginxdiff.Config {
	return func(_ string, ports []int) string {
		loc := fmt.Sprintf(`
		location / { return 200 %[1]s; }
		location /p/ { proxy_set_header X-Uri $uri; proxy_pass http://127.0.0.1:%[2]d; }
		location /u/ { proxy_pass http://127.0.0.1:%[2]d/up/; }
		location = /x { return 200 "EXACT $uri"; }
		location ~ ^/re/(.*)$ { return 200 "RE $1|$uri"; }
		location /r/ { rewrite ^/r/(.*)$ /p/$1 break; proxy_pass http://127.0.0.1:%[2]d; }
	`, echo, originPort)
		return fmt.Sprintf(`	client_header_timeout 3s; client_body_timeout 3s;
	server { listen 127.0.0.1:%[1]d; %[4]s }
	server { listen 127.0.0.1:%[2]d; underscores_in_headers on; ignore_invalid_headers off; merge_slashes off; %[4]s }
	server { listen 127.0.0.1:%[3]d http2; %[4]s }
`, ports[portDefault], ports[portLax], ports[portH2], loc)
	}
}

type tcase struct {
	port    int // portDefault or portLax
	raw     string
	methods []string // of the requests in raw, to read HEAD answers right
}

// exchange sends the case and summarises the answers, then whether the
// server closed the connection or kept it open (gone quiet for 400ms).
func exchange(port int, c tcase) string {
	got, closed, err := nginxdiff.Exchange(port, []byte(c.raw), 400*time.Millisecond, 4*time.Second)
	if err != nil {
		return err.Error()
	}
	state := "open"
	if closed {
		state = "closed"
	}
	return summarize(got, c.methods) + " " + state
}

// summarize lists the answers in b: each status, and a 200's body.
func summarize(b []byte, methods []string) string {
	br := bufio.NewReader(bytes.NewReader(b))
	var out []string
	for i := 0; ; i++ {
		m := "GET"
		if i < len(methods) {
			m = methods[i]
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			if err != io.EOF {
				out = append(out, "ERR:"+err.Error())
			}
			break
		}
		body, _ := io.ReadAll(resp.Body)
		s := strconv.Itoa(resp.StatusCode)
		if resp.StatusCode == 200 {
			s += " " + strconv.Quote(string(body))
		}
		out = append(out, "["+s+"]")
	}
	return strings.Join(out, " ")
}

func main() { nginxdiff.Main("heads", run) }

func run(dir string) error {
	oport, err := testport.Free()
	if err != nil {
		return fmt.Errorf("origin port: %w", err)
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", oport))
	if err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	defer ln.Close()
	go origin(ln)
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, nPorts, config(oport))
	if err != nil {
		return err
	}
	defer pair.Stop()
	np, mp := pair.NGINX.Ports, pair.Mosaic.Ports

	switch {
	case *h2n > 0:
		runH2(*h2n, *seed, np[portH2], mp[portH2])
	case *only != "":
		raw, err := strconv.Unquote(*only)
		if err != nil {
			return fmt.Errorf("-only: %w", err)
		}
		for _, p := range []int{portDefault, portLax} {
			c := tcase{port: p, raw: raw, methods: []string{strings.Fields(raw + " x")[0], "GET"}}
			fmt.Printf("port+%d\n  nginx  %s\n  mosaic %s\n", p, exchange(np[p], c), exchange(mp[p], c))
		}
	default:
		runH1(np, mp)
	}
	return nil
}

// runH1 sends *n cases and prints each difference, then a count by class.
func runH1(np, mp []int) {
	r := rand.New(rand.NewSource(*seed))
	cases := make([]tcase, *n)
	for i := range cases {
		cases[i] = gen(r)
	}
	var mu sync.Mutex
	byClass := map[string]int{}
	diffs := 0
	ch := make(chan int)
	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for i := range ch {
				c := cases[i]
				a := exchange(np[c.port], c)
				b := exchange(mp[c.port], c)
				if a == b {
					continue
				}
				cls := classify(c.raw, a, b)
				mu.Lock()
				diffs++
				byClass[cls]++
				fmt.Printf("DIFF %s #%d port+%d %q\n  nginx  %s\n  mosaic %s\n", cls, i, c.port, c.raw, a, b)
				mu.Unlock()
			}
		})
	}
	for i := range cases {
		ch <- i
	}
	close(ch)
	wg.Wait()
	fmt.Printf("%d cases, %d differ\n", *n, diffs)
	classes := make([]string, 0, len(byClass))
	for k := range byClass {
		classes = append(classes, k)
	}
	sort.Slice(classes, func(i, j int) bool {
		if byClass[classes[i]] != byClass[classes[j]] {
			return byClass[classes[i]] > byClass[classes[j]]
		}
		return classes[i] < classes[j]
	})
	for _, k := range classes {
		fmt.Printf("%6d %s\n", byClass[k], k)
	}
}

var (
	// reOrigin is what the origin reports of the request line.
	reOrigin = regexp.MustCompile(`ORIGIN \\"[^"]*\\"`)
	// reSpaces finds blanks after the version or doubled in the line.
	reSpaces = regexp.MustCompile(`HTTP/[0-9.]+ +[\r\n]|  |HTTP/[0-9.]+\t`)
	// reBareCR finds a CR that no LF follows.
	reBareCR = regexp.MustCompile(`\r[^\n]`)
)

// classify names the class of a difference that server/README.md
// documents ("Random request heads beside NGINX"), or OTHER; a and b are
// NGINX's and mosaic's summaries. The checks go from the surest to the
// loosest, and the first that fits names the case.
func classify(raw, a, b string) string {
	head, _, _ := strings.Cut(raw, "\r\n\r\n")
	an := strings.TrimSuffix(a, " closed")
	an = strings.TrimSuffix(strings.TrimSuffix(an, " ERR:unexpected EOF"), " [400]")
	bn := strings.TrimSuffix(strings.TrimSuffix(b, " open"), " ERR:unexpected EOF")
	switch {
	case strings.HasSuffix(b, " open") && strings.HasSuffix(a, "[400] ERR:unexpected EOF closed") && an == bn,
		strings.HasSuffix(a, "closed") && strings.HasSuffix(b, "open") && !strings.HasPrefix(b, "["):
		// NGINX refuses at the first bad byte; mosaic waits for the
		// line's end.
		return "EARLY400"
	case strings.Contains(a, "ORIGIN") && strings.Contains(b, "ORIGIN") &&
		reOrigin.ReplaceAllString(a, "") == reOrigin.ReplaceAllString(b, ""):
		return "NORMLINE"
	case reSpaces.MatchString(head):
		return "SPACES"
	case reBareCR.MatchString(head) || strings.Contains(head, "\r\r"):
		return "BARECR"
	case strings.Contains(a, "[100]"):
		return "CONTINUE100"
	case strings.Contains(a, "[301]"):
		return "REDIRECT301"
	case strings.Contains(a, "[501]") != strings.Contains(b, "[501]") ||
		strings.Contains(a, "[505]") != strings.Contains(b, "[505]"):
		return "STATUSORDER"
	}
	return "OTHER"
}
