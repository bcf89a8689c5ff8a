package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Parallel brotli through the binary: brotli_thread_pool and
// brotli_parallel_* cut a body into catable segments of mosaic's own
// encoder at every level, 0 included.

func TestCompressParallelBrotliDirectives(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("one CPU: the busy-CPU rule compresses serially, with no pool")
	}
	s := startSite(t, `
error_log stderr debug;
thread_pool one threads=1;
thread_pool tiny threads=1 max_queue=1;
http {
    brotli on;
    brotli_types application/javascript;
    brotli_comp_level 4;
    brotli_thread_pool one;
    brotli_parallel_segment_size 64k;
    brotli_parallel_compressors 1;
    server {
        listen 127.0.0.1:{port};
        root {root};
        location /tasks/      { alias {root}/; brotli_parallel_tasks 2; }
        location /tiny/       { alias {root}/; brotli_thread_pool tiny; brotli_parallel_tasks 8; }
        location /default/    { alias {root}/; brotli_thread_pool default; }
        location /off/        { alias {root}/; brotli_thread_pool off; }
        location /whole/      { alias {root}/; brotli_parallel_segment_size 1m; }
        location /other/      { alias {root}/; brotli_comp_level 1; }
        location /eleven/     { alias {root}/; brotli_comp_level 11; }
    }
}`)
	large := corpus(600_000)
	if err := os.WriteFile(filepath.Join(s.root, "large.js"), large, 0o644); err != nil {
		t.Fatal(err)
	}
	s.files["large.js"] = large
	seen := 0
	fetch := func(path string) map[string]string {
		t.Helper()
		_, body := s.expect(t, path, "br", "large.js", ae, "br") // andybalholm/brotli's decoder
		if got := toolDecode(t, "brotli", body); !bytes.Equal(got, large) {
			t.Fatalf("GET %s: brotli -d gives %d bytes, want %d", path, len(got), len(large))
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

	// 600,000 bytes of known length in 64k segments: shared evenly among 9
	// (no longer than 72k each), the last compressed in the request, at most 4 (brotli_parallel_tasks' default) out at once.
	f := fetch("/large.js")
	check("brotli_thread_pool one", f, "coding=br pool=one segments=9 pooled=8 refused=0 peak=4 compressor=new")
	if _, err := time.ParseDuration(f["wait"]); err != nil {
		t.Errorf("debug line: wait=%q, want the longest wait for a worker: %v", f["wait"], err)
	}
	check("brotli_parallel_compressors 1", fetch("/large.js"), "compressor=reused")
	// Another level needs a compressor of its own: the idle one gives way,
	// as the count is full, and the first level then needs a new one.
	check("brotli_parallel_compressors 1, level 1", fetch("/other/large.js"), "segments=9 compressor=new")
	check("brotli_parallel_compressors 1, back to level 4", fetch("/large.js"), "compressor=new")
	check("brotli_parallel_tasks 2", fetch("/tasks/large.js"), "segments=9 peak=2 compressor=reused")
	f = fetch("/tiny/large.js")
	check("brotli_thread_pool tiny", f, "pool=tiny segments=9")
	if f["refused"] == "0" {
		t.Errorf("thread_pool tiny max_queue=1: no segment refused (%v)", f)
	}
	check("brotli_thread_pool default", fetch("/default/large.js"), "pool=default segments=9 refused=0")

	// Level 11 too, in mosaic's segments: 100,000 bytes in two.
	_, body := s.expect(t, "/eleven/big.js", "br", "big.js", ae, "br")
	if got := toolDecode(t, "brotli", body); !bytes.Equal(got, s.files["big.js"]) {
		t.Fatalf("level 11: brotli -d gives %d bytes, want %d", len(got), len(s.files["big.js"]))
	}
	check("brotli_comp_level 11", parallelLog(t, s.p, seen), "coding=br pool=one segments=2 pooled=1")
	seen++

	// Off, and a body within one segment: no parallel compression.
	s.expect(t, "/off/large.js", "br", "large.js", ae, "br")
	s.expect(t, "/whole/large.js", "br", "large.js", ae, "br")
	time.Sleep(100 * time.Millisecond)
	out := s.p.out.String()
	if n := strings.Count(out, `msg="parallel compression"`); n != seen {
		t.Errorf("%d parallel compression lines, want %d:\n%s", n, seen, out)
	}
	// Every level is cut: the configuration has nothing to warn of.
	if strings.Contains(out, "brotli_thread_pool:") {
		t.Errorf("a brotli_thread_pool notice:\n%s", out)
	}
}
