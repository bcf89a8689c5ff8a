package rewritemod

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/server/servertest"
)

func fetch(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// uninitialized_variable_warn and rewrite_log follow the location in
// force, inherited from the levels above.
func TestWarnAndLogSettings(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "error.log")
	base := servertest.Start(t, `http { error_log `+logf+` notice; server { listen 127.0.0.1:0;
		uninitialized_variable_warn off;
		location /quiet { return 200 "[$q]"; }
		location /loud { uninitialized_variable_warn on; return 200 "[$l]"; }
		location /log { rewrite_log on; rewrite ^/log/(.*) /loud/$1; }
		location /nolog { rewrite ^/nolog/(.*) /loud/$1; }
		location /nowhere { set $q 1; set $l 2; }
	} }`)
	for _, p := range []string{"/quiet", "/loud", "/log/x", "/nolog/x"} {
		if got := fetch(t, base+p); got != "[]" {
			t.Errorf("%s: %q", p, got)
		}
	}
	b, _ := os.ReadFile(logf)
	log := string(b)
	if strings.Contains(log, `\"q\"`) || strings.Count(log, `using uninitialized \"l\" variable`) != 3 {
		t.Errorf("warnings:\n%s", log)
	}
	if !strings.Contains(log, `\"^/log/(.*)\" matches \"/log/x\"`) || !strings.Contains(log, `rewritten data: \"/loud/x\", args: \"\"`) || strings.Contains(log, "nolog") {
		t.Errorf("rewrite_log:\n%s", log)
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"http { server {\n rewrite ^ ;\n} }", `invalid number of arguments in "rewrite" directive in test.conf:2`},
		{"http { server {\n if $a { }\n} }", `invalid condition "$a" in test.conf:2`},
		{"http { server {\n if ($a {\n }\n} }", `invalid condition "($a" in test.conf:2`},
		{"http { server {\n set $a;\n} }", `invalid number of arguments in "set" directive in test.conf:2`},
		{"http { server {\n break x;\n} }", `invalid number of arguments in "break" directive in test.conf:2`},
		{"http { server {\n rewrite_log maybe;\n} }", `it must be "on" or "off"`},
		{"http { server {\n if ($host ~ (?<host>x)) { }\n} }", `the duplicate "host" variable in test.conf:2`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
}
