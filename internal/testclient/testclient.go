// Package testclient sends the requests of tests and reads the answers
// whole, failing the test on any error.
package testclient

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// client is Go's default client that does not follow redirects: a test
// sees the response the server sent.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// Do sends a request to url with header name/value pairs, without
// following redirects, and returns the response with its body read.
func Do(t testing.TB, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	resp, body, err := Try(method, url, header...)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// Try is Do returning its error, for goroutines other than the test's,
// which may not stop the test.
func Try(method, url string, header ...string) (*http.Response, string, error) {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		return nil, "", err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", fmt.Errorf("%s %s: reading body: %w", method, url, err)
	}
	return resp, string(body), nil
}

// Send sends req, which may have a body, without following redirects,
// and returns the response with its body read.
func Send(t testing.TB, req *http.Request) (*http.Response, string) {
	t.Helper()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, string(body)
}

// Get is Do for a GET.
func Get(t testing.TB, url string, header ...string) (*http.Response, string) {
	t.Helper()
	return Do(t, http.MethodGet, url, header...)
}

// Load is what Hammer measured: the requests answered, the slowest, and
// how many times each key (as the caller's request function named its
// answer) was seen.
type Load struct {
	N       int
	Slowest time.Duration
	Keys    map[string]int
}

// Hammer runs workers that call request until d has passed or limit
// requests were answered, bounded in time and count as a test's load
// must be. request returns a key for the answer (such as its
// Cache-Status), or an error, which fails the test.
func Hammer(t testing.TB, workers int, d time.Duration, limit int, request func() (string, error)) Load {
	t.Helper()
	var (
		wg sync.WaitGroup
		mu sync.Mutex
	)
	l := Load{Keys: make(map[string]int)}
	end := time.Now().Add(d)
	for range workers {
		wg.Go(func() {
			for time.Now().Before(end) {
				start := time.Now()
				key, err := request()
				took := time.Since(start)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				l.N++
				l.Slowest = max(l.Slowest, took)
				l.Keys[key]++
				stop := l.N >= limit
				mu.Unlock()
				if stop {
					return
				}
			}
		})
	}
	wg.Wait()
	return l
}

// Raw sends request to addr (host:port) exactly as written, for requests
// Go's client would refuse or clean (no Host, a path with "//", HTTP/1.0),
// and returns the response and its body. It fails the test when no
// response comes.
func Raw(t testing.TB, addr, request string) (*http.Response, string) {
	t.Helper()
	return RawOn(t, "tcp", addr, request)
}

// RawOn is Raw over another network: "unix" with a socket's path.
func RawOn(t testing.TB, network, addr, request string) (*http.Response, string) {
	t.Helper()
	resp, body, err := RawTry(network, addr, request)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// RawWithin is Raw with d for the whole exchange rather than 10 s, for
// an answer that its server sends slowly by design (NGINX's writes of
// sendfile_max_chunk bytes, one an event loop turn), which a loaded
// machine can stretch past 10 s: the body would come back cut short.
func RawWithin(t testing.TB, addr, request string, d time.Duration) (*http.Response, string) {
	t.Helper()
	resp, body, err := rawWithin("tcp", addr, request, d)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// RawTry is RawOn returning its error rather than failing a test, for
// requests sent from goroutines of their own.
func RawTry(network, addr, request string) (*http.Response, string, error) {
	return rawWithin(network, addr, request, 10*time.Second)
}

// rawWithin sends request on a new connection and reads the answer, all
// within d.
func rawWithin(network, addr, request string, d time.Duration) (*http.Response, string, error) {
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		return nil, "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(d))
	if _, err := io.WriteString(c, request); err != nil {
		return nil, "", fmt.Errorf("sending to %s: %w", addr, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, "", fmt.Errorf("reading %s's answer: %w", addr, err)
	}
	// What came before the connection ended: a test may be looking at a
	// body cut short.
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b), nil
}
