package proxy

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	core "github.com/mosaic-edge/mosaic/server"
)

// testCA is a certificate authority made for a test: a root, or an
// intermediate with the chain that leads from it up to its root.
type testCA struct {
	cert  *x509.Certificate
	key   crypto.Signer
	chain [][]byte // DER of the CA and the intermediates above it, without the root
}

var testSerial atomic.Int64

// newCert signs tmpl with parent (self-signed when parent is nil) for a
// new key.
func newCert(t *testing.T, tmpl *x509.Certificate, parent *testCA) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(testSerial.Add(1))
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	issuer, signer := tmpl, crypto.Signer(key)
	if parent != nil {
		issuer, signer = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), signer)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func caTemplate(name string) *x509.Certificate {
	return &x509.Certificate{
		Subject:               pkix.Name{CommonName: name},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
}

func newRootCA(t *testing.T, name string) *testCA {
	t.Helper()
	cert, key := newCert(t, caTemplate(name), nil)
	return &testCA{cert: cert, key: key}
}

// intermediate is a CA signed by ca.
func (ca *testCA) intermediate(t *testing.T, name string) *testCA {
	t.Helper()
	cert, key := newCert(t, caTemplate(name), ca)
	return &testCA{cert: cert, key: key, chain: append([][]byte{cert.Raw}, ca.chain...)}
}

// issue signs a server certificate for names (or a client certificate
// whose common name is names[0]), sent with the intermediates above it.
func (ca *testCA) issue(t *testing.T, client bool, names ...string) tls.Certificate {
	t.Helper()
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: names[0]},
		DNSNames:    names,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	cert, key := newCert(t, tmpl, ca)
	return tls.Certificate{Certificate: append([][]byte{cert.Raw}, ca.chain...), PrivateKey: key, Leaf: cert}
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// writePEM writes PEM blocks of one type into a file of dir.
func writePEM(t *testing.T, dir, name, typ string, ders ...[]byte) string {
	t.Helper()
	var b strings.Builder
	for _, der := range ders {
		if err := pem.Encode(&b, &pem.Block{Type: typ, Bytes: der}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeKeyPair writes a certificate chain and its key as PEM files.
func writeKeyPair(t *testing.T, dir, name string, c tls.Certificate) (certFile, keyFile string) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return writePEM(t, dir, name+".pem", "CERTIFICATE", c.Certificate...),
		writePEM(t, dir, name+".key", "PRIVATE KEY", der)
}

// newTLSOrigin starts an https origin on 127.0.0.1 serving cert, with
// its TLS configuration adjusted by adjust when not nil. It answers with
// what it saw of the handshake: the SNI name, the version, whether the
// session was resumed and the name in the client's certificate.
func newTLSOrigin(t *testing.T, cert tls.Certificate, adjust func(*tls.Config)) (*httptest.Server, *connCounter) {
	t.Helper()
	cc := &connCounter{}
	o := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := "-"
		if pc := r.TLS.PeerCertificates; len(pc) > 0 {
			client = pc[0].Subject.CommonName
		}
		fmt.Fprintf(w, "sni=%s version=%s resumed=%t client=%s",
			r.TLS.ServerName, tls.VersionName(r.TLS.Version), r.TLS.DidResume, client)
	}))
	o.Config.ConnState = cc.hook
	o.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes the tests make fail
	o.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if adjust != nil {
		adjust(o.TLS)
	}
	o.StartTLS()
	t.Cleanup(o.Close)
	return o, cc
}

// group is an upstream group named name with o as its server: name is
// $proxy_host, the name verified, and no DNS lookup is made.
func group(t *testing.T, name string, o *httptest.Server, keepalive int) *Upstream {
	t.Helper()
	return mustUpstream(t, name, keepalive, server(strings.TrimPrefix(o.URL, "https://")))
}

func constName(name string) func(*http.Request) string {
	return func(*http.Request) string { return name }
}

