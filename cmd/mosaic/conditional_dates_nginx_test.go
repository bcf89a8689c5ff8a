package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// TestConditionalDatesAsNGINX: NGINX reads the dates of If-Modified-Since,
// If-Unmodified-Since and If-Range with ngx_parse_http_time, which skips
// the day's name and whatever follows the seconds, and knows a month by
// its capital initial. mosaic read them as RFC 9110's HTTP-date, strictly,
// so a date without "GMT" was none (a 412, a 200 for a 304, a 200 for a
// 206); found by rng31's random requests. A date in lower case, none to
// NGINX, is one to mosaic (a kept difference: internal/httpdate). A file,
// and the same from a cache (a miss, then a hit). NGINX's upstream module
// reads an origin's Last-Modified with the same parser, where mosaic's
// cache and proxy_force_ranges took one without "GMT" for none (a 200
// where NGINX sent 304 or 206, a 412 where it sent 200): an origin that
// sends one, cached (/u/) and with forced ranges (/f/). And one whose
// Last-Modified is the second before 1970, Unix time -1: NGINX's parser
// returns its error, so the response has no Last-Modified to NGINX, where
// mosaic read a date (/n/, /g/).
func TestConditionalDatesAsNGINX(t *testing.T) {
	nginxPath(t)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", strings.TrimSuffix(condMtime, " GMT"))
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	// An origin whose Last-Modified is the second before 1970: Unix time
	// -1, NGINX's error, so no Last-Modified to it (/n/ cached, /g/ with
	// forced ranges).
	epoch := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", "Wed, 31 Dec 1969 23:59:59 GMT")
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(epoch.Close)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	p := filepath.Join(www, "a.txt")
	writeFile(t, p, "abcdefghijklmnopqrstuvwxyz")
	when, _ := time.Parse(http.TimeFormat, condMtime)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %[3]s/cache-%[4]s keys_zone=z:1m;
			server { listen 127.0.0.1:%[1]d;
			location /s/ { alias %[2]s/; }
			location /b/ { alias %[2]s/; if_modified_since before; }
			location /c/ { proxy_pass http://127.0.0.1:%[1]d/s/; proxy_cache z; proxy_cache_valid 200 1m; }
			location /u/ { proxy_pass %[5]s; proxy_cache z; }
			location /f/ { proxy_pass %[5]s; proxy_force_ranges on; }
			location /n/ { proxy_pass %[6]s; proxy_cache z; }
			location /g/ { proxy_pass %[6]s; proxy_force_ranges on; } }`,
			port, www, dir, who, origin.URL, epoch.URL)
	})
	dates := []string{
		"Sun, 13 Sep 2020 12:26:40",      // no zone: NGINX's date
		"Sun, 13 Sep 2020 12:26:40 UTC",  // another zone: NGINX's date
		"Xyz,  13 Sep 2020 12:26:40 GMT", // any name, two blanks after it
		"Sun, 13 Sxx 2020 12:26:40 GMT",  // a month is its initial
		"Sun Sep 13 12:26:40 2020 GMT",   // asctime, something after it
		"Sunday, 13-Sep-20 12:26:40",     // RFC 850 without its zone
		"Sun, 14 Sep 2020 12:26:40 GMT",  // a later date, for the control
		"Sun, 13 Sep 2020 12:26:40 GMT",  // the date itself, the control
		"Sun, 13  Sep 2020 12:26:40 GMT", // two blanks inside: none to both
		"Sun, 00 Sep 2020 12:26:40 GMT",  // day 0: 31 August to NGINX
		"Wed, 31 Dec 1969 23:59:59 GMT",  // -1: NGINX's error
	}
	key := 0
	for _, loc := range []string{"/s/", "/b/", "/c/", "/c/", "/u/", "/u/", "/f/", "/n/", "/n/", "/g/"} {
		for _, d := range dates {
			for _, fields := range [][]string{
				{"If-Modified-Since", d},
				{"If-Unmodified-Since", d},
				{"If-Range", d, "Range", "bytes=0-3"},
			} {
				path := loc + "a.txt"
				if loc == "/c/" || loc == "/u/" || loc == "/n/" {
					// The first of the two rounds fills an entry per
					// request, the second finds it.
					key++
					path += fmt.Sprintf("?k=%d", key%(len(dates)*3))
				}
				req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n", path)
				for i := 0; i < len(fields); i += 2 {
					req += fields[i] + ": " + fields[i+1] + "\r\n"
				}
				req += "\r\n"
				m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
				n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
				if got, want := condSummary(m), condSummary(n); got != want {
					t.Errorf("%s %q:\nmosaic %s\nnginx  %s", path, fields, got, want)
				}
			}
		}
	}
}

// TestConditionalBefore1970AsNGINX: NGINX compares a request date its
// parser cannot read as its error time, -1, a time like any other. That
// is before every Last-Modified since 1970, but after one of 1962: there
// an invalid If-Unmodified-Since passes (200, where mosaic answered 412)
// and an invalid If-Modified-Since under "if_modified_since before" is a
// 304 (where mosaic sent 200). A file of 1962 (/s/, /b/), one of Unix
// time -1, no Last-Modified to NGINX (/m/), and an origin's 1962 date
// from the cache (/u/, a miss then a hit). Only statuses are compared:
// NGINX writes a file's pre-1970 Last-Modified as another date.
func TestConditionalBefore1970AsNGINX(t *testing.T) {
	nginxPath(t)
	const lm1962 = "Mon, 01 Jan 1962 00:00:00 GMT"
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lm1962)
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, "abcdefghijklmnopqrstuvwxyz")
	}))
	t.Cleanup(origin.Close)
	dir := t.TempDir()
	www := filepath.Join(dir, "www")
	for name, when := range map[string]time.Time{"a.txt": time.Date(1962, 1, 1, 0, 0, 0, 0, time.UTC), "m.txt": time.Unix(-1, 0)} {
		p := filepath.Join(www, name)
		writeFile(t, p, "abcdefghijklmnopqrstuvwxyz")
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return fmt.Sprintf(`proxy_cache_path %[2]s/cache-%[3]s keys_zone=z:1m;
			server { listen 127.0.0.1:%[1]d;
			location /s/ { alias %[4]s/; }
			location /b/ { alias %[4]s/; if_modified_since before; }
			location /u/ { proxy_pass %[5]s; proxy_cache z; if_modified_since before; } }`,
			port, dir, who, www, origin.URL)
	})
	for _, path := range []string{"/s/a.txt", "/b/a.txt", "/s/m.txt", "/b/m.txt", "/u/a.txt", "/u/a.txt"} {
		for _, field := range []string{"If-Modified-Since", "If-Unmodified-Since"} {
			for _, date := range []string{"yesterday", lm1962, "Wed, 31 Dec 1969 23:59:59 GMT", condMtime} {
				req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n%s: %s\r\n\r\n", path, field, date)
				m, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", mport), req)
				n, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", nport), req)
				if m.StatusCode != n.StatusCode {
					t.Errorf("%s %s: %s: mosaic %d, nginx %d", path, field, date, m.StatusCode, n.StatusCode)
				}
			}
		}
	}
}
