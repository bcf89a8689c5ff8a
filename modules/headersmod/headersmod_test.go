package headersmod

import (
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/headers"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

func TestParseExpires(t *testing.T) {
	for _, c := range []struct {
		args []string
		want headers.Expires
	}{
		{[]string{"1h"}, headers.Expires{Mode: headers.ExpiresAccess, D: time.Hour}},
		{[]string{"+1h"}, headers.Expires{Mode: headers.ExpiresAccess, D: time.Hour}},
		{[]string{"-1"}, headers.Expires{Mode: headers.ExpiresAccess, D: -time.Second}},
		{[]string{"off"}, headers.Expires{Mode: headers.ExpiresOff}},
		{[]string{"epoch"}, headers.Expires{Mode: headers.ExpiresEpoch}},
		{[]string{"max"}, headers.Expires{Mode: headers.ExpiresMax}},
		{[]string{"@15h30m"}, headers.Expires{Mode: headers.ExpiresDaily, D: 15*time.Hour + 30*time.Minute}},
		{[]string{"@24h"}, headers.Expires{Mode: headers.ExpiresDaily, D: 24 * time.Hour}},
		{[]string{"modified", "1d"}, headers.Expires{Mode: headers.ExpiresModified, D: 24 * time.Hour}},
	} {
		got, err := parseExpires(c.args)
		if err != nil || got != c.want {
			t.Errorf("%v: %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"soon"}, {"modified", "@1h"}, {"later", "1h"}, {"@25h"}} {
		if _, err := parseExpires(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestLoad(t *testing.T) {
	cfg := servertest.Load(t, `http {
		add_header X-A a;
		add_header X-B $host always;
		expires modified 2h;
	}`)
	defer cfg.Close()
	lc := server.LocConf[*locConf](cfg.HTTP(), module)
	if len(lc.headers) != 2 || lc.headers[0].Name != "X-A" || lc.headers[0].Always || lc.headers[1].Name != "X-B" || !lc.headers[1].Always {
		t.Errorf("headers %+v", lc.headers)
	}
	if want := (headers.Expires{Mode: headers.ExpiresModified, D: 2 * time.Hour}); lc.expires.V.static != want {
		t.Errorf("expires %+v, want %+v", lc.expires.V.static, want)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{"http {\n expires soon;\n}", `invalid value "soon" in "expires" directive in test.conf:2`},
		{"http {\n expires 1h;\n expires 2h;\n}", `"expires" directive is duplicate in test.conf:3`},
		{"http {\n add_header X-A a sometimes;\n}", `invalid parameter "sometimes" in test.conf:2`},
		{"http {\n add_header X-A $nonesuch;\n}", `unknown "nonesuch" variable in test.conf:2`},
		{"http {\n expires later $host;\n}", `invalid value "later" in "expires" directive in test.conf:2`},
		{"http {\n expires $nonesuch;\n}", `unknown "nonesuch" variable in test.conf:2`},
		// The name is checked where the line is read, so that the error
		// names that line, not the server's or location's.
		{"http {\n server {\n  listen 127.0.0.1:0;\n  add_header \"X A\" a;\n }\n}", `invalid header name "X A" in "add_header" directive in test.conf:4`},
		{"http {\n add_header X:A a;\n server {\n  listen 127.0.0.1:0;\n }\n}", `invalid header name "X:A" in "add_header" directive in test.conf:2`},
		{"http {\n add_trailer X-A a sometimes;\n}", `invalid parameter "sometimes" in test.conf:2`},
		{"http {\n add_trailer X-A;\n}", `invalid number of arguments in "add_trailer" directive in test.conf:2`},
		{"http {\n add_trailer \"X A\" a;\n}", `invalid header name "X A" in "add_trailer" directive in test.conf:2`},
		{"http {\n add_trailer X-A $nonesuch;\n}", `unknown "nonesuch" variable in test.conf:2`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
}