// nameFromHeader is a Name taken from the request, like a proxy_ssl_name
// with a variable.
func nameFromHeader(r *http.Request) string { return r.Header.Get("X-Name") }

// The zero TLSOptions verify against the system's roots and send SNI;
// each field relaxes or changes one check.
func TestTLSOptions(t *testing.T) {
	root := newRootCA(t, "Test Root")
	o, _ := newTLSOrigin(t, root.issue(t, false, "origin.test"), nil)
	named := group(t, "origin.test", o, 0)
	other := group(t, "backend", o, 0)
	for _, c := range []struct {
		what   string
		up     *Upstream
		opts   TLSOptions
		status int
		sni    string
	}{
		{"zero value: the system's roots do not know the origin's", named, TLSOptions{}, 502, ""},
		{"trusted root, SNI is the proxied host", named, TLSOptions{RootCAs: root.pool()}, 200, "origin.test"},
		{"NGINX's defaults", named, TLSOptions{SkipVerify: true, NoSNI: true}, 200, ""},
		{"no verification, SNI sent", named, TLSOptions{SkipVerify: true}, 200, "origin.test"},
		{"wrong name", named, TLSOptions{RootCAs: root.pool(), Name: constName("other.test")}, 502, ""},
		{"group name not in the certificate", other, TLSOptions{RootCAs: root.pool()}, 502, ""},
		{"Name changes the name verified and sent", other, TLSOptions{RootCAs: root.pool(), Name: constName("origin.test")}, 200, "origin.test"},
		{"a port in Name is dropped", other, TLSOptions{RootCAs: root.pool(), Name: constName("origin.test:8443")}, 200, "origin.test"},
		{"without SNI the name is still verified", named, TLSOptions{RootCAs: root.pool(), NoSNI: true}, 200, ""},
		{"without SNI a wrong name still fails", named, TLSOptions{RootCAs: root.pool(), NoSNI: true, Name: constName("other.test")}, 502, ""},
		{"an empty name fails verification", named, TLSOptions{RootCAs: root.pool(), Name: constName("")}, 502, ""},
	} {
		f := newFront(t, proxyTo(t, "https://"+c.up.Name, Options{Upstream: c.up, TLS: c.opts}))
		status, body, _ := get(t, f.URL+"/")
		if status != c.status || (status == 200 && !strings.HasPrefix(body, "sni="+c.sni+" ")) {
			t.Errorf("%s: %d %q, want %d with SNI %q", c.what, status, body, c.status, c.sni)
		}
	}
}

func TestTLSOptionsValidated(t *testing.T) {
	p, _ := ParsePass("https://127.0.0.1:1")
	for _, o := range []TLSOptions{
		{MaxChainLength: -1},
		{MinVersion: tls.VersionTLS13, MaxVersion: tls.VersionTLS12},
	} {
		if _, err := New(Options{Pass: p, TLS: o}); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestTLSVersionsAndClientCertificate(t *testing.T) {
	root := newRootCA(t, "Test Root")
	old, _ := newTLSOrigin(t, root.issue(t, false, "origin.test"), func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 })
	mtls, _ := newTLSOrigin(t, root.issue(t, false, "origin.test"), func(c *tls.Config) {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, root.pool()
	})
	client := root.issue(t, true, "mosaic-client")
	for _, c := range []struct {
		what   string
		origin *httptest.Server
		opts   TLSOptions
		status int
		want   string
	}{
		{"TLS 1.3 only against a TLS 1.2 origin", old, TLSOptions{MinVersion: tls.VersionTLS13}, 502, ""},
		{"Go's defaults against a TLS 1.2 origin", old, TLSOptions{}, 200, "version=TLS 1.2"},
		{"no client certificate", mtls, TLSOptions{}, 502, ""},
		{"client certificate", mtls, TLSOptions{Certificate: &client}, 200, "client=mosaic-client"},
	} {
		c.opts.RootCAs = root.pool()
		up := group(t, "origin.test", c.origin, 0)
		f := newFront(t, proxyTo(t, "https://origin.test", Options{Upstream: up, TLS: c.opts}))
		if status, body, _ := get(t, f.URL+"/"); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d %q, want %d %q", c.what, status, body, c.status, c.want)
		}
	}
}

