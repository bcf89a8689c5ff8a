package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// logBoth runs NGINX and mosaic on the http-level lines text (with
// {log}, the directory of each server's logs) and a server on the port,
// sends each request to both, and returns the files named of each, as
// written once every request has been logged.
func logBoth(t *testing.T, text string, files []string, requests ...string) (mosaic, nginx map[string]string) {
	t.Helper()
	nginxPath(t)
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		logs := filepath.Join(dir, map[string]string{"m": "mosaic", "n": "nginx"}[who])
		return strings.ReplaceAll(text, "{log}", logs) + fmt.Sprintf("\nserver { listen 127.0.0.1:%d; return 204; }", port)
	})
	read := func(who string, port int) map[string]string {
		for _, req := range requests {
			testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), req+"\r\nConnection: close\r\n\r\n")
		}
		got := map[string]string{}
		for _, name := range files {
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				b, _ := os.ReadFile(filepath.Join(dir, who, name))
				if got[name] = string(b); strings.Count(got[name], "\n") >= len(requests) {
					break
				}
			}
		}
		return got
	}
	return read("mosaic", mport), read("nginx", nport)
}

// TestLogEscapeJSONEmptyAsNGINX: with escape=json and escape=none, a
// variable without a value (no Referer, no query, no user) is written as
// nothing, as NGINX's ngx_http_log_json_variable and
// ngx_http_log_unescaped_variable write it: "ref":"" for a JSON
// pipeline, not "ref":"-". Only the default escaping writes "-".
func TestLogEscapeJSONEmptyAsNGINX(t *testing.T) {
	files := []string{"json.log", "none.log", "default.log"}
	m, n := logBoth(t, `
		log_format j escape=json '{"ref":"$http_referer","args":"$args","user":"$remote_user","x":"$http_x"}';
		log_format n escape=none '[$http_referer] [$args] [$remote_user]';
		log_format d '[$http_referer] [$args] [$remote_user]';
		access_log {log}/json.log j; access_log {log}/none.log n; access_log {log}/default.log d;`,
		files,
		"GET / HTTP/1.1\r\nHost: a.test",
		"GET /?a=1 HTTP/1.1\r\nHost: a.test\r\nReferer: http://r/\r\nX: y")
	for _, f := range files {
		if m[f] != n[f] {
			t.Errorf("%s:\nmosaic %q\nNGINX  %q", f, m[f], n[f])
		}
	}
}

// TestLogEscapeJSONControlsAsNGINX: escape=json writes a backspace and a
// form feed as \b and \f, as NGINX's ngx_escape_json, and other control
// bytes as \u00XX: byte for byte the line NGINX writes, here for a
// request line a client filled with controls (refused with a 400, and
// logged all the same).
func TestLogEscapeJSONControlsAsNGINX(t *testing.T) {
	m, n := logBoth(t, `
		log_format j escape=json '{"request":"$request"}';
		access_log {log}/json.log j;`,
		[]string{"json.log"},
		"GET /?q=\x08\x0c\x01\x1b\t\"\\\xc3\xa9 HTTP/1.1\r\nHost: a.test")
	if m["json.log"] != n["json.log"] {
		t.Errorf("mosaic %q\nNGINX  %q", m["json.log"], n["json.log"])
	}
}
