package proxymod_test

import (
	"crypto/tls"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testpki"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/server/servertest"
)

// The proxy_ssl_* directives through the server, inherited from the http
// level, with NGINX's defaults where a location sets nothing.
func TestSSLDirectives(t *testing.T) {
	dir := t.TempDir()
	root := testpki.NewRootCA(t, "Test Root")
	inter := root.Intermediate(t, "Test Intermediate")
	inter2 := inter.Intermediate(t, "Test Intermediate 2")
	ca := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", root.Cert.Raw)
	clientCert, clientKey := testpki.WriteKeyPair(t, dir, "client", root.Issue(t, true, "mosaic-client"))

	direct := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), nil)
	chain1 := testpki.NewOrigin(t, inter.Issue(t, false, "chain1.test"), nil)
	chain2 := testpki.NewOrigin(t, inter2.Issue(t, false, "chain2.test"), nil)
	tls12 := testpki.NewOrigin(t, root.Issue(t, false, "tls12.test"), func(o *httptest.Server) { o.TLS.MaxVersion = tls.VersionTLS12 })
	mtls := testpki.NewOrigin(t, root.Issue(t, false, "mtls.test"), func(o *httptest.Server) {
		o.TLS.ClientAuth, o.TLS.ClientCAs = tls.RequireAndVerifyClientCert, root.Pool()
	})
	addr := func(o *httptest.Server) string { return strings.TrimPrefix(o.URL, "https://") }

	base := servertest.Start(t, fmt.Sprintf(`http {
		upstream origin.test { server %s; }
		upstream backend     { server %s; }
		upstream chain1.test { server %s; }
		upstream chain2.test { server %s; }
		upstream tls12.test  { server %s; }
		upstream mtls.test   { server %s; }
		proxy_ssl_verify on;
		proxy_ssl_trusted_certificate %s;
		server {
			listen 127.0.0.1:0;
			location /verify/    { proxy_pass https://origin.test/; }
			location /sni/       { proxy_ssl_server_name on; proxy_pass https://origin.test/; }
			location /wrongname/ { proxy_pass https://backend/; }
			location /name/      { proxy_ssl_name origin.test; proxy_ssl_server_name on; proxy_pass https://backend/; }
			location /namevar/   { proxy_ssl_name $http_x_name; proxy_ssl_server_name on; proxy_pass https://backend/; }
			location /off/       { proxy_ssl_verify off; proxy_pass https://backend/; }
			location /depth0/    { proxy_ssl_verify_depth 0; proxy_pass https://chain1.test/; }
			location /depth1/    { proxy_pass https://chain1.test/; }
			location /chain2/    { proxy_pass https://chain2.test/; }
			location /depth2/    { proxy_ssl_verify_depth 2; proxy_pass https://chain2.test/; }
			location /tls13/     { proxy_ssl_protocols TLSv1.3; proxy_pass https://tls12.test/; }
			location /tls12/     { proxy_ssl_protocols TLSv1 TLSv1.1 TLSv1.2; proxy_pass https://tls12.test/; }
			location /nocert/    { proxy_pass https://mtls.test/; }
			location /cert/      {
				proxy_ssl_certificate %s;
				proxy_ssl_certificate_key %s;
				proxy_pass https://mtls.test/;
			}
		}
	}`, addr(direct), addr(direct), addr(chain1), addr(chain2), addr(tls12), addr(mtls), ca, clientCert, clientKey))

	for _, c := range []struct {
		path, name string // name: the X-Name header
		status     int
		want       string
	}{
		{"/verify/", "", 200, "sni= "}, // proxy_ssl_server_name is off by default
		{"/sni/", "", 200, "sni=origin.test "},
		{"/wrongname/", "", 502, ""},
		{"/name/", "", 200, "sni=origin.test "},
		{"/namevar/", "origin.test", 200, "sni=origin.test "},
		{"/namevar/", "other.test", 502, ""},
		{"/off/", "", 200, ""},
		// The depth counts intermediate certificates, as OpenSSL 1.1 and
		// later count it for NGINX; the default is 1.
		{"/depth0/", "", 502, ""},
		{"/depth1/", "", 200, ""},
		{"/chain2/", "", 502, ""},
		{"/depth2/", "", 200, ""},
		{"/tls13/", "", 502, ""},
		{"/tls12/", "", 200, "version=TLS 1.2"},
		{"/nocert/", "", 502, ""},
		{"/cert/", "", 200, "client=mosaic-client"},
	} {
		resp, body := testclient.Get(t, base+c.path, "X-Name", c.name)
		if resp.StatusCode != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s (X-Name %q): %d %q, want %d %q", c.path, c.name, resp.StatusCode, body, c.status, c.want)
		}
	}

	// Without any proxy_ssl_* directive the server keeps NGINX's
	// defaults: an unknown certificate is accepted and no SNI is sent.
	base = servertest.Start(t, fmt.Sprintf(`http {
		upstream origin.test { server %s; }
		server { listen 127.0.0.1:0; location / { proxy_pass https://origin.test; } }
	}`, addr(direct)))
	if resp, body := testclient.Get(t, base+"/"); resp.StatusCode != 200 || !strings.HasPrefix(body, "sni= ") {
		t.Errorf("NGINX's defaults: %d %q", resp.StatusCode, body)
	}
}

