package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// limitBoth runs mosaic and Debian's NGINX (when installed) on the http
// block that block makes (listen line, root), each with a root of its own
// holding files, and returns their base URLs by name.
func limitBoth(t *testing.T, files map[string]string, block func(listen, root string) string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for _, name := range []string{"mosaic", "nginx"} {
		if name == "nginx" {
			if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
				continue
			}
		}
		sdir := filepath.Join(dir, name)
		root := filepath.Join(sdir, "www")
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, body := range files {
			writeFile(t, filepath.Join(root, f), body)
		}
		port := freePort(t)
		if name == "mosaic" {
			startMosaic(t, sdir, "http {"+block("listen 127.0.0.1:{port};", root)+"}", port)
		} else {
			startNGINX(t, sdir, block(fmt.Sprintf("listen 127.0.0.1:%d;", port), root), port)
		}
		out[name] = fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	return out
}

// readRunsBoth sends every request of reqs (by name, as written) to
// every server of bases (limitBoth's) at once and reads each answer's runs
// (testclient.ReadRuns, split at pauseAt): all at once, so that the
// rates' seconds run side by side rather than one after the other. check
// gets each answer's runs and its header's length, on the request's own
// goroutine; a request that fails is reported, not checked.
func readRunsBoth(t *testing.T, bases, reqs map[string]string, check func(name, req string, runs testclient.Runs, header int)) {
	var wg sync.WaitGroup
	for name, base := range bases {
		for req, text := range reqs {
			wg.Go(func() {
				_, b, runs, err := testclient.ReadRuns(strings.TrimPrefix(base, "http://"), text, pauseAt, 20*time.Second)
				if err != nil {
					t.Error(err)
					return
				}
				header := -len(b)
				for _, n := range runs.Sizes {
					header += n
				}
				check(name, req, runs, header)
			})
		}
	}
	wg.Wait()
}

type limitAnswer struct {
	code  int
	limit string // X-Limit
	took  time.Duration
}

// concurrentAnswers sends n requests at once and returns their answers,
// fastest first.
func concurrentAnswers(t *testing.T, url string, n int) []limitAnswer {
	t.Helper()
	out := make([]limitAnswer, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	var t0 time.Time
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out[i] = limitAnswer{resp.StatusCode, resp.Header.Get("X-Limit"), time.Since(t0)}
		}()
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].took < out[j].took })
	return out
}

