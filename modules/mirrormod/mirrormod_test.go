package mirrormod_test

import (
	"testing"

	_ "github.com/mosaic-edge/mosaic/modules/mirrormod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The module's behaviour is tested through the binary, against NGINX
// (cmd/mosaic, TestMirrorMatchesNGINX); these are the configurations it
// refuses, with NGINX's words.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`http { mirror /a; mirror off; }`, `"mirror" directive is duplicate`},
		{`http { mirror off; mirror /a; }`, `"mirror" directive is duplicate`},
		{`http { mirror off; mirror off; }`, `"mirror" directive is duplicate`},
		{`http { mirror; }`, `invalid number of arguments in "mirror" directive`},
		{`http { mirror /a /b; }`, `invalid number of arguments in "mirror" directive`},
		{`http { mirror_request_body maybe; }`, `it must be "on" or "off"`},
		{`http { server { location / { if ($arg_a) { mirror /m; } } } }`, `"mirror" directive is not allowed here`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
	// Several mirrors at one level, "off" below one that has them.
	servertest.Load(t, `http { mirror /a; mirror /b; mirror_request_body off;
		server { location / { mirror off; } location /x { mirror /c; } } }`)
}
