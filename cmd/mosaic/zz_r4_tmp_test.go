package main

import (
	"fmt"
	"testing"
)

func TestR4TmpRefSrv(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			valid_referers a.test;
			if ($invalid_referer) { return 403; }
			location / { return 200 "[$invalid_referer]"; }
			location /l { valid_referers none b.test; return 200 "[$invalid_referer]"; }
		}
		server {
			listen 127.0.0.1:%[1]d; server_name two.test;
			valid_referers a.test;
			set $x $invalid_referer;
			location / { valid_referers b.test; return 200 "[$x][$invalid_referer]"; }
		}`, port)
	})
	for _, h := range []string{"a.test", "two.test"} {
		for _, path := range []string{"/", "/l"} {
			for _, ref := range []string{"", "http://a.test/", "http://b.test/"} {
				head := "GET " + path + " HTTP/1.1\r\nHost: " + h
				if ref != "" {
					head += "\r\nReferer: " + ref
				}
				sameAnswer(t, mport, nport, head, "")
			}
		}
	}
}
