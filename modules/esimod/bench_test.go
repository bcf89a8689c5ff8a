package esimod_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/server/servertest"

	// Every module of the binary: each registers its directives with the server.
	_ "github.com/mosaic-edge/mosaic/modules/all"
)

// benchFragments is the number of includes of the benchmark's page, the
// row of esi.sh whose tail latency the fragments' garbage sets.
const benchFragments = 32

// BenchmarkPage32 delivers, one after another on a kept connection, the
// page of esi.sh's 32-fragment row with the configuration of
// esi/bench/esi-plan.conf.tmpl: a ~256 KB page cached in memory, replayed
// from its plan and stitched into a gzip answer, its 32 fragments of about
// 200 bytes proxied uncached, each a subrequest through the whole server,
// to an origin kept alive. The origin and the client allocate nothing once
// started, so B/op and allocs/op are the server's, per page; the
// fragment's share is about a 32nd of them (the page's own delivery is
// the rest, BenchmarkPage0).
func BenchmarkPage32(b *testing.B) { benchPage(b, benchFragments) }

// BenchmarkPage0 is BenchmarkPage32's page without includes: what a
// delivery costs besides its fragments.
func BenchmarkPage0(b *testing.B) { benchPage(b, 0) }

func benchPage(b *testing.B, fragments int) {
	page, want := benchSite(fragments)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go serveOrigin(ln, page)

	base := servertest.Start(b, `http {
		access_log off; keepalive_requests 1000000;
		proxy_cache_path memory keys_zone=pages:64m;
		esi_plan_zone plans:64m;
		gzip on; gzip_comp_level 6; brotli on; zstd on;
		upstream origin { server `+ln.Addr().String()+`; keepalive 1024; }
		server {
			listen 127.0.0.1:0;
			location / {
				proxy_pass http://origin;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
				proxy_set_header Accept-Encoding "";
				proxy_cache pages;
				proxy_cache_valid 200 1h;
				esi on;
				esi_plan plans;
				esi_stitch on;
				esi_stitch_level 6;
			}
			location /frag/ {
				proxy_pass http://origin;
				proxy_http_version 1.1;
				proxy_set_header Connection "";
			}
		}
	}`)
	host := strings.TrimPrefix(base, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := []byte("GET /page HTTP/1.1\r\nHost: " + host + "\r\nAccept-Encoding: gzip\r\nUser-Agent: bench\r\n\r\n")
	br := bufio.NewReaderSize(c, 64<<10)
	body := make([]byte, 0, len(want))
	exchange := func() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		var err error
		if body, err = servertest.ReadResponse(br, body[:0]); err != nil {
			b.Fatal(err)
		}
	}
	// The first delivery stores the page, the second records its plan and
	// the third is the first stitched: they are checked whole, the
	// measured ones, stitched alike, by length only.
	for range 3 {
		exchange()
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			b.Fatalf("assembled page of %d bytes differs from the %d expected", len(got), len(want))
		}
	}
	size := len(body)
	b.ReportAllocs()
	for b.Loop() {
		exchange()
		if len(body) != size {
			b.Fatalf("answer of %d bytes, the checked one had %d", len(body), size)
		}
	}
	if fragments > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*fragments), "ns/fragment")
	}
}

// benchSite returns the origin's page, with fragments includes spread
// through about 256 KB of markup, and the page as assembled.
func benchSite(fragments int) (page, assembled []byte) {
	var p, a bytes.Buffer
	line := 0
	para := func() {
		line++
		s := "<p class=\"text\">Paragraph " + strconv.Itoa(line) +
			" of the benchmark page, with <a href=\"/article/" + strconv.Itoa(line*7) +
			"\">a link</a> and some prose that fills the line.</p>\n"
		p.WriteString(s)
		a.WriteString(s)
	}
	const size = 256 << 10
	for i := 1; i <= fragments; i++ {
		for p.Len() < i*size/(fragments+1) {
			para()
		}
		p.WriteString(`<esi:include src="/frag/` + strconv.Itoa(i) + `"/>`)
		a.Write(fragmentBody(i))
	}
	for p.Len() < size {
		para()
	}
	return p.Bytes(), a.Bytes()
}

// fragmentBody is fragment i's body, about 200 bytes.
func fragmentBody(i int) []byte {
	s := `<div class="fragment" id="fragment-` + strconv.Itoa(i) + `"><h3>Fragment ` + strconv.Itoa(i) + `</h3>`
	return []byte(s + "<p>" + strings.Repeat("x", 200-len(s)-len("<p></p></div>")) + "</p></div>")
}

// serveOrigin answers GET /page with page (cacheable) and GET /frag/I with
// fragment I (not cacheable), on every connection of ln, from answers
// written once: it allocates nothing per request.
func serveOrigin(ln net.Listener, page []byte) {
	answer := func(body []byte, cacheControl string) []byte {
		return append([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: "+
			cacheControl+"\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	}
	pageAnswer := answer(page, "public, max-age=3600")
	fragAnswers := make([][]byte, benchFragments+1)
	for i := 1; i <= benchFragments; i++ {
		fragAnswers[i] = answer(fragmentBody(i), "no-store, private")
	}
	notFound := []byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			br := bufio.NewReader(c)
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return
				}
				out := notFound
				_, target, _ := bytes.Cut(line, []byte(" "))
				target, _, _ = bytes.Cut(target, []byte(" "))
				if bytes.Equal(target, []byte("/page")) {
					out = pageAnswer
				} else if n, ok := bytes.CutPrefix(target, []byte("/frag/")); ok {
					if i, err := strconv.Atoi(string(n)); err == nil && i >= 1 && i <= benchFragments {
						out = fragAnswers[i]
					}
				}
				for { // the request's header, up to the empty line
					line, err := br.ReadSlice('\n')
					if err != nil {
						return
					}
					if len(line) <= 2 {
						break
					}
				}
				if _, err := c.Write(out); err != nil {
					return
				}
			}
		}()
	}
}