// Sessions are resumed, and a resumed session is verified again: without
// SNI, Go caches sessions by the server's address, so a request for
// another name is offered the same session and must still be refused.
func TestTLSResumedSessionsAreVerified(t *testing.T) {
	root := newRootCA(t, "Test Root")
	o, _ := newTLSOrigin(t, root.issue(t, false, "origin.test"), nil)
	up := group(t, "origin.test", o, 0)
	f := newFront(t, proxyTo(t, "https://origin.test", Options{Upstream: up, TLS: TLSOptions{
		RootCAs: root.pool(), NoSNI: true, Name: nameFromHeader,
	}}))
	for i, c := range []struct {
		name   string
		status int
		want   string
	}{
		{"origin.test", 200, "resumed=false"},
		{"origin.test", 200, "resumed=true"},
		{"other.test", 502, ""},
	} {
		if status, body, _ := get(t, f.URL+"/", "X-Name", c.name); status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("request %d for %s: %d %q, want %d %q", i+1, c.name, status, body, c.status, c.want)
		}
	}
}

// A kept-alive TLS connection serves only requests that would have opened
// it with the same checks: the same handler and the same name.
func TestTLSKeepaliveMatchesVerification(t *testing.T) {
	root := newRootCA(t, "Test Root")
	o, cc := newTLSOrigin(t, root.issue(t, false, "origin.test"), nil)
	up := group(t, "origin.test", o, 4)
	keepalive := func(opts TLSOptions) *front {
		return newFront(t, proxyTo(t, "https://origin.test", Options{
			Upstream: up, HTTPVersion: "1.1", SetHeaders: keepaliveHeaders, TLS: opts,
		}))
	}
	insecure := keepalive(TLSOptions{SkipVerify: true})
	strict := keepalive(TLSOptions{RootCAs: newRootCA(t, "Other Root").pool()})
	byName := keepalive(TLSOptions{RootCAs: root.pool(), Name: nameFromHeader})

	for range 3 {
		if status, _, _ := get(t, insecure.URL+"/"); status != 200 {
			t.Fatalf("without verification: status %d", status)
		}
	}
	if n := cc.count(); n != 1 {
		t.Errorf("%d connections for 3 requests, want 1", n)
	}
	if status, _, _ := get(t, strict.URL+"/"); status != 502 {
		t.Errorf("another handler's unverified connection was reused: status %d", status)
	}
	if status, _, _ := get(t, byName.URL+"/", "X-Name", "origin.test"); status != 200 {
		t.Fatalf("verified: status %d", status)
	}
	if status, _, _ := get(t, byName.URL+"/", "X-Name", "other.test"); status != 502 {
		t.Errorf("a connection verified for origin.test served other.test: status %d", status)
	}
}

func TestStripPort(t *testing.T) {
	for in, want := range map[string]string{
		"origin.test": "origin.test", "origin.test:8443": "origin.test",
		"[::1]": "[::1]", "[::1]:443": "[::1]", "127.0.0.1:443": "127.0.0.1", "": "",
	} {
		if got := stripPort(in); got != want {
			t.Errorf("stripPort(%q) = %q, want %q", in, got, want)
		}
	}
}

// serveConfig builds src and serves it on the loopback port it listens
// on; it returns the base URL.
func serveConfig(t *testing.T, src string) string {
	t.Helper()
	cfg, err := core.LoadString("test.conf", src)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	rt := core.NewRuntime()
	if err := rt.Apply(cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = rt.Shutdown(ctx)
	})
	return "http://" + rt.Addrs()[0].String()
}

