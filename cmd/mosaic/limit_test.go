package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// limitGet sends one GET and returns its status and X-Limit header.
func limitGet(t *testing.T, url string, header ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("X-Limit")
}

// statuses sends n GETs one after the other.
func statuses(t *testing.T, url string, n int, header ...string) []int {
	t.Helper()
	out := make([]int, n)
	for i := range out {
		out[i], _ = limitGet(t, url, header...)
	}
	return out
}

// limitSite is a site whose locations serve a file behind limits.
func limitSite(t *testing.T, httpBlock string) (string, *proc) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/f"), "file\n")
	port := freePort(t)
	conf := strings.ReplaceAll(httpBlock, "{root}", filepath.Join(dir, "www"))
	p := startMosaic(t, dir, "http {\n"+conf+"\n}", port)
	return fmt.Sprintf("http://127.0.0.1:%d", port), p
}

// TestLimitReqBurstAndStatus: with nodelay, burst requests pass at once
// and the next are refused with limit_req_status; $limit_req_status says
// which; a dry run refuses nothing but says what it would have done.
func TestLimitReqBurstAndStatus(t *testing.T) {
	// A rate of one a minute: what is counted is the burst, and a request
	// the loaded machine sends a second late must not find a token back,
	// as at one a second.
	base, p := limitSite(t, `
		limit_req_zone $binary_remote_addr zone=a:1m rate=1r/m;
		limit_req_zone $binary_remote_addr zone=dry:1m rate=1r/m;
		limit_req_zone $http_x_key zone=bykey:1m rate=1r/m;
		limit_req_zone $binary_remote_addr zone=e:1m rate=1r/m;
		server {
			listen 127.0.0.1:{port};
			root {root};
			add_header X-Limit $limit_req_status always;
			location /a/ { limit_req zone=a burst=2 nodelay; limit_req_status 429; alias {root}/; }
			location /dry/ { limit_req zone=dry; limit_req_dry_run on; alias {root}/; }
			location /key/ { limit_req zone=bykey nodelay; alias {root}/; }
			location /ret/ { limit_req zone=a; return 200 "rewrite phase"; }
			location /e/ { limit_req zone=e; error_page 503 /busy; alias {root}/; }
			location = /busy { limit_req zone=e; alias {root}/f; }
		}`)
	var got []string
	for i := 0; i < 4; i++ {
		code, v := limitGet(t, base+"/a/f")
		got = append(got, fmt.Sprint(code, " ", v))
	}
	if want := "[200 PASSED 200 PASSED 200 PASSED 429 REJECTED]"; fmt.Sprint(got) != want {
		t.Errorf("burst=2 nodelay: %v, want %s", got, want)
	}
	got = nil
	for i := 0; i < 2; i++ {
		code, v := limitGet(t, base+"/dry/f")
		got = append(got, fmt.Sprint(code, " ", v))
	}
	if want := "[200 PASSED 200 REJECTED_DRY_RUN]"; fmt.Sprint(got) != want {
		t.Errorf("dry run: %v, want %s", got, want)
	}
	// An empty key is not limited; each key has its own bucket.
	if s := statuses(t, base+"/key/f", 3); fmt.Sprint(s) != "[200 200 200]" {
		t.Errorf("empty key: %v", s)
	}
	if s := statuses(t, base+"/key/f", 2, "X-Key", "k1"); fmt.Sprint(s) != "[200 503]" {
		t.Errorf("key k1: %v", s)
	}
	if s := statuses(t, base+"/key/f", 1, "X-Key", "k2"); fmt.Sprint(s) != "[200]" {
		t.Errorf("key k2: %v", s)
	}
	// A return answers in the rewrite phase, before the limits.
	if s := statuses(t, base+"/ret/", 3); fmt.Sprint(s) != "[200 200 200]" {
		t.Errorf("return: %v", s)
	}
	// The error page of a refused request is served, though its location
	// has the same limit: a request is limited once.
	if s := statuses(t, base+"/e/f", 1); fmt.Sprint(s) != "[200]" {
		t.Errorf("/e/ first: %v", s)
	}
	resp, body := httpGet(t, base+"/e/f")
	if resp.StatusCode != 503 || body != "file\n" {
		t.Errorf("error_page of a refusal: %d %q, want 503 with the page", resp.StatusCode, body)
	}
	waitOutput(t, p, `limiting requests, excess: `)
	waitOutput(t, p, `by zone \"a\"`)
	waitOutput(t, p, `limiting requests, dry run, excess: `)
}

