package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSIIncludeSetKeepsValueAsNGINX: include set= replaces the variable
// only with the body of a 2xx response that has one; an include that
// fails, redirects or answers nothing leaves the value the page gave it
// (a fallback set before), and a variable that did not exist exists,
// empty, from then on.
func TestSSIIncludeSetKeepsValueAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<!--# set var="v" value="fallback" -->`+
		`<!--# include virtual="/missing" set="v" -->[<!--# echo var="v" -->]`+
		`<!--# include virtual="/empty" set="v" -->[<!--# echo var="v" -->]`+
		`<!--# include virtual="/moved" set="v" -->[<!--# echo var="v" -->]`+
		`<!--# include virtual="/ok" set="V" -->[<!--# echo var="v" -->]`+
		`<!--# include virtual="/missing" set="new" -->[<!--# echo var="new" -->]`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location = /missing { return 404; }
			location = /empty { return 200 ""; }
			location = /moved { return 302 /ok; }
			location = /ok { return 200 "ok"; } }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html HTTP/1.1\r\nHost: a.test", "")
}
