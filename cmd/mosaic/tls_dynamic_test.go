package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// certFor reports the name of the certificate a server at port shows a
// client that sends sni, or the handshake's failure.
func certFor(port int, sni string) string {
	d := net.Dialer{Timeout: 3 * time.Second}
	c, err := tls.DialWithDialer(&d, "tcp", fmt.Sprintf("127.0.0.1:%d", port), &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	if err != nil {
		return "handshake failed"
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// ssl_certificate with variables reads the pair that the client's SNI
// names at each handshake, as NGINX 1.15.9+; a name whose files are
// missing fails the handshake, as NGINX's; a file added after the start
// is read at the next handshake; a name that would climb out of the
// directory is refused (NGINX would read the file).
func TestSSLCertificateWithVariablesAsNGINX(t *testing.T) {
	nginxPath(t)
	dir := t.TempDir()
	ca := testpki.NewRootCA(t, "ca")
	certs := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.test", "b.test"} {
		testpki.WriteKeyPair(t, certs, name, ca.Issue(t, false, name))
	}
	// A pair that a climbing name would reach.
	testpki.WriteKeyPair(t, dir, "secret", ca.Issue(t, false, "secret"))
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server { listen 127.0.0.1:%d ssl;
			ssl_certificate %[2]s/$ssl_server_name.pem; ssl_certificate_key %[2]s/$ssl_server_name.key;
			return 200 "$ssl_server_name\n"; }`, port, certs)
	})
	for _, sni := range []string{"a.test", "b.test", "c.test"} {
		if m, n := certFor(mport, sni), certFor(nport, sni); m != n {
			t.Errorf("SNI %q: mosaic %q, nginx %q", sni, m, n)
		}
	}
	testpki.WriteKeyPair(t, certs, "c.test", ca.Issue(t, false, "c.test"))
	if m, n := certFor(mport, "c.test"), certFor(nport, "c.test"); m != "c.test" || n != "c.test" {
		t.Errorf("a pair added after the start: mosaic %q, nginx %q", m, n)
	}
	if m := certFor(mport, "../secret"); m != "handshake failed" {
		t.Errorf(`SNI "../secret": mosaic shows %q`, m)
	}
}
