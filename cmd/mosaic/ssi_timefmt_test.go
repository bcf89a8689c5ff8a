package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSITimefmtAsNGINX: "config timefmt" is handed to the C library's
// strftime by NGINX: glibc's conversions (%k, %P, %V, %x ...), its flags
// (%-d, %_m, %^a), field widths and the E and O modifiers format the date
// as there; a conversion a modifier does not fit is copied as written.
// The hour is the finest unit used, and NGINX is asked before and after
// mosaic, so that a new hour between the requests does not fail the test.
func TestSSITimefmtAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/date.html"), `<!--# config timefmt="`+
		`%-d|%_m|%k|%l|%P|%G|%g|%V|%U|%W|%x|%C|%Ey|%Od|%5Y|%^a|%#b|%#p|%10A|%-j|%03e|%Ea|%Oz|%-|%Q" -->`+
		`<!--# echo var="date_gmt" -->`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	get := func(port int) string {
		_, body := do(t, "GET", fmt.Sprintf("http://127.0.0.1:%d/date.html", port), nil)
		return body
	}
	before, got, after := get(nport), get(mport), get(nport)
	if got != before && got != after {
		t.Errorf("mosaic %q, nginx %q", got, before)
	}
}