// concurrentLatencies sends n requests at once and returns their answers
// ("status $limit_req_status", from X-Limit) and when they ended, counted
// from when they were let go (which makes a request that the scheduler
// sent late end at its turn all the same: its bucket drained meanwhile),
// sorted by that time.
func concurrentLatencies(t *testing.T, url string, n int) ([]string, []time.Duration) {
	t.Helper()
	type res struct {
		answer string
		d      time.Duration
	}
	out := make([]res, n)
	var wg sync.WaitGroup
	var t0 time.Time // set before start is closed
	start := make(chan struct{})
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			resp, err := http.Get(url)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			out[i] = res{fmt.Sprintf("%d %s", resp.StatusCode, resp.Header.Get("X-Limit")), time.Since(t0)}
		}()
	}
	t0 = time.Now()
	close(start)
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].d < out[j].d })
	answers, ds := make([]string, n), make([]time.Duration, n)
	for i, r := range out {
		answers[i], ds[i] = r.answer, r.d
	}
	return answers, ds
}

// TestLimitReqDelays: without nodelay, the requests of a burst wait for
// their turn at the rate (1r/s: a second apart); with delay=2, the first
// two excess requests pass at once and the third waits; with nodelay none
// waits. The request beyond the burst is refused at once.
//
// $limit_req_status says which requests were delayed, and each answer
// must come no sooner than its turn and before the next one. At 5r/s,
// with turns 200 ms apart, a fifth request that the loaded machine sent
// 250 ms late found a token back and passed (no refusal), and answers
// were asserted within 300 ms of their turns; a second apart, a client
// may send its request most of a second late and the count holds.
func TestLimitReqDelays(t *testing.T) {
	base, _ := limitSite(t, `
		limit_req_zone $binary_remote_addr zone=d:1m rate=1r/s;
		limit_req_zone $binary_remote_addr zone=d2:1m rate=1r/s;
		limit_req_zone $binary_remote_addr zone=n:1m rate=1r/s;
		server {
			listen 127.0.0.1:{port};
			add_header X-Limit $limit_req_status always;
			location /d/ { limit_req zone=d burst=3; alias {root}/; }
			location /d2/ { limit_req zone=d2 burst=3 delay=2; alias {root}/; }
			location /n/ { limit_req zone=n burst=3 nodelay; alias {root}/; }
		}`)
	const turn = time.Second
	for _, c := range []struct {
		path    string
		delayed int // how many of the passing requests wait
	}{
		{"/d/f", 3},
		{"/d2/f", 1},
		{"/n/f", 0},
	} {
		answers, ds := concurrentLatencies(t, base+c.path, 5)
		// In the order they ended: the refusal and the requests not
		// delayed, at once (in any order among them), then one a turn.
		atOnce := 5 - c.delayed
		want := append(slices.Repeat([]string{"200 PASSED"}, atOnce-1), "503 REJECTED")
		want = append(want, slices.Repeat([]string{"200 DELAYED"}, c.delayed)...)
		got := slices.Clone(answers)
		slices.Sort(got[:atOnce])
		if !slices.Equal(got, want) {
			t.Errorf("%s: answers %q, want %q", c.path, answers, want)
			continue
		}
		for i, d := range ds {
			at := time.Duration(max(i-atOnce+1, 0)) * turn
			if d < at-30*time.Millisecond || d >= at+turn {
				t.Errorf("%s: answer %d (%s) took %v, want it at its turn, %v (all: %v)", c.path, i, answers[i], d, at, ds)
			}
		}
	}
}

