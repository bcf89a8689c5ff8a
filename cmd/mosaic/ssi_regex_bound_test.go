package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSSIClientPatternAsNGINX: an if whose pattern is the client's $arg_p
// answers as NGINX does, within a bound: a thousand groups match (7 s a
// request on Go's regexp before, a quarter of a second in NGINX), a
// runaway backtrack stops at the match limit and a pattern too large for
// PCRE2 is refused, both with the error message in place of the if.
func TestSSIClientPatternAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/t.html"), `A<!--# if expr="$arg_s = /$arg_p/" -->Y<!--# else -->N<!--# endif -->B`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } large_client_header_buffers 4 64k;
			server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	for _, q := range []string{
		"p=" + strings.Repeat("(a){0,1}", 1000) + strings.Repeat("a", 1000) + "&s=" + strings.Repeat("a", 2000),
		"p=(a+)+$&s=" + strings.Repeat("a", 40) + "!",
		"p=" + strings.Repeat("a", 40000) + "&s=a",
		"p=^(b)&s=bc",
	} {
		start := time.Now()
		sameAnswer(t, mport, nport, "GET /t.html?"+q+" HTTP/1.1\r\nHost: a.test", "")
		// Both servers answer in this time; NGINX takes 0.25 s at most.
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%.40s...: answered in %v", q, d)
		}
	}
}
