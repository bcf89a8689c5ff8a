package proxymod_test

import (
	"testing"

	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The directives' behaviour is tested through the binary, against NGINX
// (cmd/mosaic, TestProxyRequestDirectivesMatchNGINX); these are the
// configurations they refuse.
func TestRequestDirectiveErrors(t *testing.T) {
	for _, c := range []struct{ conf, want string }{
		{`http { proxy_ignore_client_abort maybe; }`, `invalid value "maybe" in "proxy_ignore_client_abort" directive`},
		{`http { proxy_buffers 8 lots; }`, `invalid value "lots" in "proxy_buffers" directive`},
		{`http { proxy_method GET; proxy_method PUT; }`, `"proxy_method" directive is duplicate`},
		{`http { proxy_cookie_path /a /b; proxy_cookie_path off; }`, `"proxy_cookie_path" directive is duplicate`},
		{`http { proxy_cookie_domain off; proxy_cookie_domain a b; }`, `"proxy_cookie_domain" directive is duplicate`},
		{`http { proxy_cookie_flags on; }`, `invalid parameter "on"`},
		{`http { proxy_cookie_path ~( /b; }`, `pcre2_compile() failed`},
	} {
		servertest.WantError(t, c.conf, c.want)
	}
}
