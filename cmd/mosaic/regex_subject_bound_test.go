package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/internal/procrss"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestConfigRegexLongSubjectAsNGINX (audit8): a configuration's pattern
// that backtracks without end on a client's subject, an 8 KB URI or a
// 60 KB header, is a 500 in both servers, each logging the failed match
// (NGINX: "pcre2_match() failed: -47", PCRE2's match limit; mosaic: its
// time limit). The same patterns on short subjects match. Each answer
// comes within 10 s, which only a match without end misses.
func TestConfigRegexLongSubjectAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	errLog := func(who string) string { return filepath.Join(dir, who+".error.log") }
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`large_client_header_buffers 4 64k;
			server { listen 127.0.0.1:%d; error_log %s;
				location ~ "^/(?!x)(a|aa)+$" { return 200 "re"; }
				location /h { if ($http_x ~ "^(?!x)(a|aa)+$") { return 201; } return 204; }
				location / { return 200 "plain"; }
			}`, port, errLog(who))
	})
	for _, c := range []struct {
		head   string
		status int
	}{
		{"GET /" + strings.Repeat("a", 8<<10-1) + "! HTTP/1.1\r\nHost: a.test", 500},
		{"GET /h HTTP/1.1\r\nHost: a.test\r\nX: " + strings.Repeat("a", 60<<10) + "!", 500},
		{"GET /aaa HTTP/1.1\r\nHost: a.test", 200},
		{"GET /h HTTP/1.1\r\nHost: a.test\r\nX: aaa", 201},
	} {
		req := c.head + "\r\nConnection: close\r\n\r\n"
		bodies := map[string]string{}
		for who, port := range map[string]int{"m": mport, "n": nport} {
			start := time.Now()
			resp, body := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req)
			if d := time.Since(start); resp.StatusCode != c.status || d > 10*time.Second {
				t.Errorf("%s: %.40s...: %d in %v; want %d", who, c.head, resp.StatusCode, d, c.status)
			}
			bodies[who] = body
		}
		if c.status == 200 && bodies["m"] != bodies["n"] {
			t.Errorf("%.40s...: mosaic %q, nginx %q", c.head, bodies["m"], bodies["n"])
		}
	}
	// The two failed matches, one line each, for PCRE2's match limit and
	// mosaic's time limit. (mosaic's line for the if's match lacks
	// NGINX's "pcre2_match() failed: ... on ... using ..." words, which
	// its location's has.) mosaic's is matched up to the limit only: what
	// follows it in the parentheses is pcre's to add to (audit9 adds the
	// slots busy, "(100ms; 1 of 2 slots busy)").
	for who, failed := range map[string]string{
		"m": fmt.Sprintf("match limit exceeded (%v", pcre.MatchTimeout),
		"n": "pcre2_match() failed: -47 on ",
	} {
		b, err := os.ReadFile(errLog(who))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), failed); n != 2 {
			var lines []string // each cut short: the subjects fill 68 KB
			for l := range strings.Lines(string(b)) {
				lines = append(lines, fmt.Sprintf("%.200s", l))
			}
			t.Errorf("%s: %d failed matches logged; want 2:\n%s", who, n, strings.Join(lines, "\n"))
		}
	}
}

// TestConfigRegexLongSubjectsBounded (audit8): many requests at once whose
// 60 KB header a configuration's backtracking pattern matches take one of
// GOMAXPROCS slots each (pcre's configSlotOver), so the memory their
// stacks take is bounded by the slots, not one match's 23 MB times the
// requests: 30 requests grew mosaic by 49 MB, where they grew it by
// 154-253 MB with every match at once (and 17-30 of them were cut at the
// time limit, sharing the CPUs).
//
// audit9: the assertion was that bound on resident memory, which rested
// on timing (it passed twice in three with the slots removed). It now
// reads the mechanism: the pattern runs away on every subject, so each
// match ends in the error log, cut at its limit with the slots busy as
// it ended ("N of M slots busy", its own among them) or after waiting
// for one. With the slots, M is worker_processes (GOMAXPROCS) and N
// never passes it and is never 0; removed, N is 0 or the slot count
// passes M. Resident memory is only logged. -race slows a match about
// tenfold, which changes none of this.
func TestConfigRegexLongSubjectsBounded(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, `worker_processes 2; error_log stderr error;
		http { access_log off; large_client_header_buffers 4 64k;
		server { listen 127.0.0.1:{port};
			location / { if ($http_x ~ "^(?!x)(a|aa)+$") { return 201; } return 204; }
		} }`, port)
	base, _ := procrss.Of(p.cmd.Process.Pid)
	req := "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nX: " + strings.Repeat("a", 60<<10) + "!\r\n\r\n"
	const n = 30
	var wg sync.WaitGroup
	statuses := make(chan string, n)
	for range n {
		wg.Go(func() { statuses <- rawStatusLine(port, req) })
	}
	done := make(chan struct{})
	peak := base
	go func() {
		wg.Wait()
		close(done)
	}()
	for sampling := true; sampling; {
		select {
		case <-done:
			sampling = false
		case <-time.After(5 * time.Millisecond):
		}
		if rss, err := procrss.Of(p.cmd.Process.Pid); err == nil {
			peak = max(peak, rss)
		}
	}
	close(statuses)
	answers := map[string]int{}
	for s := range statuses {
		answers[s]++
	}
	t.Logf("%d requests: %v; resident %d MB at start, %d MB at the peak", n, answers, base>>20, peak>>20)
	if answers["HTTP/1.1 500"] != n {
		t.Errorf("answers %v, want %d 500s: the pattern runs away on every subject", answers, n)
	}
	// A match's error-log line reaches the pipe after its 500 may have:
	// wait for the thirty (a ceiling of 10 s), then read them.
	for deadline := time.Now().Add(10 * time.Second); strings.Count(p.out.String(), "match limit exceeded") < n && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	ran, waited, most := slotsInLog(t, p.out.String(), 2)
	t.Logf("%d matches cut at their limit (at most %d slots busy), %d failed waiting", ran, most, waited)
	if ran+waited != n {
		t.Errorf("%d matches in the error log, want %d", ran+waited, n)
	}
	if ran == 0 {
		t.Error("no match ran")
	}
}

