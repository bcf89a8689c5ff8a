package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A client that leaves while the upstream has its request and has not
// answered, over TLS listeners: an HTTP/1.1 client closing its
// connection, and an HTTP/2 client resetting one stream while another
// of the same connection is answered, to an upstream reached on a fresh
// connection or on a kept one (where mosaic writes the request within
// its first read of the answer). The answers, the access log (499 for
// those that left) and what the upstream saw (a fresh connection's
// close) are NGINX's.
func TestProxyClientGoneOverTLSAsNGINX(t *testing.T) {
	t.Parallel()
	nginxPath(t)
	var mu sync.Mutex
	got := map[string][]string{} // by server: what the origin saw
	// arrived has a value for each slow request at the origin: its
	// client leaves only then (a fixed 300 ms could be too short for the
	// request to get there on a loaded machine).
	arrived := make(chan struct{}, 16)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		who := r.Header.Get("X-Who")
		note := func(s string) {
			mu.Lock()
			got[who] = append(got[who], r.URL.Path+" "+s)
			mu.Unlock()
		}
		if strings.HasSuffix(r.URL.Path, "/fast") {
			time.Sleep(600 * time.Millisecond)
			io.WriteString(w, "fast")
			return
		}
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
			note("gone")
		case <-time.After(5 * time.Second):
			note("not gone")
		}
	}))
	defer origin.Close()
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`log_format s '$request_uri $status $body_bytes_sent';
			access_log %[1]s/%[2]s.log s;
			upstream kept { server %[6]s; keepalive 4; }
			server { listen 127.0.0.1:%[3]d ssl http2; ssl_certificate %[4]s; ssl_certificate_key %[5]s;
				proxy_set_header X-Who %[2]s;
				location /fresh/ { proxy_pass http://%[6]s; }
				location /kept/ { proxy_pass http://kept; proxy_http_version 1.1; proxy_set_header Connection ""; } }`,
			dir, who, port, cert, key, origin.Listener.Addr())
	})
	results := map[string]string{}
	for who, port := range map[string]int{"m": mport, "n": nport} {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		for _, loc := range []string{"/fresh", "/kept"} {
			// HTTP/1.1: a request answered (it leaves a kept upstream
			// connection), then one whose client closes.
			c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			fmt.Fprintf(c, "GET %s/fast?h1 HTTP/1.1\r\nHost: a\r\n\r\n", loc)
			if b := make([]byte, 1); !readSome(c, b) {
				t.Fatalf("%s: no answer to %s/fast", who, loc)
			}
			time.Sleep(100 * time.Millisecond)
			fmt.Fprintf(c, "GET %s/slow?h1 HTTP/1.1\r\nHost: a\r\n\r\n", loc)
			awaitSignal(t, arrived, loc+"/slow?h1 at the origin")
			c.Close()
		}
		// HTTP/2: on one connection, a stream answered slowly while
		// another is reset.
		tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}
		client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		do := func(ctx context.Context, path string) string {
			req, _ := http.NewRequestWithContext(ctx, "GET", "https://"+addr+path, nil)
			resp, err := client.Do(req)
			if err != nil {
				return path + " no answer"
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || resp.ProtoMajor != 2 {
				return fmt.Sprintf("%s %s %v", path, resp.Proto, err)
			}
			return path + " " + resp.Status + " " + string(b)
		}
		answers := []string{do(context.Background(), "/kept/fast?h2")} // the connection
		for _, loc := range []string{"/fresh", "/kept"} {
			ch := make(chan string)
			go func() { ch <- do(context.Background(), loc+"/fast?h2") }()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-arrived:
				case <-time.After(waitCeiling):
				}
				cancel()
			}()
			answers = append(answers, do(ctx, loc+"/slow?h2"), <-ch)
			cancel()
		}
		tr.CloseIdleConnections()
		log := waitLog(t, filepath.Join(dir, who+".log"), 9)
		slices.Sort(log)
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		seen := slices.Clone(got[who])
		mu.Unlock()
		slices.Sort(seen)
		results[who] = strings.Join(answers, ", ") + "\nlog: " + strings.Join(log, " | ") + "\norigin: " + strings.Join(seen, " | ")
	}
	if results["m"] != results["n"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["m"], results["n"])
	}
	if !strings.Contains(results["n"], "log: /fresh/fast?h1 200 4 | /fresh/fast?h2 200 4 | /fresh/slow?h1 499 0 | /fresh/slow?h2 499 0 |") ||
		!strings.Contains(results["n"], "/kept/slow?h1 499 0 | /kept/slow?h2 499 0") ||
		!strings.Contains(results["n"], "origin: /fresh/slow gone | /fresh/slow gone") {
		t.Errorf("NGINX's run is not as expected: %s", results["n"])
	}
}

// readSome reports whether c gave at least len(b) bytes.
func readSome(c io.Reader, b []byte) bool {
	_, err := io.ReadFull(c, b)
	return err == nil
}
