package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
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
// stacks take is bounded, not one match's 23 MB times the requests: 30
// requests grew mosaic by 49 MB, where they grew it by 154-253 MB with
// every match at once (and 17-30 of them were cut at the time limit,
// sharing the CPUs).
//
// It runs without -race (make unit): the detector slows a match about
// tenfold, so under it every match is cut at MatchTimeout after a few MB
// and all 30 are 500 whether or not they take slots; with the slots
// removed it still passed twice in three (rv-audit8).
func TestConfigRegexLongSubjectsBounded(t *testing.T) {
	if raceEnabled {
		t.Skip("memory of matches the race detector cuts at their time limit: runs without -race (make unit)")
	}
	dir := t.TempDir()
	port := freePort(t)
	p := startMosaic(t, dir, `http { access_log off; large_client_header_buffers 4 64k;
		server { listen 127.0.0.1:{port};
			location / { if ($http_x ~ "^(?=a)(?:a(b?)(c?)(d?))*x") { return 201; } return 204; }
		} }`, port)
	base, err := procrss.Of(p.cmd.Process.Pid)
	if err != nil {
		t.Skip(err)
	}
	req := "GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\nX: " + strings.Repeat("a", 60<<10) + "\r\n\r\n"
	const n = 30
	var wg sync.WaitGroup
	statuses := make(chan string, n)
	for range n {
		wg.Go(func() {
			c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
			if err != nil {
				statuses <- err.Error()
				return
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			if _, err := c.Write([]byte(req)); err != nil {
				statuses <- err.Error()
				return
			}
			b := make([]byte, 12)
			_, err = c.Read(b)
			statuses <- string(b)
		})
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
	if grew := (peak - base) >> 20; grew > 120 {
		t.Errorf("resident memory grew by %d MB for %d matches", grew, n)
	}
}