// slotsInLog reads the error log's match failures: ran, those cut at
// their limit in a slot, and waited, those that found none in time. Each
// that ran must say that between 1 and procs of procs slots were busy;
// most is the most it saw.
func slotsInLog(t *testing.T, log string, procs int) (ran, waited, most int) {
	t.Helper()
	busy := regexp.MustCompile(`limit exceeded \((?:[^;)]+); (\d+) of (\d+) slots busy\)`)
	for line := range strings.Lines(log) {
		if !strings.Contains(line, "match limit exceeded") {
			continue
		}
		if strings.Contains(line, "waiting for one of "+strconv.Itoa(procs)+" slots") {
			waited++
			continue
		}
		m := busy.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("a match failed outside the slots: %.200s", line)
			continue
		}
		ran++
		n, _ := strconv.Atoi(m[1])
		if m[2] != strconv.Itoa(procs) || n < 1 || n > procs {
			t.Errorf("%s of %s slots busy, want 1 to %d of %d", m[1], m[2], procs, procs)
		}
		most = max(most, n)
	}
	return ran, waited, most
}

// rawStatusLine sends req on a connection of its own and returns the
// answer's first 12 bytes ("HTTP/1.1 200"), or the error.
func rawStatusLine(port int, req string) string {
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(req)); err != nil {
		return err.Error()
	}
	b := make([]byte, 12)
	if _, err := io.ReadFull(c, b); err != nil {
		return err.Error()
	}
	return string(b)
}

// TestConfigRegexNotStarvedByClients (audit9): clients' runaway patterns
// (SSI's if expr with the pattern from the query) on 60 KB headers, forty
// requests at once, keep every slot of clients' long matches busy and a
// queue behind them; a configuration's pattern on a 9 KB header, which
// takes a slot too, answers at once beside them. When the two shared
// the slots, it waited behind the queue and most were 500 after pcre's
// SlotWait (1 s).
func TestConfigRegexNotStarvedByClients(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "page.html"),
		[]byte(`<!--# if expr="$http_x = /$arg_p/" -->yes<!--# else -->no<!--# endif -->`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	p := startMosaic(t, dir, `worker_processes 2; error_log stderr error;
		http { access_log off; large_client_header_buffers 4 64k;
		server { listen 127.0.0.1:{port}; root `+dir+`;
			location = /page.html { ssi on; }
			location /conf { if ($http_y ~ "^(?=a)a") { return 201; } return 204; }
		} }`, port)
	flood := "GET /page.html?p=^(a|aa)+$ HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nX: " +
		strings.Repeat("a", 60<<10) + "!\r\n\r\n"
	stop := make(chan struct{})
	var flooding sync.WaitGroup
	for range 40 {
		flooding.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				rawStatusLine(port, flood)
			}
		})
	}
	defer flooding.Wait()
	defer close(stop)
	time.Sleep(time.Second) // the slots busy and a queue behind them
	conf := "GET /conf HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nY: " + strings.Repeat("a", 9<<10) + "\r\n\r\n"
	answers := map[string]int{}
	for range 10 {
		answers[rawStatusLine(port, conf)]++
	}
	t.Logf("configuration's long matches under the flood: %v", answers)
	if answers["HTTP/1.1 201"] != 10 {
		t.Errorf("configuration's long matches under the flood: %v, want 10 201s", answers)
	}
	if !strings.Contains(p.out.String(), "slots busy") {
		t.Error("the flood's matches never ran into their limit: no flood")
	}
}