// The proxy_ssl_* directives through the server, inherited from the http
// level, with NGINX's defaults where a location sets nothing.
func TestSSLDirectives(t *testing.T) {
	dir := t.TempDir()
	root := newRootCA(t, "Test Root")
	inter := root.intermediate(t, "Test Intermediate")
	inter2 := inter.intermediate(t, "Test Intermediate 2")
	ca := writePEM(t, dir, "ca.pem", "CERTIFICATE", root.cert.Raw)
	clientCert, clientKey := writeKeyPair(t, dir, "client", root.issue(t, true, "mosaic-client"))

	direct, _ := newTLSOrigin(t, root.issue(t, false, "origin.test"), nil)
	chain1, _ := newTLSOrigin(t, inter.issue(t, false, "chain1.test"), nil)
	chain2, _ := newTLSOrigin(t, inter2.issue(t, false, "chain2.test"), nil)
	tls12, _ := newTLSOrigin(t, root.issue(t, false, "tls12.test"), func(c *tls.Config) { c.MaxVersion = tls.VersionTLS12 })
	mtls, _ := newTLSOrigin(t, root.issue(t, false, "mtls.test"), func(c *tls.Config) {
		c.ClientAuth, c.ClientCAs = tls.RequireAndVerifyClientCert, root.pool()
	})
	addr := func(o *httptest.Server) string { return strings.TrimPrefix(o.URL, "https://") }

	base := serveConfig(t, fmt.Sprintf(`http {
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
		status, body, _ := get(t, base+c.path, "X-Name", c.name)
		if status != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s (X-Name %q): %d %q, want %d %q", c.path, c.name, status, body, c.status, c.want)
		}
	}

	// Without any proxy_ssl_* directive the server keeps NGINX's
	// defaults: an unknown certificate is accepted and no SNI is sent.
	base = serveConfig(t, fmt.Sprintf(`http {
		upstream origin.test { server %s; }
		server { listen 127.0.0.1:0; location / { proxy_pass https://origin.test; } }
	}`, addr(direct)))
	if status, body, _ := get(t, base+"/"); status != 200 || !strings.HasPrefix(body, "sni= ") {
		t.Errorf("NGINX's defaults: %d %q", status, body)
	}
}

func TestSSLDirectiveErrors(t *testing.T) {
	dir := t.TempDir()
	root := newRootCA(t, "Test Root")
	ca := writePEM(t, dir, "ca.pem", "CERTIFICATE", root.cert.Raw)
	empty := writePEM(t, dir, "empty.pem", "CERTIFICATE")
	broken := writePEM(t, dir, "broken.pem", "CERTIFICATE", []byte("not DER"))
	cert, key := writeKeyPair(t, dir, "client", root.issue(t, true, "client"))
	_, otherKey := writeKeyPair(t, dir, "other", root.issue(t, true, "other"))
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
		src := "http {\n" + c.conf + "\nserver { location / { proxy_pass https://127.0.0.1:1; } } }"
		_, err := core.LoadString("test.conf", src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.conf, err, c.want)
		}
	}

	// The pairing and proxy_ssl_verify checks concern https locations only,
	// as in NGINX.
	src := "http { proxy_ssl_verify on; proxy_ssl_certificate " + cert + "; server { location / { proxy_pass http://127.0.0.1:1; } } }"
	if cfg, err := core.LoadString("test.conf", src); err != nil {
		t.Errorf("http location: %v", err)
	} else {
		cfg.Close()
	}
	src = "http { proxy_ssl_verify on; proxy_ssl_trusted_certificate " + ca + "; server { location / { proxy_pass https://127.0.0.1:1; } } }"
	if cfg, err := core.LoadString("test.conf", src); err != nil {
		t.Errorf("verify with a trusted certificate: %v", err)
	} else {
		cfg.Close()
	}
}