// TestLimitReqLargestBurstMatchesNGINX: burst= and delay= at int64's
// largest, which NGINX accepts and multiplies by 1000 past its range,
// still mean no bound in both: three requests at 1r/m all pass at once,
// where burst=1 refuses the third.
func TestLimitReqLargestBurstMatchesNGINX(t *testing.T) {
	bases := limitBoth(t, map[string]string{"f": "f"}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off;
			limit_req_zone $uri zone=b:1m rate=1r/m;
			server {
				%s
				add_header X-Limit $limit_req_status always;
				location /max/ { limit_req zone=b burst=9223372036854775807 nodelay; alias %[2]s/; }
				location /delay/ { limit_req zone=b burst=5 delay=9223372036854775807; alias %[2]s/; }
				location /one/ { limit_req zone=b burst=1 nodelay; alias %[2]s/; }
			}`, listen, root)
	})
	wants := map[string]string{
		"/max/f":   "200 PASSED, 200 PASSED, 200 PASSED",
		"/delay/f": "200 PASSED, 200 PASSED, 200 PASSED",
		"/one/f":   "200 PASSED, 200 PASSED, 503 REJECTED",
	}
	for name, base := range bases {
		for path, want := range wants {
			var kinds []string
			for range 3 {
				a := concurrentAnswers(t, base+path, 1)[0]
				if a.took > 300*time.Millisecond {
					t.Errorf("%s %s: an answer took %v", name, path, a.took)
				}
				kinds = append(kinds, fmt.Sprint(a.code, " ", a.limit))
			}
			if got := strings.Join(kinds, ", "); got != want {
				t.Errorf("%s %s: %s, want %s", name, path, got, want)
			}
		}
	}
}

// TestLimitReqDelayMatchesNGINX: limit_req burst=4 delay=2 at 5r/s, six
// requests at once: the first and two of the burst go at once, the next
// two wait 200 and 400 ms, the sixth is refused at once; the statuses
// and $limit_req_status values are NGINX's on the same configuration.
func TestLimitReqDelayMatchesNGINX(t *testing.T) {
	bases := limitBoth(t, map[string]string{"f": "f"}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off;
			limit_req_zone $binary_remote_addr zone=d:1m rate=5r/s;
			server {
				%s
				add_header X-Limit $limit_req_status always;
				location /d/ { limit_req zone=d burst=4 delay=2; alias %s/; }
			}`, listen, root)
	})
	ms := time.Millisecond
	results := map[string]string{}
	for name, base := range bases {
		answers := concurrentAnswers(t, base+"/d/f", 6)
		var kinds []string
		var passed []time.Duration
		for _, a := range answers {
			kinds = append(kinds, fmt.Sprint(a.code, " ", a.limit))
			if a.code == 200 {
				passed = append(passed, a.took)
			} else if a.took > 300*ms {
				t.Errorf("%s: the refusal took %v", name, a.took)
			}
		}
		sort.Strings(kinds)
		results[name] = strings.Join(kinds, ", ")
		if want := "200 DELAYED, 200 DELAYED, 200 PASSED, 200 PASSED, 200 PASSED, 503 REJECTED"; results[name] != want {
			t.Errorf("%s: %s, want %s", name, results[name], want)
			continue
		}
		for i, want := range []time.Duration{0, 0, 0, 200 * ms, 400 * ms} {
			if passed[i] < want-30*ms || passed[i] > want+300*ms {
				t.Errorf("%s: request %d took %v, want about %v (all: %v)", name, i, passed[i], want, passed)
			}
		}
	}
	if n, ok := results["nginx"]; ok && n != results["mosaic"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], n)
	}
}

// heldOrigin answers every request with its body, holding one for a path
// ending in /slow (arrived says it came) until release is closed, at the
// latest when the test ends: a request in progress for limit_conn.
type heldOrigin struct {
	addr    string
	arrived chan struct{}
	release chan struct{}
}

func newHeldOrigin(t *testing.T, body string) *heldOrigin {
	h := &heldOrigin{arrived: make(chan struct{}, 10), release: make(chan struct{})}
	o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/slow") {
			h.arrived <- struct{}{}
			<-h.release
		}
		io.WriteString(w, body)
	}))
	t.Cleanup(o.Close)
	t.Cleanup(func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	})
	h.addr = o.Listener.Addr().String()
	return h
}

// TestLimitConnMatchesNGINX: limit_conn 1 with limit_conn_status 429
// refuses a second request while the first is in progress; limit_conn 2
// the third, with the default 503; limit_conn_dry_run refuses nothing
// and says what it would have done; once the requests end, the next
// passes. Statuses and $limit_conn_status are NGINX's.
func TestLimitConnMatchesNGINX(t *testing.T) {
	origins := []*heldOrigin{newHeldOrigin(t, "origin"), newHeldOrigin(t, "origin")}
	next := 0
	byServer := map[string]*heldOrigin{}
	bases := limitBoth(t, nil, func(listen, _ string) string {
		o := origins[next]
		addr := o.addr
		next++
		block := fmt.Sprintf(`access_log off;
			limit_conn_zone $binary_remote_addr zone=one:1m;
			limit_conn_zone $binary_remote_addr zone=two:1m;
			limit_conn_zone $binary_remote_addr zone=dry:1m;
			server {
				%s
				add_header X-Limit $limit_conn_status always;
				location /one/ { limit_conn one 1; limit_conn_status 429; proxy_pass http://%s; }
				location /two/ { limit_conn two 2; proxy_pass http://%[2]s; }
				location /dry/ { limit_conn dry 1; limit_conn_dry_run on; limit_conn_status 429; proxy_pass http://%[2]s; }
			}`, listen, addr)
		// limitBoth starts mosaic first, then NGINX.
		byServer[map[int]string{1: "mosaic", 2: "nginx"}[next]] = o
		return block
	})
	results := map[string]string{}
	for name, base := range bases {
		h := byServer[name]
		var out []string
		ask := func(path string) {
			resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out = append(out, fmt.Sprint(path, " ", resp.StatusCode, " ", resp.Header.Get("X-Limit")))
		}
		var held sync.WaitGroup
		hold := func(path string) {
			held.Add(1)
			go func() {
				defer held.Done()
				resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + path)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			select {
			case <-h.arrived:
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: %s never reached the origin", name, path)
			}
		}
		hold("/one/slow")
		ask("/one/fast")
		hold("/two/slow")
		hold("/two/slow")
		ask("/two/fast")
		hold("/dry/slow")
		ask("/dry/fast")
		close(h.release)
		held.Wait()
		ask("/one/fast")
		ask("/two/fast")
		results[name] = strings.Join(out, "; ")
	}
	want := "/one/fast 429 REJECTED; /two/fast 503 REJECTED; /dry/fast 200 REJECTED_DRY_RUN; /one/fast 200 PASSED; /two/fast 200 PASSED"
	if results["mosaic"] != want {
		t.Errorf("mosaic:\n got  %s\n want %s", results["mosaic"], want)
	}
	if n, ok := results["nginx"]; ok && n != results["mosaic"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], n)
	}
}