// TestLimitConn: one request per address in progress; a second is refused
// with limit_conn_status while the first runs, and passes once it ended.
func TestLimitConn(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 4)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, "origin")
	}))
	t.Cleanup(origin.Close)
	base, p := limitSite(t, `
		limit_conn_zone $binary_remote_addr zone=c:1m;
		limit_conn_zone $http_x_dry zone=cdry:1m;
		server {
			listen 127.0.0.1:{port};
			add_header X-Limit $limit_conn_status always;
			location / { limit_conn c 1; limit_conn_status 429; limit_conn_log_level warn; proxy_pass http://`+origin.Listener.Addr().String()+`; }
			location /dry/ { limit_conn cdry 1; limit_conn_dry_run on; proxy_pass http://`+origin.Listener.Addr().String()+`/; }
		}`)
	done := make(chan int, 1)
	go func() {
		code, _ := limitGet(t, base+"/slow")
		done <- code
	}()
	<-entered
	if code, v := limitGet(t, base+"/fast"); code != 429 || v != "REJECTED" {
		t.Errorf("second request in progress: %d %q, want 429 REJECTED", code, v)
	}
	close(release)
	if code := <-done; code != 200 {
		t.Errorf("first request: %d", code)
	}
	if code, v := limitGet(t, base+"/fast"); code != 200 || v != "PASSED" {
		t.Errorf("after the first ended: %d %q", code, v)
	}
	waitOutput(t, p, `level=warn msg="limiting connections by zone \"c\""`)

	// Dry run: counted and logged, never refused.
	release2 := make(chan struct{})
	origin.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release2
		}
		io.WriteString(w, "origin")
	})
	go func() {
		code, _ := limitGet(t, base+"/dry/slow", "X-Dry", "k")
		done <- code
	}()
	<-entered
	if code, v := limitGet(t, base+"/dry/fast", "X-Dry", "k"); code != 200 || v != "REJECTED_DRY_RUN" {
		t.Errorf("dry run: %d %q", code, v)
	}
	close(release2)
	<-done
	waitOutput(t, p, `limiting connections, dry run, by zone \"cdry\"`)
}

// TestLimitConfigErrors: NGINX's messages, with file and line.
func TestLimitConfigErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ conf, want string }{
		{`limit_req_zone $binary_remote_addr zone=a rate=1r/s;`, `invalid zone size "zone=a" in`},
		{`limit_req_zone $binary_remote_addr zone=a:1k rate=1r/s;`, `zone "zone=a:1k" is too small in`},
		{`limit_req_zone $binary_remote_addr zone=a:1m rate=0r/s;`, `invalid rate "rate=0r/s" in`},
		{`limit_req_zone $binary_remote_addr rate=1r/s rate=2r/s;`, `"limit_req_zone" must have "zone" parameter in`},
		// redis_timeout= is mosaic's own, for a zone in Redis only.
		{`limit_req_zone $uri zone=a:1m rate=1r/s redis_timeout=1s;`, `"redis_timeout" applies to a zone in Redis in`},
		{`limit_conn_zone $uri zone=a:1m redis://127.0.0.1:1/0 redis_timeout=0;`, `invalid redis_timeout value "redis_timeout=0" in`},
		{`limit_req_zone $uri zone=a:1m rate=1r/s redis://127.0.0.1:1/0 redis_timeout=fast;`, `invalid redis_timeout value "redis_timeout=fast" in`},
		{`limit_req_zone $uri zone=a:1m redis://127.0.0.1:1/0 redis_timeout=1s redis_timeout=2s;`, `duplicate redis_timeout value "redis_timeout=2s" in`},
		// Beyond the URL and redis_timeout=, NGINX's count of arguments.
		{`limit_req_zone $uri zone=a:1m rate=1r/s rate=2r/s;`, `invalid number of arguments in "limit_req_zone" directive in`},
		{`limit_req_zone $uri zone=a:1m rate=1r/s rate=2r/s redis_timeout=1s;`, `invalid number of arguments in "limit_req_zone" directive in`},
		{`limit_conn_zone $uri zone=a:1m zone=b:1m redis://127.0.0.1:1/0;`, `invalid number of arguments in "limit_conn_zone" directive in`},
		{"limit_req_zone $binary_remote_addr zone=a:1m rate=1r/s;\nlimit_req_zone $uri zone=a:1m rate=1r/s;", `limit_req_zone "a" is already bound to key "$binary_remote_addr" in`},
		{"limit_req_zone $uri zone=a:1m rate=1r/s;\nlimit_conn_zone $uri zone=a:1m;", `the shared memory zone "a" is already declared for a different use in`},
		{`server { location / { limit_req zone=none; } }`, `zero size shared memory zone "none" in`},
		{"limit_req_zone $uri zone=a:1m rate=1r/s;\nserver { limit_req zone=a burst=0; }", `invalid burst value "burst=0" in`},
		{"limit_req_zone $uri zone=a:1m rate=1r/s;\nserver { limit_req zone=a; limit_req zone=a; }", `"limit_req" directive is duplicate in`},
		{"limit_conn_zone $uri zone=c:1m;\nserver { limit_conn c 65536; }", `connection limit must be less 65536 in`},
		{"server { limit_req_status 399; }", `value must be between 400 and 599 in`},
		{"server { limit_conn_log_level debug; }", `invalid value "debug" in`},
		{"server { limit_req_status abc; }", `"limit_req_status" directive invalid number in`},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.conf")
		writeFile(t, path, "http {\n"+c.conf+"\n}\n")
		b, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		out := string(b)
		if err == nil || !strings.Contains(out, c.want) || !strings.Contains(out, path+":") {
			t.Errorf("%s:\n got %v %q\nwant %q", c.conf, err, out, c.want)
		}
	}
}

