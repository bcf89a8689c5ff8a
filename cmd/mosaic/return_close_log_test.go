package main

import (
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestReturnCloseLoggedAsNGINX: "return 444" and "return 408" end the
// request as NGINX's ngx_http_finalize_request ends NGX_HTTP_CLOSE and
// NGX_HTTP_REQUEST_TIME_OUT: the connection is closed without an answer,
// and the access log says the status returned. mosaic logged "return 444"
// as a 200 (a fail2ban filter on 444 never matched) and answered
// "return 408" with an error page.
func TestReturnCloseLoggedAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		log := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who], "access.log")
		return fmt.Sprintf(`log_format s '$request_uri $status $body_bytes_sent';
			access_log %s s;
			server {
				listen 127.0.0.1:%d;
				location /close { return 444; }
				location /timeout { return 408; }
				location /if { if ($arg_bot) { return 444; } return 204; }
			}`, log, port)
	})
	paths := []string{"/close", "/timeout", "/if?bot=1", "/if"}
	results := map[string]string{}
	for who, port := range map[string]int{"mosaic": mport, "nginx": nport} {
		var answers []string
		for _, path := range paths {
			answers = append(answers, statusOrClosed(t, fmt.Sprintf("127.0.0.1:%d", port), path))
		}
		results[who] = strings.Join(answers, ", ") + "; log: " + strings.Join(waitLog(t, filepath.Join(dir, who, "access.log"), len(paths)), " | ")
	}
	if results["mosaic"] != results["nginx"] {
		t.Errorf("mosaic %s\nNGINX  %s", results["mosaic"], results["nginx"])
	}
}

// TestReturnCloseWithTextAsNGINX: "return 408 text" (or 444) is no
// terminated request in NGINX: ngx_http_script_return_code sends the text
// with the status (ngx_http_send_response), as for any other code. mosaic
// closed the connection without an answer.
func TestReturnCloseWithTextAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`server {
				listen 127.0.0.1:%d;
				location /408 { return 408 "slow"; }
				location /444 { return 444 "go"; }
			}`, port)
	})
	for _, path := range []string{"/408", "/444"} {
		m, mb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), "GET "+path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		n, nb := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), "GET "+path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
		if m.StatusCode != n.StatusCode || mb != nb {
			t.Errorf("%s: mosaic %d %q, NGINX %d %q", path, m.StatusCode, mb, n.StatusCode, nb)
		}
	}
}

// statusOrClosed sends GET path on a connection of its own to addr and
// returns the first 12 bytes of the answer (its status line's start), or
// "closed" when the server closed it without a byte.
func statusOrClosed(t *testing.T, addr, path string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path)
	b := make([]byte, 12)
	k, err := io.ReadFull(c, b)
	if err != nil && k == 0 {
		return "closed"
	}
	return string(b[:k])
}
