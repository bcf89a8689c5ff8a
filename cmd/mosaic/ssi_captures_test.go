package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSICapturesAsNGINX: NGINX keeps as many captures as PCRE reports,
// up to the last group that took part in the match: $2 of /(x)(y)?/
// matching "xa" is no capture and echo prints its default, or "(none)";
// a named group that took no part is set, empty; $0 starts at \K.
func TestSSICapturesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<!--# set var="a" value="xa" -->`+
		`<!--# if expr="$a = /(x)(y)?/" -->[<!--# echo var="1" -->][<!--# echo var="2" -->][<!--# echo var="2" default="d" -->]<!--# endif -->`+
		`<!--# if expr="$a = /(q)?(a)/" -->[<!--# echo var="1" default="d" -->][<!--# echo var="2" -->]<!--# endif -->`+
		`<!--# if expr="$a = /(?<nm>z)?a/" -->[<!--# echo var="nm" default="d" -->][<!--# echo var="1" default="d" -->]<!--# endif -->`+
		`<!--# if expr="$a = /(x)\K(a)/" -->[<!--# echo var="0" -->][<!--# echo var="1" -->][<!--# echo var="2" -->]<!--# endif -->`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html HTTP/1.1\r\nHost: a.test", "")
}