// TestLimitReqRedisSharedByTwoInstances: two mosaic processes with one
// Redis zone enforce one limit together: the burst is spent by the
// requests of both. Redis has seconds to answer (redis_timeout=): an
// answer later than the 50ms default, on a loaded machine, would count
// the request in one process's local zone only.
func TestLimitReqRedisSharedByTwoInstances(t *testing.T) {
	addr := startRedisServer(t)
	conf := `
		limit_req_zone $binary_remote_addr zone=fleet:1m rate=1r/m redis://` + addr + `/0 redis_timeout=10s;
		server {
			listen 127.0.0.1:{port};
			location / { limit_req zone=fleet burst=4 nodelay; limit_req_status 429; root {root}; }
		}`
	a, _ := limitSite(t, conf)
	b, _ := limitSite(t, conf)
	var got []int
	for i := 0; i < 10; i++ {
		base := a
		if i%2 == 1 {
			base = b
		}
		code, _ := limitGet(t, base+"/f")
		got = append(got, code)
	}
	if want := "[200 200 200 200 200 429 429 429 429 429]"; fmt.Sprint(got) != want {
		t.Fatalf("two instances, one zone: %v, want %s", got, want)
	}
}

// TestLimitConnRedisSharedByTwoInstances: a request in progress on one
// instance counts on the other (Redis has seconds to answer, as in
// TestLimitReqRedisSharedByTwoInstances).
func TestLimitConnRedisSharedByTwoInstances(t *testing.T) {
	addr := startRedisServer(t)
	release := make(chan struct{})
	entered := make(chan struct{}, 2)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			entered <- struct{}{}
			<-release
		}
	}))
	t.Cleanup(origin.Close)
	conf := `
		limit_conn_zone $binary_remote_addr zone=fleetc:1m redis://` + addr + `/0 redis_timeout=10s;
		server {
			listen 127.0.0.1:{port};
			location / { limit_conn fleetc 1; proxy_pass http://` + origin.Listener.Addr().String() + `; }
		}`
	a, _ := limitSite(t, conf)
	b, _ := limitSite(t, conf)
	done := make(chan int, 1)
	go func() {
		code, _ := limitGet(t, a+"/slow")
		done <- code
	}()
	<-entered
	if code, _ := limitGet(t, b+"/fast"); code != 503 {
		t.Errorf("a request in progress on the other instance: %d, want 503", code)
	}
	close(release)
	if code := <-done; code != 200 {
		t.Errorf("first: %d", code)
	}
	if code, _ := limitGet(t, b+"/fast"); code != 200 {
		t.Errorf("after the first ended: %d", code)
	}
}

