package http1

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// BenchmarkServe measures a keep-alive GET of a 4 KB body with a known
// length over loopback: one request written and its whole response read
// per iteration. The client side allocates nothing, so the allocations
// reported are the server's. BenchmarkServeNetHTTP runs the same against
// net/http's server, for comparison; the TLS variants do both over a TLS
// connection that chose HTTP/1.1 (the client's encryption counts too).
func BenchmarkServe(b *testing.B) {
	s := &Server{Handler: benchHandler(), Limits: Limits{KeepAliveTimeout: time.Minute}, Logger: quietLogger}
	benchServe(b, s.Serve, s.Close, false)
}

func BenchmarkServeNetHTTP(b *testing.B) {
	s := &http.Server{Handler: benchHandler()}
	benchServe(b, s.Serve, s.Close, false)
}

func BenchmarkServeTLS(b *testing.B) {
	s := &Server{Handler: benchHandler(), Limits: Limits{KeepAliveTimeout: time.Minute}, Logger: quietLogger, TLSConfig: testServerTLS(b)}
	benchServe(b, s.Serve, s.Close, true)
}

func BenchmarkServeNetHTTPTLS(b *testing.B) {
	s := &http.Server{Handler: benchHandler(), TLSConfig: testServerTLS(b)}
	serve := func(ln net.Listener) error { return s.Serve(tls.NewListener(ln, s.TLSConfig)) }
	benchServe(b, serve, s.Close, true)
}

var benchBody = bytes.Repeat([]byte("x"), 4<<10)

func benchHandler() http.Handler {
	size := strconv.Itoa(len(benchBody))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", size)
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write(benchBody)
	})
}

func benchServe(b *testing.B, serve func(net.Listener) error, stop func() error, overTLS bool) {
	body := benchBody
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serve(ln) }()
	defer func() {
		_ = stop()
		<-served
	}()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	if overTLS {
		c = tls.Client(c, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, 16<<10)
	req := []byte("GET /bench HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n")
	status := []byte("HTTP/1.1 200 OK\r\n")
	clPrefix := []byte("Content-Length: ")

	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		line, err := br.ReadSlice('\n')
		if err != nil || !bytes.Equal(line, status) {
			b.Fatalf("status line %q, %v", line, err)
		}
		n := -1
		for {
			line, err = br.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			if len(line) == 2 {
				break
			}
			if v, ok := bytes.CutPrefix(line, clPrefix); ok {
				n = 0
				for _, d := range bytes.TrimRight(v, "\r\n") {
					n = n*10 + int(d-'0')
				}
			}
		}
		if n != len(body) {
			b.Fatalf("Content-Length %d, want %d", n, len(body))
		}
		if _, err := br.Discard(n); err != nil {
			b.Fatal(err)
		}
	}
}
