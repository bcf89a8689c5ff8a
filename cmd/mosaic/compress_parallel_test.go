package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Parallel compression through the binary: thread_pool, and the
// *_thread_pool and *_parallel_* directives of gzip, zstd and brotli.

// parallelLog waits for the next "parallel compression" debug line after
// the first skip ones and returns its fields.
func parallelLog(t *testing.T, p *proc, skip int) map[string]string {
	t.Helper()
	deadline := time.Now().Add(waitCeiling)
	for {
		var lines []string
		for _, l := range strings.Split(p.out.String(), "\n") {
			if strings.Contains(l, `msg="parallel compression"`) {
				lines = append(lines, l)
			}
		}
		if len(lines) > skip {
			fields := map[string]string{}
			for _, m := range regexp.MustCompile(`(\w+)=(\S+)`).FindAllStringSubmatch(lines[skip], -1) {
				fields[m[1]] = m[2]
			}
			return fields
		}
		if time.Now().After(deadline) {
			t.Fatalf("no parallel compression line after %d:\n%s", skip, p.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// toolDecode decodes b with the coding's command-line tool (gzip -d, zstd
// -d), an independent decoder; the test is skipped without it.
func toolDecode(t *testing.T, coding string, b []byte) []byte {
	t.Helper()
	if _, err := exec.LookPath(coding); err != nil {
		t.Skipf("no %s command: %v", coding, err)
	}
	cmd := exec.Command(coding, "-d", "-c")
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -d: %v: %s", coding, err, stderr.String())
	}
	return out
}

func TestCompressParallelDirectives(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: the busy-CPU rule compresses serially, with no pool")
	}
	for _, tool := range []string{"gzip", "zstd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s command: %v", tool, err)
		}
	}
	s := startSite(t, `
error_log stderr debug;
thread_pool one threads=1;
thread_pool tiny threads=1 max_queue=1;
http {
    gzip on;
    gzip_types application/javascript;
    gzip_comp_level 9;
    gzip_thread_pool one;
    gzip_parallel_segment_size 64k;
    gzip_parallel_compressors 1;
    zstd on;
    zstd_types application/javascript;
    zstd_comp_level 7;
    zstd_thread_pool one;
    zstd_parallel_segment_size 128k;
    zstd_parallel_compressors 0;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /tasks/   { alias {root}/; gzip_parallel_tasks 2; }
        location /tiny/    { alias {root}/; gzip_thread_pool tiny; gzip_parallel_tasks 8; }
        location /default/ { alias {root}/; gzip_thread_pool default; }
        location /off/     { alias {root}/; gzip_thread_pool off; }
        location /whole/   { alias {root}/; gzip_parallel_segment_size 1m; }
        location /other/   { alias {root}/; gzip_comp_level 5; }
    }
}`)
	large := corpus(600_000)
	if err := os.WriteFile(filepath.Join(s.root, "large.js"), large, 0o644); err != nil {
		t.Fatal(err)
	}
	s.files["large.js"] = large
	seen := 0
	fetch := func(path, coding string) map[string]string {
		t.Helper()
		_, body := s.expect(t, path, coding, "large.js", ae, coding)
		if got := toolDecode(t, coding, body); !bytes.Equal(got, large) {
			t.Fatalf("GET %s: %s -d gives %d bytes, want %d", path, coding, len(got), len(large))
		}
		f := parallelLog(t, s.p, seen)
		seen++
		return f
	}
	check := func(what string, f map[string]string, want string) {
		t.Helper()
		for _, kv := range strings.Fields(want) {
			k, v, _ := strings.Cut(kv, "=")
			if f[k] != v {
				t.Errorf("%s: %s=%s, want %s (%v)", what, k, f[k], v, f)
			}
		}
	}

	// 600,000 bytes of known length in 64k segments: shared evenly among
	// 9 (no longer than 72k each), the last compressed in the request. gzip_parallel_compressors 1: the first response makes the
	// compressor, the next one reuses it.
	f := fetch("/large.js", "gzip")
	check("gzip_thread_pool one", f, "coding=gzip pool=one segments=9 pooled=8 refused=0 compressor=new")
	if f["peak"] != "4" {
		t.Errorf("gzip_parallel_tasks 4 (default): peak %s segments at once, want 4", f["peak"])
	}
	check("gzip_parallel_compressors 1", fetch("/large.js", "gzip"), "compressor=reused")
	// Another level needs a compressor of its own: the idle one gives way,
	// as the count is full, and the first level then needs a new one.
	check("gzip_parallel_compressors 1, level 5", fetch("/other/large.js", "gzip"), "compressor=new")
	check("gzip_parallel_compressors 1, back to level 9", fetch("/large.js", "gzip"), "compressor=new")
	check("gzip_parallel_tasks 2", fetch("/tasks/large.js", "gzip"), "segments=9 peak=2 compressor=reused")
	// tiny's queue holds one task: of 8 handed out at once, those that
	// find it full are compressed in the request.
	f = fetch("/tiny/large.js", "gzip")
	check("gzip_thread_pool tiny", f, "pool=tiny segments=9")
	if f["refused"] == "0" {
		t.Errorf("thread_pool tiny max_queue=1: no segment refused (%v)", f)
	}
	check("gzip_thread_pool default", fetch("/default/large.js", "gzip"), "pool=default segments=9 refused=0")
	// 128k segments: 5 (4 of 144k would not hold it). zstd_parallel_compressors 0: every response has
	// its own.
	check("zstd_thread_pool one", fetch("/large.js", "zstd"), "coding=zstd pool=one segments=5 pooled=4 compressor=unpooled")
	check("zstd_parallel_compressors 0", fetch("/large.js", "zstd"), "compressor=unpooled")

	// Off, and a body within one segment: no parallel compression.
	s.expect(t, "/off/large.js", "gzip", "large.js", ae, "gzip")
	s.expect(t, "/whole/large.js", "gzip", "large.js", ae, "gzip")
	s.expect(t, "/large.js", "", "large.js", ae, "br") // brotli is off
	time.Sleep(100 * time.Millisecond)
	if n := strings.Count(s.p.out.String(), `msg="parallel compression"`); n != seen {
		t.Errorf("%d parallel compression lines, want %d:\n%s", n, seen, s.p.out.String())
	}
}

func TestCompressParallelConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "t.conf")
	for _, tc := range []struct{ line, want string }{
		{"gzip_thread_pool nope;", `unknown thread pool "nope"`},
		{"zstd_thread_pool nope;", `unknown thread pool "nope"`},
		{"brotli_thread_pool nope;", `unknown thread pool "nope"`},
		{"gzip_parallel_segment_size 32k;", `invalid value "32k" in "gzip_parallel_segment_size" directive, it must be 64k..16m`},
		{"zstd_parallel_segment_size 17m;", `invalid value "17m" in "zstd_parallel_segment_size" directive`},
		{"brotli_parallel_segment_size 1k;", `invalid value "1k" in "brotli_parallel_segment_size" directive`},
		{"gzip_parallel_tasks 0;", `"gzip_parallel_tasks"`},
		{"brotli_parallel_tasks 1025;", `"brotli_parallel_tasks"`},
		{"zstd_parallel_compressors 1025;", `"zstd_parallel_compressors"`},
	} {
		conf := fmt.Sprintf("http {\n    %s\n    server { listen 127.0.0.1:1; }\n}\n", tc.line)
		os.WriteFile(path, []byte(conf), 0o644)
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil {
			t.Errorf("%s: loads", tc.line)
			continue
		}
		if !strings.Contains(string(out), tc.want) || !strings.Contains(string(out), path+":2") {
			t.Errorf("%s: output %q, want %q at %s:2", tc.line, out, tc.want, path)
		}
	}
	// A pool may be declared after the directive that names it, and
	// "default" exists undeclared.
	conf := "http {\n    gzip_thread_pool late;\n    zstd_thread_pool default;\n    server { listen 127.0.0.1:1; }\n}\nthread_pool late threads=2;\n"
	os.WriteFile(path, []byte(conf), 0o644)
	configTest(t, path)
}

// The seed's thread-pool example loads unchanged; served, with only its
// port, root and upstream moved to the test's, it compresses with brotli
// in both locations.
func TestSeed000ThreadPoolConfiguration(t *testing.T) {
	seed := testdataConf(t, "seed000-thread-pool.conf")
	dir := t.TempDir()
	path := filepath.Join(dir, "seed.conf")
	if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	out := configTest(t, path)
	if want := `[notice] ignoring "load_module" directive in ` + path + `:2`; !strings.Contains(out, want) {
		t.Errorf("-t output lacks %q:\n%s", want, out)
	}
	// brotli_comp_level 6 is cut into segments: nothing to warn of.
	if strings.Contains(out, "brotli_thread_pool:") {
		t.Errorf("-t output has a brotli_thread_pool notice:\n%s", out)
	}

	api := corpus(50_000)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(api)
	}))
	t.Cleanup(origin.Close)
	moved := strings.NewReplacer(
		"listen 80;", "listen 127.0.0.1:{port};",
		"root /var/www;", "root {root};",
		"proxy_pass http://127.0.0.1:8080;", "proxy_pass "+origin.URL+";",
	).Replace(seed)
	if strings.Count(moved, "{") != strings.Count(seed, "{")+2 {
		t.Fatal("testdata/seed000-thread-pool.conf no longer has the lines the test moves")
	}
	s := startSite(t, moved)
	s.files["api.json"] = api
	s.expect(t, "/big.js", "br", "big.js", ae, "gzip, deflate, br")
	s.expect(t, "/api/x", "br", "api.json", ae, "gzip, deflate, br")
	s.expect(t, "/big.js", "", "big.js", ae, "gzip") // only brotli is on
}

