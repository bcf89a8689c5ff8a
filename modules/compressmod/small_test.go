package compressmod_test

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/mosaic-edge/mosaic/server/servertest"

	// Every module of the binary: each registers its directives with the server.
	_ "github.com/mosaic-edge/mosaic/modules/all"
)

// smallBody is a 2 KB JSON body like the corpus's api-small.json, which
// issue 16's small-response cell serves.
var smallBody = func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"items":[`)
	for i := 0; b.Len() < 2000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"name":"item ` + strconv.Itoa(i*7) + `","ok":true}`)
	}
	b.WriteString("]}\n")
	return b.Bytes()
}()

// startSmall serves smallBody with the configuration of
// compress/bench/small-body.sh (/id/ as is, /l1/ at brotli level 1) and
// returns a function that asks for path on one kept connection, as curl
// asks there, and returns the answer's body. The client allocates nothing
// once started, so a count of the process's allocations is the server's.
func startSmall(tb testing.TB, path string) (exchange func() []byte) {
	dir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body.json"), smallBody, 0o644); err != nil {
		tb.Fatal(err)
	}
	base := servertest.Start(tb, `http {
		access_log off; keepalive_requests 1000000;
		types { application/json json; }
		brotli on;
		brotli_types application/json;
		server {
			listen 127.0.0.1:0;
			location /id/ { brotli off; alias `+dir+`/; }
			location /l1/ { brotli_comp_level 1; alias `+dir+`/; }
		}
	}`)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	req := []byte("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nAccept-Encoding: br\r\n\r\n")
	br := bufio.NewReader(c)
	body := make([]byte, 0, 4<<10)
	return func() []byte {
		if _, err := c.Write(req); err != nil {
			tb.Fatal(err)
		}
		if body, err = servertest.ReadResponse(br, body[:0]); err != nil {
			tb.Fatal(err)
		}
		return body
	}
}

// TestSmallResponseAllocations bounds what the server allocates for the
// 2 KB JSON on a kept connection, plain and at brotli level 1, after
// checking that both answers carry the file. 8 and 14 until 2026-12-06;
// 7 and 13 when http1's copy of the request for its context joined the
// exchange; 6 and 12 when the exchange joined the server's record of the
// request (h1Record): that record, the request header's map (two: the
// map and its group) and text, limit_rate's writer and the file server's
// header values; the compressed answer's header values on top
// (Content-Encoding's, the weak ETag's and Content-Length's slices, one
// allocation since they share it, 12 before; the ETag's and the
// length's text) and $brotli_ratio's text. 5 and 9 since limit_rate's
// writer only wraps a location that a rate can reach (throttlemod); the
// compressed answer 7 once the weak ETag's text joined its values
// (compress README, "A compressed answer's fields"), 6 since the
// length's did.
func TestSmallResponseAllocations(t *testing.T) {
	for _, tc := range []struct {
		path string
		max  float64
	}{
		{"/id/body.json", 5},
		{"/l1/body.json", 6},
	} {
		exchange := startSmall(t, tc.path)
		got := exchange()
		if strings.HasPrefix(tc.path, "/l1/") {
			plain, err := io.ReadAll(brotli.NewReader(bytes.NewReader(got)))
			if err != nil || len(got) >= len(smallBody) {
				t.Fatalf("%s: %d bytes that decode to %d, %v: not compressed", tc.path, len(got), len(plain), err)
			}
			got = plain
		}
		if !bytes.Equal(got, smallBody) {
			t.Fatalf("%s: body of %d bytes, want the file's %d", tc.path, len(got), len(smallBody))
		}
		if raceEnabled {
			continue // the race detector allocates on its own
		}
		if n := testing.AllocsPerRun(200, func() { exchange() }); n > tc.max {
			t.Errorf("%s: %v allocations a request, want at most %v", tc.path, n, tc.max)
		}
	}
}

// BenchmarkSmallResponse serves the 2 KB JSON on one kept connection,
// plain (id) and at brotli level 1 (l1): allocs/op and B/op are the
// server's.
func BenchmarkSmallResponse(b *testing.B) {
	for _, p := range []string{"id", "l1"} {
		b.Run(p, func(b *testing.B) {
			exchange := startSmall(b, "/"+p+"/body.json")
			exchange()
			b.ReportAllocs()
			for b.Loop() {
				exchange()
			}
		})
	}
}
