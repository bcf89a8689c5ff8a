package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestSSIEchoEmptyAsNGINX: SSI's echo writes a variable's value when it
// has one, an empty one included (a field sent empty, $server_name of a
// server without a name), and its default, "(none)", when it has none (a
// field not sent, $remote_user without credentials), as NGINX's does.
func TestSSIEchoEmptyAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	page := ""
	for _, name := range []string{"http_x_e", "http_x_none", "arg_a", "arg_none", "server_name", "remote_user",
		"is_args", "content_length", "request_body_file"} {
		page += fmt.Sprintf(`%[1]s=[<!--# echo var="%[1]s" -->] `, name)
	}
	writeFile(t, filepath.Join(dir, "www/page.html"), page)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`types { text/html html; } server { listen 127.0.0.1:%d; root %s/www; ssi on; }`, port, dir)
	})
	sameAnswer(t, mport, nport, "GET /page.html?a= HTTP/1.1\r\nHost: a.test\r\nX-E: ", "")
}