// A client that stops reading stops the upstream: with a response cut into
// segments on a pool, mosaic holds a bounded number of them and stops
// reading from the proxied origin until they drain.
func TestCompressParallelBackpressure(t *testing.T) {
	// 1 MiB of random bytes, repeated: incompressible to deflate, whose
	// window is 32 KiB, so what the client does not read stays large.
	block := make([]byte, 1<<20)
	rand.NewChaCha8([32]byte{5, 6}).Read(block)
	const total = 256 << 20
	var written atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/javascript")
		for written.Load() < total {
			n, err := w.Write(block)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(origin.Close)
	port := freePort(t)
	startMosaic(t, t.TempDir(), `
thread_pool one threads=2;
http {
    gzip on;
    gzip_types application/javascript;
    gzip_thread_pool one;
    gzip_parallel_segment_size 64k;
    gzip_parallel_tasks 2;
    server {
        listen 127.0.0.1:{port};
        # The proxy reads no further ahead than its buffers: with a
        # temporary file it would read the whole body (as NGINX does),
        # and the pause would not reach the origin.
        location / { proxy_pass `+origin.URL+`; proxy_max_temp_file_size 0; }
    }
}`, port)
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(64 << 10)
	fmt.Fprintf(c, "GET /big HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
	// The client reads nothing. The origin's writes go on until the
	// sockets' buffers and mosaic's segments are full, then stop.
	last, still := int64(-1), time.Now()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		n := written.Load()
		if n != last {
			last, still = n, time.Now()
			continue
		}
		if time.Since(still) > time.Second {
			break
		}
	}
	if last >= total/4 {
		t.Fatalf("the origin wrote %d MiB of %d to a client that reads nothing", last>>20, total>>20)
	}
	if last < 1<<20 {
		t.Fatalf("the origin wrote %d bytes: the response never started", last)
	}
	// Reading resumes the flow; the response is gzip throughout.
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("Content-Encoding %q", ce)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	// The sockets may hold several MiB written before the stall: read
	// until the origin writes again, checking every MiB.
	got := make([]byte, len(block))
	for i := 0; written.Load() <= last; i++ {
		if i == 64 {
			t.Fatalf("the origin wrote nothing more while the client read 64 MiB (%d bytes)", written.Load())
		}
		if _, err := io.ReadFull(zr, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, block) {
			t.Fatalf("MiB %d of the body differs from the origin's", i)
		}
	}
}

// With worker_processes 1, a pool's threads run beside the requests' as an
// NGINX worker's do: GOMAXPROCS is the workers plus the threads of the
// pools in use, up to the CPUs, so a large body is still cut into
// segments. Without a pool in use GOMAXPROCS stays at the workers.
func TestCompressParallelOneWorker(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: a pool's threads cannot run beside the requests'")
	}
	if _, err := exec.LookPath("gzip"); err != nil {
		t.Skipf("no gzip command: %v", err)
	}
	s := startSite(t, `
error_log stderr debug;
worker_processes 1;
thread_pool one threads=1;
http {
    gzip on;
    gzip_types application/javascript;
    gzip_thread_pool one;
    gzip_parallel_segment_size 64k;
    server {
        listen 127.0.0.1:{port};
        root {root};
    }
}`)
	waitOutput(t, s.p, "gomaxprocs=2") // the start line, logged once the socket is open
	large := corpus(600_000)
	if err := os.WriteFile(filepath.Join(s.root, "large.js"), large, 0o644); err != nil {
		t.Fatal(err)
	}
	s.files["large.js"] = large
	_, body := s.expect(t, "/large.js", "gzip", "large.js", ae, "gzip")
	if got := toolDecode(t, "gzip", body); !bytes.Equal(got, large) {
		t.Fatalf("gzip -d gives %d bytes, want %d", len(got), len(large))
	}
	if f := parallelLog(t, s.p, 0); f["segments"] == "" || f["segments"] == "1" {
		t.Errorf("the body was not cut: %v", f)
	}

	one := startSite(t, `
worker_processes 1;
http { server { listen 127.0.0.1:{port}; root {root}; } }`)
	waitOutput(t, one.p, "gomaxprocs=1") // no pool in use
}
