package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// add_header and expires against Debian's NGINX on the same configuration.

// fileSites starts mosaic and NGINX, each with one server of the given
// locations ({dir} in them is the returned directory) whose root,
// dir/www, holds a.txt.
func fileSites(t *testing.T, locations string) (dir string, mport, nport int) {
	t.Helper()
	nginxPath(t)
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	locations = strings.ReplaceAll(locations, "{dir}", dir)
	mport, nport = startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf("server { listen 127.0.0.1:%d; root %s/www;%s\n}", port, dir, locations)
	})
	return dir, mport, nport
}

// TestAddHeaderValidatorsAsNGINX: add_header ETag and add_header
// Last-Modified replace the response's own header, the last line wins, and
// an empty value removes it, as in NGINX: a response never carries two
// validators.
func TestAddHeaderValidatorsAsNGINX(t *testing.T) {
	_, mport, nport := fileSites(t, `
			location /set/ { alias {dir}/www/; add_header etag '"a"'; add_header ETag '"b"';
				add_header Last-Modified "Mon, 01 Jan 2001 00:00:00 GMT"; }
			location /rm/ { alias {dir}/www/; add_header ETag ""; add_header Last-Modified ""; }
			location /ret { add_header ETag '"a"'; add_header ETag '"b"'; return 200 ok; }`)
	for _, path := range []string{"/set/a.txt", "/rm/a.txt", "/ret"} {
		var got [2][2][]string
		for i, port := range []int{mport, nport} {
			resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			got[i] = [2][]string{resp.Header.Values("ETag"), resp.Header.Values("Last-Modified")}
		}
		for k, name := range []string{"ETag", "Last-Modified"} {
			if !slices.Equal(got[0][k], got[1][k]) {
				t.Errorf("%s: %s mosaic %q, nginx %q", path, name, got[0][k], got[1][k])
			}
		}
	}
}

// TestExpiresDailyLocalTimeAsNGINX: "expires @time" names a time of day
// on the server's local clock (TZ), as NGINX's mktime does, not in UTC;
// "@24h" is the coming midnight.
func TestExpiresDailyLocalTimeAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Setenv("TZ", "Asia/Kolkata") // UTC+5:30, no daylight saving time
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location /midnight/ { alias %[2]s/www/; expires @0; }
			location /day/ { alias %[2]s/www/; expires @24h; }
			location /var/ { alias %[2]s/www/; expires $arg_e; }
		}`, port, dir)
	})
	for _, path := range []string{"/midnight/a.txt", "/day/a.txt", "/var/a.txt?e=@24h", "/var/a.txt?e=@3h", "/var/a.txt?e=@23h59m59s"} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			got[i] = resp.Header.Get("Expires")
		}
		if got[0] != got[1] {
			t.Errorf("%s: Expires mosaic %q, nginx %q", path, got[0], got[1])
		}
	}
}

// TestExpiresModifiedZeroAsNGINX: "expires modified 0" (or a variable
// that is 0) expires now with max-age=0, as NGINX's zero time does in
// every mode but the daily one, not at the file's Last-Modified.
func TestExpiresModifiedZeroAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "a.txt"), "hello\n")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "www", "a.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d; root %s/www;
			location /zero/ { alias %[2]s/www/; expires modified 0; }
			location /var/ { alias %[2]s/www/; expires modified $arg_e; }
		}`, port, dir)
	})
	for _, path := range []string{"/zero/a.txt", "/var/a.txt?e=0", "/var/a.txt?e=-0"} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			// Expires is the time of the response, which Date shows.
			got[i] = fmt.Sprintf("Cache-Control %q, Expires is Date: %v", resp.Header.Get("Cache-Control"), resp.Header.Get("Expires") == resp.Header.Get("Date"))
		}
		if got[0] != got[1] {
			t.Errorf("%s: mosaic %s; nginx %s", path, got[0], got[1])
		}
	}
}

// TestExpiresSentHTTPDateAsNGINX: NGINX writes Date on the wire only, so
// $sent_http_date is empty for a response of its own, with expires as
// without; the filter takes the time Date goes out with from the server
// rather than putting a Date in the header.
func TestExpiresSentHTTPDateAsNGINX(t *testing.T) {
	_, mport, nport := fileSites(t, `
			location /h/ { alias {dir}/www/; expires 1h; add_header X-D "[$sent_http_date]"; }
			location /zero/ { alias {dir}/www/; expires 0; add_header X-D "[$sent_http_date]"; }
			location /var/ { alias {dir}/www/; expires $arg_e; add_header X-D "[$sent_http_date]"; }
			location /none/ { alias {dir}/www/; add_header X-D "[$sent_http_date]"; }`)
	for _, path := range []string{"/h/a.txt", "/zero/a.txt", "/var/a.txt?e=1m", "/none/a.txt"} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp, _ := testclient.Raw(t, fmt.Sprintf("127.0.0.1:%d", port), "GET "+path+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			got[i] = fmt.Sprintf("X-D %q, Date sent: %v", resp.Header.Get("X-D"), resp.Header.Get("Date") != "")
		}
		if got[0] != got[1] {
			t.Errorf("%s: mosaic %s; nginx %s", path, got[0], got[1])
		}
	}
}
