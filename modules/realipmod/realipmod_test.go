package realipmod_test

import (
	"testing"

	_ "github.com/mosaic-edge/mosaic/modules/realipmod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The module's behaviour is tested through the binary, against NGINX
// (cmd/mosaic, TestRealipMatchNGINX, TestProxyProtocolMatchesNGINX);
// these are the configurations it refuses.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`http { set_real_ip_from 10.0.0.0/33; }`, `host not found in set_real_ip_from "10.0.0.0/33"`},
		{`http { set_real_ip_from nowhere.invalid; }`, `host not found in set_real_ip_from "nowhere.invalid"`},
		{`http { real_ip_header X-Real-IP; real_ip_header X-Forwarded-For; }`, `"real_ip_header" directive is duplicate`},
		{`http { real_ip_recursive maybe; }`, `it must be "on" or "off"`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
	cfg := servertest.Load(t, `http { set_real_ip_from 10.1.2.3/8; set_real_ip_from unix:; set_real_ip_from localhost; }`)
	found := false
	for _, n := range cfg.Notices() {
		found = found || n == "low address bits of 10.1.2.3/8 are meaningless in test.conf:1"
	}
	if !found {
		t.Errorf("notices %q", cfg.Notices())
	}
}
