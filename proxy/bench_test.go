package proxy_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/mosaic-edge/mosaic/proxy"
)

var originBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// fastOrigin answers every request head with the same small response,
// without allocating, so that allocations measured are the proxy's.
func fastOrigin(b *testing.B) string { return originOf(b, []byte("Hello, world!")) }

// originOf answers every request on a kept-alive connection with body.
func originOf(b *testing.B, body []byte) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	response := append(fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(body)), body...)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				bp := originBufs.Get().(*[]byte)
				defer originBufs.Put(bp)
				buf := *bp
				n := 0
				for {
					m, err := c.Read(buf[n:])
					if err != nil {
						return
					}
					n += m
					for {
						i := bytes.Index(buf[:n], []byte("\r\n\r\n"))
						if i < 0 {
							break
						}
						if _, err := c.Write(response); err != nil {
							return
						}
						n = copy(buf, buf[i+4:n])
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

func BenchmarkServeHTTP(b *testing.B) {
	for _, bc := range []struct {
		name      string
		keepalive int
		opts      proxy.Options
	}{
		{"keepalive", 8, proxy.Options{HTTPVersion: "1.1", SetHeaders: keepaliveHeaders}},
		{"new connection per request", 0, proxy.Options{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			addr := fastOrigin(b)
			up, err := proxy.NewUpstream("backend", []proxy.Server{{Addr: addr}}, bc.keepalive)
			if err != nil {
				b.Fatal(err)
			}
			defer up.CloseIdle()
			pass, _ := proxy.ParsePass("http://backend")
			opts := bc.opts
			opts.Pass, opts.Upstream = pass, up
			h, err := proxy.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/path/to/resource?q=1", nil)
			req.Header.Set("User-Agent", "bench")
			req.Header.Set("Accept", "*/*")
			req.Header.Set("Accept-Encoding", "gzip, br")
			w := &discardWriter{h: make(http.Header)}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkLargeBody relays a 1 MiB body to a client that takes it at
// once, read as the client takes it or read ahead (the defaults of
// proxy_buffers and proxy_max_temp_file_size): the cost of the reading
// goroutine and its copy where a fast client gains nothing from it.
func BenchmarkLargeBody(b *testing.B) {
	addr := originOf(b, bytes.Repeat([]byte("0123456789abcdef"), 1<<16))
	for _, bc := range []struct {
		name string
		opts proxy.Options
	}{
		{"streamed", proxy.Options{}},
		{"read ahead", proxy.Options{AheadMemory: 8 << 12, AheadFileMax: 1 << 30}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			up, err := proxy.NewUpstream("backend", []proxy.Server{{Addr: addr}}, 8)
			if err != nil {
				b.Fatal(err)
			}
			defer up.CloseIdle()
			pass, _ := proxy.ParsePass("http://backend")
			opts := bc.opts
			opts.Pass, opts.Upstream, opts.HTTPVersion, opts.SetHeaders = pass, up, "1.1", keepaliveHeaders
			h, err := proxy.New(opts)
			if err != nil {
				b.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/big", nil)
			w := &discardWriter{h: make(http.Header)}
			b.SetBytes(1 << 20)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

// BenchmarkProxyLoopback is a whole proxied request: client, the proxy in
// an http.Server, and an origin, all over loopback with keepalive.
func BenchmarkProxyLoopback(b *testing.B) {
	addr := fastOrigin(b)
	up, err := proxy.NewUpstream("backend", []proxy.Server{{Addr: addr}}, 8)
	if err != nil {
		b.Fatal(err)
	}
	defer up.CloseIdle()
	pass, _ := proxy.ParsePass("http://backend")
	h, err := proxy.New(proxy.Options{Pass: pass, Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders})
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(h)
	defer front.Close()
	client := front.Client()
	url := front.URL + "/path/to/resource"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := client.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