// TestLimitReqRedisPausedFallsBack: while Redis does not answer, a
// request waits at most the zone's timeout and is limited locally by the
// same rules; once Redis answers again, its state decides again.
func TestLimitReqRedisPausedFallsBack(t *testing.T) {
	r := startRedisProc(t)
	base, p := limitSite(t, `
		limit_req_zone $http_x_key zone=paused:1m rate=1r/m redis://`+r.addr()+`/0;
		server {
			listen 127.0.0.1:{port};
			location / { limit_req zone=paused burst=2 nodelay; root {root}; }
		}`)
	// With Redis, on keys of their own: an answer later than the zone's
	// 50 ms on a loaded machine charges the key locally, which must not
	// be k1's bucket. Their time is the machine's pace for the bound on
	// the paused requests.
	t0 := time.Now()
	for i := range 5 {
		if s := statuses(t, base+"/f", 1, "X-Key", fmt.Sprint("k0-", i)); fmt.Sprint(s) != "[200]" {
			t.Fatalf("with Redis: %v", s)
		}
	}
	pace := time.Since(t0)
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			r.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	defer resume()
	// The first requests wait for the timeout (and are run by Redis when
	// it resumes: they count there too); then the breaker opens and
	// requests no longer wait. The local zone has not seen k1 before:
	// three pass, as burst=2 allows on a fresh bucket.
	t0 = time.Now()
	got := statuses(t, base+"/f", 5, "X-Key", "k1")
	if want := "[200 200 200 503 503]"; fmt.Sprint(got) != want {
		t.Errorf("Redis paused: %v, want %s", got, want)
	}
	// Three timeouts of 50 ms and five requests at the machine's pace;
	// requests that waited on the stopped Redis would take far longer.
	if d := time.Since(t0); d > 2*time.Second+2*pace {
		t.Errorf("five requests took %v with Redis paused (%v with Redis)", d, pace)
	} else {
		t.Logf("five requests with Redis paused: %v (%v with Redis)", d, pace)
	}
	waitOutput(t, p, "limiting locally")
	// k2 is spent locally while the breaker is open: Redis never sees it.
	if s := statuses(t, base+"/f", 4, "X-Key", "k2"); fmt.Sprint(s) != "[200 200 200 503]" {
		t.Errorf("k2 with Redis paused: %v", s)
	}
	resume()
	// Once the breaker's probe finds Redis again, its bucket for k2,
	// which is empty, decides again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _ := limitGet(t, base+"/f", "X-Key", "k2")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Redis's state is not used again after SIGCONT")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestLimitRedisTimeoutParameter: redis_timeout= bounds how long a
// request waits for its zone's Redis. With Redis paused, the first
// request waits the configured 1 s (the 50ms default would answer it far
// sooner) and is then limited locally: it passes.
func TestLimitRedisTimeoutParameter(t *testing.T) {
	t.Parallel() // it waits on Redis's bound, a private redis-server
	r := startRedisProc(t)
	const timeout = time.Second
	base, _ := limitSite(t, `
		limit_req_zone $http_x_key zone=slow:1m rate=1r/m redis://`+r.addr()+`/0 redis_timeout=1s;
		server {
			listen 127.0.0.1:{port};
			location / { limit_req zone=slow burst=2 nodelay; root {root}; }
		}`)
	if code, _ := limitGet(t, base+"/f", "X-Key", "warm"); code != 200 {
		t.Fatalf("with Redis: %d", code)
	}
	if err := r.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.cmd.Process.Signal(syscall.SIGCONT) })
	start := time.Now()
	code, _ := limitGet(t, base+"/f", "X-Key", "k")
	took := time.Since(start)
	if code != 200 {
		t.Errorf("with Redis paused: %d, want 200 from the local zone", code)
	}
	if took < timeout {
		t.Errorf("the request waited %v for a paused Redis, want the redis_timeout %v", took, timeout)
	}
}

