// Package testpki makes certificate authorities, certificates and https
// origins for tests of TLS clients (the proxy's TLSOptions and the
// proxy_ssl_* directives that build them), and self-signed certificates
// for tests of TLS servers.
package testpki

import (
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
)

// CA is a certificate authority made for a test: a root, or an
// intermediate with the chain that leads from it up to its root.
type CA struct {
	Cert  *x509.Certificate
	Key   crypto.Signer
	Chain [][]byte // DER of the CA and the intermediates above it, without the root
}

var serial atomic.Int64

// newCert signs tmpl with parent (self-signed when parent is nil) for a
// new key, valid from an hour ago for two hours.
func newCert(t testing.TB, tmpl *x509.Certificate, parent *CA) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(serial.Add(1))
	tmpl.NotBefore, tmpl.NotAfter = time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	issuer, signer := tmpl, crypto.Signer(key)
	if parent != nil {
		issuer, signer = parent.Cert, parent.Key
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
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
}

// NewRootCA makes a self-signed root CA.
func NewRootCA(t testing.TB, name string) *CA {
	t.Helper()
	cert, key := newCert(t, caTemplate(name), nil)
	return &CA{Cert: cert, Key: key}
}

// Intermediate makes a CA signed by ca.
func (ca *CA) Intermediate(t testing.TB, name string) *CA {
	t.Helper()
	cert, key := newCert(t, caTemplate(name), ca)
	return &CA{Cert: cert, Key: key, Chain: append([][]byte{cert.Raw}, ca.Chain...)}
}

// Issue signs a server certificate for names (or, with client, a client
// certificate whose common name is names[0]), sent with the intermediates
// above it.
func (ca *CA) Issue(t testing.TB, client bool, names ...string) tls.Certificate {
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
	return tls.Certificate{Certificate: append([][]byte{cert.Raw}, ca.Chain...), PrivateKey: key, Leaf: cert}
}

// SelfSigned makes a self-signed server certificate for names, for
// servers whose clients do not verify it.
func SelfSigned(t testing.TB, names ...string) tls.Certificate {
	t.Helper()
	cert, key := newCert(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: names[0]},
		DNSNames:    names,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, nil)
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
}

// Pool is a pool holding only ca.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}

// WritePEM writes PEM blocks of one type into a file of dir and returns
// its path.
func WritePEM(t testing.TB, dir, name, typ string, ders ...[]byte) string {
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

// WriteKeyPair writes a certificate chain and its key as the PEM files
// NAME.pem and NAME.key of dir.
func WriteKeyPair(t testing.TB, dir, name string, c tls.Certificate) (certFile, keyFile string) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return WritePEM(t, dir, name+".pem", "CERTIFICATE", c.Certificate...),
		WritePEM(t, dir, name+".key", "PRIVATE KEY", der)
}

// NewOrigin starts an https origin on 127.0.0.1 serving cert, after
// adjust (when not nil) has changed its TLS configuration or its server.
// It answers with what it saw of the handshake: "sni=NAME version=V
// resumed=BOOL client=CN", with "-" for no client certificate.
func NewOrigin(t testing.TB, cert tls.Certificate, adjust func(*httptest.Server)) *httptest.Server {
	t.Helper()
	o := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := "-"
		if pc := r.TLS.PeerCertificates; len(pc) > 0 {
			client = pc[0].Subject.CommonName
		}
		fmt.Fprintf(w, "sni=%s version=%s resumed=%t client=%s",
			r.TLS.ServerName, tls.VersionName(r.TLS.Version), r.TLS.DidResume, client)
	}))
	o.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshakes the tests make fail
	o.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if adjust != nil {
		adjust(o)
	}
	o.StartTLS()
	t.Cleanup(o.Close)
	return o
}