// TestLimitRateThroughBinary: limit_rate 32k paces a 72 KB file: a
// second's worth goes at once, as NGINX allows, and the rest a second's
// worth a second later each (2 s, as NGINX); with limit_rate_after 48k
// and limit_rate 16k the first 48 KB go at once, the rest is paced (1 s);
// without a limit it all goes at once. The ceilings are wide for a loaded
// machine; an ignored limit_rate or limit_rate_after falls outside the
// bounds. TestLimitRatePacedAsNGINX reads the sends themselves.
func TestLimitRateThroughBinary(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 4608) // 72 KB
	bases := limitBoth(t, map[string]string{"f": body}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				location /free/ { alias %s/; }
				location /rate/ { alias %[2]s/; limit_rate 32k; }
				location /after/ { alias %[2]s/; limit_rate 16k; limit_rate_after 48k; }
			}`, listen, root)
	})
	// timed returns when the first 48 KB and the whole body arrived.
	timed := func(url string) (first, all time.Duration) {
		t0 := time.Now()
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := io.ReadFull(resp.Body, make([]byte, 48<<10)); err != nil {
			t.Fatal(err)
		}
		first = time.Since(t0)
		rest, _ := io.ReadAll(resp.Body)
		if len(rest) != 24<<10 {
			t.Fatalf("%s: %d bytes after the first 48 KB", url, len(rest))
		}
		return first, time.Since(t0)
	}
	// Both servers at once, their paced seconds side by side: the
	// bounds are each answer's own. Clear of the turn of a second, whose
	// allowance would let the after case's rest go at once.
	testclient.StartMidSecond()
	type times struct{ free, rate, after [2]time.Duration }
	got := map[string]*times{}
	var wg sync.WaitGroup
	for name, base := range bases {
		tm := &times{}
		got[name] = tm
		for _, c := range []struct {
			path string
			into *[2]time.Duration
		}{{"/free/f", &tm.free}, {"/rate/f", &tm.rate}, {"/after/f", &tm.after}} {
			wg.Go(func() {
				f, a := timed(base + c.path)
				*c.into = [2]time.Duration{f, a}
			})
		}
	}
	wg.Wait()
	for name, tm := range got {
		free, rate, after := tm.free, tm.rate, tm.after
		if free[1] > time.Second {
			t.Errorf("%s: without a limit: %v", name, free[1])
		}
		if rate[1] < 1900*time.Millisecond || rate[1] > 6*time.Second {
			t.Errorf("%s: limit_rate 32k: 72 KB in %v, want about 2 s", name, rate[1])
		}
		if after[0] > 1500*time.Millisecond || after[1] < 900*time.Millisecond || after[1] > 5*time.Second {
			t.Errorf("%s: limit_rate_after 48k: first 48 KB in %v, all in %v; want at once, the rest paced", name, after[0], after[1])
		}
		t.Logf("%s: free %v, rate %v, after %v", name, free, rate, after)
	}
}