// TestLimitReqMatchesNGINX sends the same sequence of requests to Debian's
// NGINX and to mosaic on the same limit_req configuration and compares
// the statuses. The rates are per minute, so that no token comes back
// while the test runs however slowly it does: what is compared is the
// counting (bursts, several limits, the dry run, nested locations), not
// the rate, which TestLimitReqDelayMatchesNGINX compares.
func TestLimitReqMatchesNGINX(t *testing.T) {
	nginxPath(t)
	block := `
		limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;
		limit_req_zone $http_x_key zone=key:1m rate=2r/m;
		limit_req_zone $binary_remote_addr zone=dry:1m rate=1r/m;
		limit_req_zone $binary_remote_addr zone=m1:1m rate=1r/m;
		limit_req_zone $http_x_key zone=m2:1m rate=1r/m;
		server {
			listen 127.0.0.1:%d;
			root %s;
			location /one/ { limit_req zone=one burst=3 nodelay; alias %s/; }
			location /two/ { limit_req zone=one burst=5 nodelay; limit_req zone=key burst=1 nodelay; limit_req_status 429; alias %s/; }
			location /dry/ { limit_req zone=dry; limit_req_dry_run on; alias %s/; }
			location /multi/ { limit_req zone=m1 burst=3 nodelay; limit_req zone=m2 nodelay; alias %s/; }
			location /m1/ { limit_req zone=m1 burst=3 nodelay; alias %s/; }
			location /inner/ {
				limit_req zone=key nodelay;
				location /inner/x/ { limit_req_status 418; alias %s/; }
			}
		}`
	run := func(base string) []string {
		var out []string
		seq := func(path string, n int, header ...string) {
			for _, s := range statuses(t, base+path, n, header...) {
				out = append(out, fmt.Sprint(path, " ", s))
			}
		}
		seq("/one/f", 6)
		seq("/two/f", 4, "X-Key", "k")
		seq("/dry/f", 3)
		seq("/inner/x/f", 3, "X-Key", "j")
		// The requests that the second limit refuses are not charged
		// to the first.
		seq("/multi/f", 4, "X-Key", "m")
		seq("/m1/f", 4)
		// The zones that filled up above go on counting.
		seq("/one/f", 3)
		seq("/two/f", 3, "X-Key", "k")
		return out
	}
	mdir, ndir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(mdir, "www/f"), "f")
	writeFile(t, filepath.Join(ndir, "www/f"), "f")
	mport, nport := freePort(t), freePort(t)
	mroot, nroot := filepath.Join(mdir, "www"), filepath.Join(ndir, "www")
	startMosaic(t, mdir, "http {"+fmt.Sprintf(block, mport, mroot, mroot, mroot, mroot, mroot, mroot, mroot)+"}", mport)
	startNGINX(t, ndir, fmt.Sprintf(block, nport, nroot, nroot, nroot, nroot, nroot, nroot, nroot), nport)
	// Both run at once, so that both see the same timing.
	var mosaic, nginx []string
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); mosaic = run(fmt.Sprintf("http://127.0.0.1:%d", mport)) }()
	go func() { defer wg.Done(); nginx = run(fmt.Sprintf("http://127.0.0.1:%d", nport)) }()
	wg.Wait()
	if fmt.Sprint(mosaic) != fmt.Sprint(nginx) {
		t.Errorf("statuses differ\nmosaic: %v\nnginx:  %v", mosaic, nginx)
	}
	t.Logf("%v", nginx)
}

// TestLimitZoneKeptAcrossReload: a reload that declares a zone alike
// keeps what it counted, as NGINX keeps its shared zones.
func TestLimitZoneKeptAcrossReload(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/f"), "f")
	port := freePort(t)
	conf := func(extra string) string {
		return fmt.Sprintf(`http {
			limit_req_zone $binary_remote_addr zone=kept:1m rate=1r/m;
			server {
				listen 127.0.0.1:%d;
				location / { limit_req zone=kept burst=1 nodelay; root %s; }
				%s
			}
		}`, port, filepath.Join(dir, "www"), extra)
	}
	p := startMosaic(t, dir, conf(""), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	if s := statuses(t, base+"/f", 3); fmt.Sprint(s) != "[200 200 503]" {
		t.Fatalf("before the reload: %v", s)
	}
	writeFile(t, filepath.Join(dir, "mosaic.conf"), conf(`location = /v { return 200 "v2"; }`))
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitBody(t, base+"/v", "v2")
	if s := statuses(t, base+"/f", 1); fmt.Sprint(s) != "[503]" {
		t.Fatalf("after the reload: %v, want the zone's state kept", s)
	}
}

// TestLimitSkipsSubrequests: the fragments of an ESI page are not limited
// by the server's limit, which the page itself passed: NGINX limits the
// main request once.
func TestLimitSkipsSubrequests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<p><esi:include src="/frag.html"/><esi:include src="/frag.html"/><esi:include src="/frag.html"/></p>`)
	writeFile(t, filepath.Join(dir, "www/frag.html"), "x")
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		limit_req_zone $binary_remote_addr zone=page:1m rate=1r/m;
		server {
			listen 127.0.0.1:{port};
			root %s;
			esi on;
			limit_req zone=page burst=1 nodelay;
		}
	}`, filepath.Join(dir, "www")), port)
	resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d/page.html", port))
	if resp.StatusCode != 200 || body != "<p>xxx</p>" {
		t.Fatalf("page with three fragments: %d %q", resp.StatusCode, body)
	}
}
