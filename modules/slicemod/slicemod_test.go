package slicemod_test

import (
	"testing"

	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	_ "github.com/mosaic-edge/mosaic/modules/slicemod"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The module's behaviour is tested through the binary, against NGINX
// (cmd/mosaic, TestSliceAsNGINX); these are the configurations it
// refuses, with NGINX's words.
func TestErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`http { slice 1x; }`, `"slice" directive invalid value`},
		{`http { slice -1; }`, `"slice" directive invalid value`},
		{`http { slice +1; }`, `"slice" directive invalid value`},
		{`http { slice 1g; }`, `"slice" directive invalid value`},
		{`http { slice 1m; slice 2m; }`, `"slice" directive is duplicate`},
		{`http { slice; }`, `invalid number of arguments in "slice" directive`},
		{`http { slice 1 2; }`, `invalid number of arguments in "slice" directive`},
		{`http { server { location / { if ($arg_a) { slice 1m; } } } }`, `"slice" directive is not allowed here`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
	servertest.Load(t, `http { slice 1m; server { slice 256k; location / { slice 0; } location /a { slice 512; } } }`)
}
