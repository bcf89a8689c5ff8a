package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSITimefmtErrorAsNGINX: where the C library's strftime formats
// nothing, an empty timefmt or a date longer than NGINX's buffer, NGINX's
// DATE_LOCAL and DATE_GMT fail, and echo writes the error message in
// their place rather than nothing.
func TestSSITimefmtErrorAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/empty.html"), `<!--# config timefmt="" -->[<!--# echo var="date_gmt" -->]`)
	writeFile(t, filepath.Join(dir, "www/long.html"), `<!--# config timefmt="%3000Y" -->[<!--# echo var="date_local" -->]`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	for _, path := range []string{"/empty.html", "/long.html"} {
		sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test", "")
	}
}
