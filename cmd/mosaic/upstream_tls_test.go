package main

import (
	"bufio"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// The TLS client settings toward upstreams through the binary, against
// Go TLS origins on loopback: proxy_ssl_ciphers, proxy_ssl_conf_command,
// proxy_ssl_crl, proxy_ssl_password_file and proxy_ssl_session_reuse,
// then the same directive set under the uwsgi_ssl_ prefix with
// "uwsgi_pass suwsgi://" to a uwsgi responder behind TLS.

// tlsGet asks mosaic for path and returns "STATUS BODY".
func tlsGet(t *testing.T, port int, path string) string {
	t.Helper()
	resp, body := httpGet(t, fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	return fmt.Sprintf("%d %s", resp.StatusCode, body)
}

// writeCRL writes a PEM CRL that ca signs, revoking the given leaves.
func writeCRL(t *testing.T, dir, name string, ca *testpki.CA, revoked ...*x509.Certificate) string {
	t.Helper()
	tmpl := &x509.RevocationList{
		Number:     big.NewInt(time.Now().UnixNano()),
		ThisUpdate: time.Now().Add(-time.Hour),
		NextUpdate: time.Now().Add(time.Hour),
	}
	for _, c := range revoked {
		tmpl.RevokedCertificateEntries = append(tmpl.RevokedCertificateEntries,
			x509.RevocationListEntry{SerialNumber: c.SerialNumber, RevocationTime: time.Now().Add(-time.Minute)})
	}
	der, err := x509.CreateRevocationList(rand.Reader, tmpl, ca.Cert, ca.Key)
	if err != nil {
		t.Fatal(err)
	}
	return testpki.WritePEM(t, dir, name, "X509 CRL", der)
}

// encryptedKeyPair writes c with its key encrypted by openssl (PKCS#8,
// AES-256, as OpenSSL 3 writes by default) under the passphrase "right",
// and a password file whose second line is that passphrase.
func encryptedKeyPair(t *testing.T, dir, name string, c tls.Certificate) (cert, key, passwords string) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl command")
	}
	cert, plain := testpki.WriteKeyPair(t, dir, name, c)
	key = filepath.Join(dir, name+".enc.key")
	out, err := exec.Command("openssl", "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", plain,
		"-passout", "pass:right", "-out", key).CombinedOutput()
	if err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	passwords = filepath.Join(dir, name+".pass")
	if err := os.WriteFile(passwords, []byte("wrong\nright\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, key, passwords
}

// configFails runs "mosaic -t" on an http block and returns its output,
// failing the test when the configuration loads.
func configFails(t *testing.T, block string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bad.conf")
	if err := os.WriteFile(path, []byte("http {"+block+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
	if err == nil {
		t.Fatalf("configuration loaded:\n%s\n%s", block, out)
	}
	return string(out)
}

func originAddr(o *httptest.Server) string { return strings.TrimPrefix(o.URL, "https://") }

// proxy_ssl_ciphers and proxy_ssl_conf_command decide the suites and
// versions offered: a TLS 1.2 origin with one suite answers only the
// locations that offer it, and says which suite it got.
func TestProxySSLCiphersAndConfCommand(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	origin := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), func(o *httptest.Server) {
		o.TLS.MaxVersion = tls.VersionTLS12
		o.TLS.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
		o.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, tls.CipherSuiteName(r.TLS.CipherSuite))
		})
	})
	tls13 := testpki.NewOrigin(t, root.Issue(t, false, "tls13.test"), func(o *httptest.Server) {
		o.TLS.MinVersion = tls.VersionTLS13
		o.TLS.CurvePreferences = []tls.CurveID{tls.CurveP384}
	})
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http {
		server {
			listen 127.0.0.1:{port};
			location /default/ { proxy_pass https://%[1]s/; }
			location /match/   { proxy_ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384; proxy_pass https://%[1]s/; }
			location /other/   { proxy_ssl_ciphers 'HIGH:!AES128'; proxy_pass https://%[1]s/; }
			location /cmd/     {
				proxy_ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;
				proxy_ssl_conf_command CipherString ECDHE-ECDSA-CHACHA20-POLY1305;
				proxy_pass https://%[1]s/;
			}
			location /cmdok/   {
				proxy_ssl_ciphers ECDHE-ECDSA-CHACHA20-POLY1305;
				proxy_ssl_conf_command CipherString AESGCM;
				proxy_ssl_conf_command Options ServerPreference;
				proxy_pass https://%[1]s/;
			}
			location /tls13/   { proxy_pass https://%[2]s/; }
			location /max12/   { proxy_ssl_conf_command MaxProtocol TLSv1.2; proxy_pass https://%[2]s/; }
			location /x25519/  { proxy_ssl_conf_command Groups X25519; proxy_pass https://%[2]s/; }
			location /p384/    { proxy_ssl_conf_command Curves X25519:secp384r1; proxy_pass https://%[2]s/; }
		}
	}`, originAddr(origin), originAddr(tls13)), port)
	for path, want := range map[string]string{
		"/default/": "200 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
		"/match/":   "200 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
		"/other/":   "502",
		"/cmd/":     "502", // the command overrides proxy_ssl_ciphers
		"/cmdok/":   "200 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
		"/tls13/":   "200 sni= version=TLS 1.3",
		"/max12/":   "502",
		"/x25519/":  "502", // no group in common
		"/p384/":    "200 sni= version=TLS 1.3",
	} {
		if got := tlsGet(t, port, path); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %.60q, want %q", path, got, want)
		}
	}
	for block, want := range map[string]string{
		`proxy_ssl_ciphers 'NULL:!ALL';`:                   `SSL_CTX_set_cipher_list("NULL:!ALL") failed`,
		`proxy_ssl_conf_command NoSuchCommand x;`:          "unknown command",
		`proxy_ssl_conf_command MinProtocol TLSv9;`:        "unknown protocol",
		`proxy_ssl_conf_command CipherString 'NULL:!ALL';`: "no cipher suite",
	} {
		if out := configFails(t, block); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", block, out, want)
		}
	}
}

// proxy_ssl_crl fails the handshake with an upstream whose certificate
// the list revokes, when proxy_ssl_verify is on.
func TestProxySSLCRL(t *testing.T) {
	dir := t.TempDir()
	root := testpki.NewRootCA(t, "Test Root")
	inter := root.Intermediate(t, "Test Intermediate")
	leaf := root.Issue(t, false, "origin.test")
	chained := inter.Issue(t, false, "chained.test")
	origin := testpki.NewOrigin(t, leaf, nil)
	chainedOrigin := testpki.NewOrigin(t, chained, nil)
	ca := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", root.Cert.Raw)
	revoked := writeCRL(t, dir, "revoked.crl", root, leaf.Leaf)
	clean := writeCRL(t, dir, "clean.crl", root)
	// Both issuers' lists, one of which revokes the chained leaf.
	rootClean, _ := os.ReadFile(clean)
	interRevoked, _ := os.ReadFile(writeCRL(t, dir, "inter.crl", inter, chained.Leaf))
	both := filepath.Join(dir, "both.crl")
	if err := os.WriteFile(both, append(rootClean, interRevoked...), 0o600); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		proxy_ssl_trusted_certificate %[3]s;
		proxy_ssl_name origin.test;
		server {
			listen 127.0.0.1:{port};
			location /none/     { proxy_ssl_verify on; proxy_pass https://%[1]s/; }
			location /revoked/  { proxy_ssl_verify on; proxy_ssl_crl %[4]s; proxy_pass https://%[1]s/; }
			location /clean/    { proxy_ssl_verify on; proxy_ssl_crl %[5]s; proxy_pass https://%[1]s/; }
			location /noverify/ { proxy_ssl_crl %[4]s; proxy_pass https://%[1]s/; }
			location /nointer/  { proxy_ssl_verify on; proxy_ssl_crl %[5]s; proxy_ssl_name chained.test; proxy_pass https://%[2]s/; }
			location /inter/    { proxy_ssl_verify on; proxy_ssl_crl %[6]s; proxy_ssl_name chained.test; proxy_pass https://%[2]s/; }
		}
	}`, originAddr(origin), originAddr(chainedOrigin), ca, revoked, clean, both), port)
	for path, want := range map[string]string{
		"/none/":     "200 sni=",
		"/revoked/":  "502",
		"/clean/":    "200 sni=",
		"/noverify/": "200 sni=", // NGINX checks the list only when it verifies
		"/nointer/":  "502",      // no list from the intermediate
		"/inter/":    "502",      // the intermediate's list revokes the leaf
	} {
		if got := tlsGet(t, port, path); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %.60q, want %q", path, got, want)
		}
	}
	// As in NGINX, the file is read for the locations that verify.
	block := fmt.Sprintf(`proxy_ssl_crl /nonexistent.crl;
		server { listen 127.0.0.1:1; location / { proxy_ssl_verify on; proxy_ssl_trusted_certificate %s; proxy_pass https://127.0.0.1:1; } }`, ca)
	if out := configFails(t, block); !strings.Contains(out, `X509_LOOKUP_load_file("/nonexistent.crl") failed`) {
		t.Errorf("missing CRL file: %q", out)
	}
}

// proxy_ssl_password_file decrypts an encrypted proxy_ssl_certificate_key,
// which an origin that requires a client certificate then sees.
func TestProxySSLPasswordFile(t *testing.T) {
	dir := t.TempDir()
	root := testpki.NewRootCA(t, "Test Root")
	cert, key, passwords := encryptedKeyPair(t, dir, "client", root.Issue(t, true, "mosaic-client"))
	origin := testpki.NewOrigin(t, root.Issue(t, false, "mtls.test"), func(o *httptest.Server) {
		o.TLS.ClientAuth, o.TLS.ClientCAs = tls.RequireAndVerifyClientCert, root.Pool()
	})
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		proxy_ssl_password_file %s;
		server {
			listen 127.0.0.1:{port};
			location / { proxy_ssl_certificate %s; proxy_ssl_certificate_key %s; proxy_pass https://%s; }
		}
	}`, passwords, cert, key, originAddr(origin)), port)
	if got, want := tlsGet(t, port, "/"), "200 sni= version=TLS 1.3 resumed=false client=mosaic-client"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	block := fmt.Sprintf(`server { listen 127.0.0.1:1; location / { proxy_ssl_certificate %s; proxy_ssl_certificate_key %s; proxy_pass https://127.0.0.1:1; } }`, cert, key)
	if out := configFails(t, block); !strings.Contains(out, "cannot load certificate") {
		t.Errorf("without a password file: %q", out)
	}
	wrong := filepath.Join(dir, "wrong.pass")
	os.WriteFile(wrong, []byte("wrong\n"), 0o600)
	if out := configFails(t, "proxy_ssl_password_file "+wrong+";"+block); !strings.Contains(out, "bad password") {
		t.Errorf("with a wrong password: %q", out)
	}
}

// proxy_ssl_session_reuse, on by default, resumes the session of the
// previous connection; off makes every handshake a full one.
func TestProxySSLSessionReuse(t *testing.T) {
	root := testpki.NewRootCA(t, "Test Root")
	tls13 := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), nil)
	tls12 := testpki.NewOrigin(t, root.Issue(t, false, "origin.test"), func(o *httptest.Server) { o.TLS.MaxVersion = tls.VersionTLS12 })
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http {
		server {
			listen 127.0.0.1:{port};
			location /on13/  { proxy_pass https://%[1]s/; }
			location /off13/ { proxy_ssl_session_reuse off; proxy_pass https://%[1]s/; }
			location /on12/  { proxy_ssl_session_reuse on; proxy_pass https://%[2]s/; }
			location /off12/ { proxy_ssl_session_reuse off; proxy_pass https://%[2]s/; }
		}
	}`, originAddr(tls13), originAddr(tls12)), port)
	for _, c := range []struct {
		path   string
		resume bool
	}{{"/on13/", true}, {"/off13/", false}, {"/on12/", true}, {"/off12/", false}} {
		// No keepalive: each request is a new connection.
		first, second := tlsGet(t, port, c.path), tlsGet(t, port, c.path)
		if !strings.Contains(first, "resumed=false") {
			t.Errorf("%s: first connection %q", c.path, first)
		}
		if want := fmt.Sprintf("resumed=%t", c.resume); !strings.Contains(second, want) {
			t.Errorf("%s: second connection %q, want %s", c.path, second, want)
		}
	}
}

// suwsgiResponder is a uwsgi application behind TLS: it answers each
// request with what it saw of the handshake and the request.
func suwsgiResponder(t *testing.T, cert tls.Certificate, adjust func(*tls.Config)) string {
	t.Helper()
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}}
	if adjust != nil {
		adjust(cfg)
	}
	ln, err := tls.Listen("tcp4", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSUWSGI(c.(*tls.Conn))
		}
	}()
	return ln.Addr().String()
}

func serveSUWSGI(c *tls.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if c.Handshake() != nil {
		return
	}
	br := bufio.NewReader(c)
	var h [4]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return
	}
	block := make([]byte, binary.LittleEndian.Uint16(h[1:3]))
	if _, err := io.ReadFull(br, block); err != nil {
		return
	}
	vars := map[string]string{}
	for len(block) >= 4 {
		n := int(binary.LittleEndian.Uint16(block))
		if 2+n+2 > len(block) {
			break
		}
		m := int(binary.LittleEndian.Uint16(block[2+n:]))
		if 4+n+m > len(block) {
			break
		}
		vars[string(block[2:2+n])] = string(block[4+n : 4+n+m])
		block = block[4+n+m:]
	}
	cs := c.ConnectionState()
	client := "-"
	if len(cs.PeerCertificates) > 0 {
		client = cs.PeerCertificates[0].Subject.CommonName
	}
	fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsni=%s version=%s resumed=%t client=%s uri=%s",
		cs.ServerName, tls.VersionName(cs.Version), cs.DidResume, client, vars["REQUEST_URI"])
}

// "uwsgi_pass suwsgi://" speaks uwsgi over TLS, which the uwsgi_ssl_*
// directives configure as proxy_ssl_* do for https.
func TestUWSGIOverTLS(t *testing.T) {
	dir := t.TempDir()
	root := testpki.NewRootCA(t, "Test Root")
	ca := testpki.WritePEM(t, dir, "ca.pem", "CERTIFICATE", root.Cert.Raw)
	leaf := root.Issue(t, false, "app.test")
	app := suwsgiResponder(t, leaf, func(c *tls.Config) {
		c.ClientAuth, c.ClientCAs = tls.VerifyClientCertIfGiven, root.Pool()
	})
	app12 := suwsgiResponder(t, leaf, func(c *tls.Config) {
		c.MaxVersion = tls.VersionTLS12
		c.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	})
	revoked := writeCRL(t, dir, "revoked.crl", root, leaf.Leaf)
	clean := writeCRL(t, dir, "clean.crl", root)
	cert, key, passwords := encryptedKeyPair(t, dir, "client", root.Issue(t, true, "mosaic-client"))
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		upstream apps { server %[1]s; }
		uwsgi_ssl_trusted_certificate %[3]s;
		server {
			listen 127.0.0.1:{port};
			include uwsgi_params;
			location /plain/   { uwsgi_pass %[1]s; }
			location /tls/     { uwsgi_pass suwsgi://%[1]s; }
			location /group/   { uwsgi_pass suwsgi://apps; }
			location /verify/  {
				uwsgi_ssl_verify on; uwsgi_ssl_verify_depth 1;
				uwsgi_ssl_name app.test; uwsgi_ssl_server_name on;
				uwsgi_ssl_crl %[5]s;
				uwsgi_pass suwsgi://%[1]s;
			}
			location /wrongname/ { uwsgi_ssl_verify on; uwsgi_ssl_name other.test; uwsgi_pass suwsgi://%[1]s; }
			location /revoked/ { uwsgi_ssl_verify on; uwsgi_ssl_name app.test; uwsgi_ssl_crl %[4]s; uwsgi_pass suwsgi://%[1]s; }
			location /cert/    {
				uwsgi_ssl_certificate %[6]s; uwsgi_ssl_certificate_key %[7]s; uwsgi_ssl_password_file %[8]s;
				uwsgi_pass suwsgi://%[1]s;
			}
			location /tls12/   { uwsgi_ssl_protocols TLSv1.2; uwsgi_pass suwsgi://%[1]s; }
			location /tls13/   { uwsgi_ssl_protocols TLSv1.3; uwsgi_pass suwsgi://%[2]s; }
			location /cipher/  { uwsgi_ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256; uwsgi_pass suwsgi://%[2]s; }
			location /nocipher/ { uwsgi_ssl_ciphers ECDHE-ECDSA-AES256-GCM-SHA384; uwsgi_pass suwsgi://%[2]s; }
			location /cmd/     { uwsgi_ssl_conf_command CipherString ECDHE-ECDSA-AES256-GCM-SHA384; uwsgi_pass suwsgi://%[2]s; }
			location /noreuse/ { uwsgi_ssl_session_reuse off; uwsgi_pass suwsgi://%[1]s; }
		}
	}`, app, app12, ca, revoked, clean, cert, key, passwords), port)
	for _, c := range []struct{ path, want string }{
		{"/plain/", "502"}, // uwsgi in the clear to a TLS listener
		{"/tls/", "200 sni= version=TLS 1.3 resumed=false client=- uri=/tls/"},
		{"/tls/", "200 sni= version=TLS 1.3 resumed=true client=- uri=/tls/"},
		{"/group/", "200 sni= version=TLS 1.3 resumed=false client=- uri=/group/"},
		{"/verify/", "200 sni=app.test version=TLS 1.3 resumed=false client=- uri=/verify/"},
		{"/wrongname/", "502"},
		{"/revoked/", "502"},
		{"/cert/", "200 sni= version=TLS 1.3 resumed=false client=mosaic-client uri=/cert/"},
		{"/tls12/", "200 sni= version=TLS 1.2 resumed=false"},
		{"/tls13/", "502"},
		{"/cipher/", "200 sni= version=TLS 1.2"},
		{"/nocipher/", "502"},
		{"/cmd/", "502"},
		{"/noreuse/", "200 sni= version=TLS 1.3 resumed=false"},
		{"/noreuse/", "200 sni= version=TLS 1.3 resumed=false"},
	} {
		if got := tlsGet(t, port, c.path); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
	for block, want := range map[string]string{
		`server { listen 127.0.0.1:1; location / { uwsgi_ssl_verify on; uwsgi_pass suwsgi://127.0.0.1:1; } }`: `no "uwsgi_ssl_trusted_certificate" for "uwsgi_ssl_verify"`,
		`uwsgi_ssl_protocols SSLv3;`:     "not supported",
		`uwsgi_ssl_ciphers 'NULL:!ALL';`: "SSL_CTX_set_cipher_list",
	} {
		if out := configFails(t, block); !strings.Contains(out, want) {
			t.Errorf("%s: %q, want %q", block, out, want)
		}
	}
}
