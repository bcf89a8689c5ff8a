package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSIStubIsTheIncludedRequestsAsNGINX: NGINX sends a stub as the
// response of the included request, which its SSI processes: the stub's
// $uri and $args are those of the include, not of the page.
func TestSSIStubIsTheIncludedRequestsAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<!--# block name="b" -->`+
		`unavailable: <!--# echo var="uri" -->?<!--# echo var="args" --><!--# endblock -->`+
		`[<!--# include virtual="/missing?x=1" stub="b" -->]`)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location = /missing { return 404; } }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html?y=2 HTTP/1.1\r\nHost: a.test", "")
}

// TestSSIStubRelativeAfterRedirectAsNGINX: a relative include in a stub
// is relative to the included request's URI as it ends, after an internal
// redirect (try_files), as NGINX's r->uri is, not to the URI it was
// issued for.
func TestSSIStubRelativeAfterRedirectAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www/page.html"), `<!--# block name="b" -->`+
		`<!--# echo var="uri" -->:<!--# include virtual="rel" --><!--# endblock -->`+
		`[<!--# include virtual="/tf/missing" stub="b" -->]`)
	writeFile(t, filepath.Join(dir, "www/gone/rel"), "GONE")
	writeFile(t, filepath.Join(dir, "www/tf/rel"), "TF")
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } default_type text/html; server { listen 127.0.0.1:%d; root %s/www; ssi on;
			location /tf/ { try_files $uri /gone/none; }
			location = /gone/none { return 404; } }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html HTTP/1.1\r\nHost: a.test", "")
}