func TestSSLDirectiveErrors(t *testing.T) {
	dir := t.TempDir()
	root := testpki.NewRootCA(t, "Test Root")
	ca := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", root.Cert.Raw)
	empty := testpki.WritePEM(t, dir, "empty.pem", "CERTIFICATE")
	broken := testpki.WritePEM(t, dir, "broken.pem", "CERTIFICATE", []byte("not DER"))
	cert, key := testpki.WriteKeyPair(t, dir, "client", root.Issue(t, true, "client"))
	_, otherKey := testpki.WriteKeyPair(t, dir, "other", root.Issue(t, true, "other"))
	missing := filepath.Join(dir, "missing.pem")

	for _, c := range []struct{ conf, want string }{
		{"proxy_ssl_verify yes;", `invalid value "yes" in "proxy_ssl_verify" directive, it must be "on" or "off" in test.conf:2`},
		{"proxy_ssl_verify on;\nproxy_ssl_verify off;", `"proxy_ssl_verify" directive is duplicate in test.conf:3`},
		{"proxy_ssl_trusted_certificate " + missing + ";", `cannot read "` + missing + `": no such file or directory in test.conf:2`},
		{"proxy_ssl_trusted_certificate " + empty + ";", `no certificates in "` + empty + `" in test.conf:2`},
		{"proxy_ssl_trusted_certificate " + broken + ";", `cannot load "` + broken + `": certificate 1: `},
		{"proxy_ssl_certificate_key $ssl_server_name.key;", `variables in "proxy_ssl_certificate_key" are not supported in test.conf:2`},
		{"proxy_ssl_verify_depth -1;", `invalid value "-1" in "proxy_ssl_verify_depth" directive`},
		{"proxy_ssl_server_name yes;", `invalid value "yes" in "proxy_ssl_server_name" directive`},
		{"proxy_ssl_name $no_such_variable;", `no_such_variable`},
		{"proxy_ssl_protocols TLSv1.2 SSLv3;", `"SSLv3" in "proxy_ssl_protocols" directive is not supported: only TLSv1 to TLSv1.3 are in test.conf:2`},
		{"proxy_ssl_protocols TLSv1 TLSv1.2;", `"proxy_ssl_protocols" directive leaves out TLSv1.1 between TLSv1 and TLSv1.2; versions can only be enabled as a range in test.conf:2`},
		{"proxy_ssl_protocols TLSv1.4;", `invalid value "TLSv1.4" in "proxy_ssl_protocols" directive`},
		{"proxy_ssl_certificate " + missing + ";", `cannot read "` + missing + `"`},
		{"\nproxy_ssl_verify on;", `no "proxy_ssl_trusted_certificate" for "proxy_ssl_verify" in test.conf:3`},
		{"proxy_ssl_certificate " + cert + ";", `no "proxy_ssl_certificate_key" is defined for certificate "` + cert + `" in test.conf:2`},
		{"proxy_ssl_certificate_key " + key + ";", `no "proxy_ssl_certificate" is defined for key "` + key + `" in test.conf:2`},
		{"proxy_ssl_certificate " + cert + ";\nproxy_ssl_certificate_key " + otherKey + ";",
			`cannot load certificate "` + cert + `" with key "` + otherKey + `" in test.conf:2: tls: private key does not match public key`},
	} {
		servertest.WantError(t, "http {\n"+c.conf+"\nserver { location / { proxy_pass https://127.0.0.1:1; } } }", c.want)
	}

	// The pairing and proxy_ssl_verify checks concern https locations only,
	// as in NGINX.
	src := "http { proxy_ssl_verify on; proxy_ssl_certificate " + cert + "; server { location / { proxy_pass http://127.0.0.1:1; } } }"
	if cfg, err := server.LoadString("test.conf", src); err != nil {
		t.Errorf("http location: %v", err)
	} else {
		cfg.Close()
	}
	src = "http { proxy_ssl_verify on; proxy_ssl_trusted_certificate " + ca + "; server { location / { proxy_pass https://127.0.0.1:1; } } }"
	if cfg, err := server.LoadString("test.conf", src); err != nil {
		t.Errorf("verify with a trusted certificate: %v", err)
	} else {
		cfg.Close()
	}
}
