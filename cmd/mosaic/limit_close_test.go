package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimitStatus444ClosesMatchesNGINX: "limit_req_status 444" makes a
// refused request end as NGINX's 444 does: the connection is closed
// without a response (no status line, no error_page for 444), and the
// access log says 444 with $limit_req_status REJECTED; 408 does the same
// in NGINX. mosaic used to answer "HTTP/1.1 444" with an error page.
func TestLimitStatus444ClosesMatchesNGINX(t *testing.T) {
	dir := t.TempDir()
	logs := map[string]string{}
	n := 0
	bases := limitBoth(t, map[string]string{"f": "f"}, func(listen, root string) string {
		n++
		name := "mosaic" // limitBoth starts mosaic first, then NGINX
		if n == 2 {
			name = "nginx"
		}
		logs[name] = filepath.Join(dir, name+".log")
		return fmt.Sprintf(`log_format s '$uri $status $limit_req_status';
			access_log %s s;
			limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;
			limit_req_zone $binary_remote_addr zone=two:1m rate=1r/m;
			server {
				%s
				root %s;
				error_page 444 /err;
				location /f { limit_req zone=one; limit_req_status 444; }
				location /t { limit_req zone=two; limit_req_status 408; alias %[3]s/f; }
				location /err { return 200 "error page"; }
			}`, logs[name], listen, root)
	})
	results := map[string]string{}
	for name, base := range bases {
		var answers []string
		for _, path := range []string{"/f", "/f", "/t", "/t"} {
			answers = append(answers, statusOrClosed(t, strings.TrimPrefix(base, "http://"), path))
		}
		results[name] = strings.Join(answers, ", ") + "; log: " + strings.Join(waitLog(t, logs[name], 4), " | ")
	}
	want := "HTTP/1.1 200, closed, HTTP/1.1 200, closed; log: /f 200 PASSED | /f 444 REJECTED | /t 200 PASSED | /t 408 REJECTED"
	if results["mosaic"] != want {
		t.Errorf("mosaic:\n got  %s\n want %s", results["mosaic"], want)
	}
	if got, ok := results["nginx"]; ok && got != results["mosaic"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], got)
	}
}
