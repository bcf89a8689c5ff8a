package accesslogmod

import (
	"path/filepath"
	"testing"

	"github.com/mosaic-edge/mosaic/accesslog"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	cfg := servertest.Load(t, `http {
		log_format js escape=json '{"ua":"$http_user_agent",' '"s":$status}';
		access_log `+filepath.Join(dir, "a.log")+`;
		access_log `+filepath.Join(dir, "a.log")+` js buffer=4k flush=1s if=$arg_log;
	}`)
	defer cfg.Close()
	mc := server.MainConf[*mainConf](cfg, module)
	if js := mc.formats["js"]; js == nil || js.Escape != accesslog.EscapeJSON {
		t.Fatalf("format js: %v", js)
	}
	if mc.formats[combined] == nil {
		t.Fatal("combined, named by default, not compiled")
	}
	lc := server.LocConf[*locConf](cfg.HTTP(), module)
	if len(lc.targets) != 2 || lc.off {
		t.Fatalf("targets %+v off %v", lc.targets, lc.off)
	}
	a, b := lc.targets[0], lc.targets[1]
	if a.Format != mc.formats[combined] || b.Format != mc.formats["js"] || a.If != nil || b.If == nil {
		t.Errorf("targets %+v", lc.targets)
	}
	if a.File != b.File || len(mc.files) != 1 {
		t.Errorf("one path opened as %d files", len(mc.files))
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"http {\n log_format combined '$status';\n}", `duplicate "log_format" name "combined" in test.conf:2`},
		{"http {\n log_format a '$status';\n log_format a '$uri';\n}", `duplicate "log_format" name "a" in test.conf:3`},
		{"http {\n log_format a escape=xml '$status';\n}", `unknown log format escaping "xml" in test.conf:2`},
		{"http {\n log_format a escape=json;\n}", `invalid number of arguments in "log_format" directive in test.conf:2`},
		{"http {\n log_format a '$nonesuch';\n}", `unknown "nonesuch" variable in test.conf:2`},
		// NGINX reads each argument's variables apart (ngx_http_log_compile)
		// and refuses a "$" that no name follows as an invalid parameter,
		// from that "$" on (nginx -t on Debian's 1.22.1); joined, 'x $'
		// '$status' would be refused in other words and 'a${' 'b}' taken.
		{"http {\n log_format a 'x $' '$status';\n}", `invalid parameter "$" in test.conf:2`},
		{"http {\n log_format a '$status $';\n}", `invalid parameter "$" in test.conf:2`},
		{"http {\n log_format a '$-b';\n}", `invalid parameter "$-b" in test.conf:2`},
		{"http {\n log_format a '${}';\n}", `invalid parameter "${}" in test.conf:2`},
		{"http {\n log_format a '$$x';\n}", `invalid parameter "$$x" in test.conf:2`},
		{"http {\n log_format a 'a${' 'b}';\n}", `invalid parameter "${" in test.conf:2`},
		{"http {\n log_format a '${a' 'b}';\n}", `the closing bracket in "a" variable is missing in test.conf:2`},
		{"http {\n access_log stderr later;\n log_format later '$status';\n}", `unknown log format "later" in test.conf:2`},
		{"http {\n access_log syslog:server=10.0.0.1;\n}", `access_log to syslog is not supported, use a file in test.conf:2`},
		{"http {\n access_log stderr combined gzip=5;\n}", `access_log gzip= is not supported in test.conf:2`},
		{"http {\n access_log logs/$host.log combined buffer=4k;\n}", `buffered logs cannot have variables in name in test.conf:2`},
		{"http {\n access_log stderr combined sometimes=1;\n}", `invalid parameter "sometimes=1" in test.conf:2`},
		{"http {\n access_log off stderr;\n}", `invalid parameter "stderr" in test.conf:2`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
}
