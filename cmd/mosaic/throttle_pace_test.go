package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// pauseAt is a pause in an answer long enough to be one of the rate's
// waits (a second here), not the machine's load.
const pauseAt = 400 * time.Millisecond

// TestLimitRatePacedAsNGINX: the rate's sends are NGINX's, read on the
// wire from both servers on one configuration: a second's worth at once
// (rate × (whole seconds since the start + 1), the header counted), then
// a wait for those bytes' time, so 72 KB at 32k come as 32,768 bytes
// (header included), 32,768 a second later and the rest a second after
// that: 2 s, where mosaic took 1.25 s with a finer clock and no wait
// after each send. With limit_rate_after 48k at 16k, 64 KB at once and
// the rest a second later. (With sendfile on, NGINX rounds each send
// from a file up to a page of the file: TestLimitRateSendfileAsNGINX.)
// The runs' sizes hold however loaded the
// machine, as long as no pause of the load's reaches pauseAt; their
// times only grow with load, so the floors are firm and the ceilings
// loose.
func TestLimitRatePacedAsNGINX(t *testing.T) {
	const size = 72 << 10
	bases := limitBoth(t, map[string]string{"f": strings.Repeat("0123456789abcdef", size/16)}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off;
			server {
				%s
				location /rate/ { alias %s/; limit_rate 32k; sendfile off; }
				location /after/ { alias %[2]s/; limit_rate 16k; limit_rate_after 48k; sendfile off; }
			}`, listen, root)
	})
	want := map[string][]int{"/rate/f": {32 << 10, 32 << 10, 8 << 10}, "/after/f": {64 << 10, 8 << 10}}
	reqs := map[string]string{}
	for path := range want {
		reqs[path] = "GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
	}
	got := map[string]testclient.Runs{}
	var mu sync.Mutex
	readRunsBoth(t, bases, reqs, func(name, path string, runs testclient.Runs, _ int) {
		mu.Lock()
		got[name+" "+path] = runs
		mu.Unlock()
	})
	for name := range bases {
		for path, w := range want {
			r := got[name+" "+path]
			// The last run holds the rest of the body and the header
			// that the first took from the allowance.
			if len(r.Sizes) != len(w) || r.Sizes[0] != w[0] || (len(w) == 3 && r.Sizes[1] != w[1]) {
				t.Errorf("%s %s: runs on the wire %v at %v; want %v (the last with the header's bytes)", name, path, r.Sizes, r.At, w)
				continue
			}
			// Each wait is the last send's time at the rate: 1 s, less
			// the client's lateness in reading the run before.
			for i := 1; i < len(r.At); i++ {
				if d := r.At[i] - r.At[i-1]; d < 900*time.Millisecond || d > 3*time.Second {
					t.Errorf("%s %s: run %d came %v after the one before; want 1 s (runs %v at %v)", name, path, i, d, r.Sizes, r.At)
				}
			}
			t.Logf("%s %s: runs %v at %v", name, path, r.Sizes, r.At)
		}
	}
}

// TestLimitRateSendfileAsNGINX (fidelity16): with sendfile on (Debian's
// nginx.conf sets it), NGINX ends each send of a file's bytes that the
// allowance cuts short on a page of the file (ngx_chain_coalesce_file):
// 100 KB at 32k comes as the header and 32,768 bytes of the file, then
// 32,768, 32,768 and 4,096 a second apart (sendfile off: 32,768 with the
// header, ..., 4,335); a range from byte 1000 as the header and 35,864
// bytes, to the page at 36,864. Both servers' runs, less their headers
// (whose lengths differ), must be the same. sendfile_max_chunk caps a
// send, header included: at limit_rate 10000 with a cap of 9000 (and
// sendfile off, whose sends the pages do not round) the first run is
// 9,000 bytes, the next 900 ms later; mosaic sent 10,000 before.
func TestLimitRateSendfileAsNGINX(t *testing.T) {
	const size = 100 << 10
	body := strings.Repeat("0123456789abcdef", size/16)
	bases := limitBoth(t, map[string]string{"f": body}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off;
			server {
				%s
				location /on/ { alias %s/; limit_rate 32k; sendfile on; }
				location /chunk/ { alias %[2]s/; limit_rate 10000; sendfile_max_chunk 9000; sendfile off; }
			}`, listen, root)
	})
	reqs := map[string]string{
		"whole": "GET /on/f HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
		"range": "GET /on/f HTTP/1.1\r\nHost: t\r\nRange: bytes=1000-\r\nConnection: close\r\n\r\n",
		// The first 30,000 bytes: 9,000 a send, 3 s in all.
		"chunk": "GET /chunk/f HTTP/1.1\r\nHost: t\r\nRange: bytes=0-29999\r\nConnection: close\r\n\r\n",
	}
	want := map[string][]int{"whole": {32768, 32768, 32768, 4096}, "range": {35864, 32768, 32768}, "chunk": {9000}}
	got := map[string][]int{}
	var mu sync.Mutex
	readRunsBoth(t, bases, reqs, func(name, req string, runs testclient.Runs, header int) {
		floor := 900 * time.Millisecond
		if req == "chunk" {
			// The header counts in the cap: the first run,
			// header and all, then the rest.
			if len(runs.Sizes) > 0 {
				runs.Sizes = []int{runs.Sizes[0]}
			}
			floor = 800 * time.Millisecond
		} else if len(runs.Sizes) > 0 {
			runs.Sizes[0] -= header
		}
		for i := 1; i < len(runs.At); i++ {
			if d := runs.At[i] - runs.At[i-1]; d < floor {
				t.Errorf("%s %s: run %d came %v after the one before; want 1 s (runs %v at %v)", name, req, i, d, runs.Sizes, runs.At)
			}
		}
		t.Logf("%s %s: body runs %v at %v", name, req, runs.Sizes, runs.At)
		mu.Lock()
		got[name+" "+req] = runs.Sizes
		mu.Unlock()
	})
	for name := range bases {
		for req, w := range want {
			if g := got[name+" "+req]; fmt.Sprint(g) != fmt.Sprint(w) {
				t.Errorf("%s %s: the body's runs on the wire %v, want %v", name, req, g, w)
			}
		}
	}
}
