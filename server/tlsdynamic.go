package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// dynamicCerts are a server's certificates named with variables, which
// NGINX (since 1.15.9) reads at each handshake: "ssl_certificate
// /etc/ssl/$ssl_server_name.crt". The names are evaluated with what a
// handshake knows: the connection's variables and $ssl_server_name, the
// client's SNI. As NGINX 1.22, the files are read again for every
// handshake (no cache).
type dynamicCerts struct {
	certs, keys sslFiles
	passwords   []string
	logf        *slog.Logger
}

// errDynamicName refuses a file name that a client's SNI led out of the
// directory the configuration names (NGINX reads it).
var errDynamicName = errors.New("the name from the client holds a \"..\" segment or a NUL")

// pairs reads the certificate and key pairs for a handshake.
func (d *dynamicCerts) pairs(hello *tls.ClientHelloInfo) ([]tls.Certificate, error) {
	r := helloRequest(hello)
	out := make([]tls.Certificate, 0, len(d.certs.files))
	for i := range d.certs.files {
		certFile, err := d.name(d.certs, i, r)
		if err != nil {
			return nil, err
		}
		keyFile, err := d.name(d.keys, i, r)
		if err != nil {
			return nil, err
		}
		c, err := loadKeyPair(certFile, keyFile, d.passwords)
		if err != nil {
			// As NGINX's "cannot load certificate": the handshake fails.
			d.logf.Error(fmt.Sprintf("cannot load certificate %q: %v", certFile, err), "server_name", hello.ServerName)
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// name evaluates the i-th name of files for the handshake r stands for.
func (d *dynamicCerts) name(files sslFiles, i int, r *http.Request) (string, error) {
	if files.tpls[i] == nil {
		return files.files[i], nil
	}
	name := files.tpls[i].Eval(r)
	if name == "" || strings.IndexByte(name, 0) >= 0 {
		return "", errDynamicName
	}
	if reqrule.DotDot(name) >= 0 {
		return "", errDynamicName
	}
	return name, nil
}

// helloRequest is a request that stands for a handshake, so that
// templates read the connection's variables and $ssl_server_name.
func helloRequest(hello *tls.ClientHelloInfo) *http.Request {
	r := &http.Request{URL: &url.URL{}, Header: http.Header{}, TLS: &tls.ConnectionState{ServerName: hello.ServerName}}
	if hello.Conn != nil {
		r.RemoteAddr = hello.Conn.RemoteAddr().String()
		r = r.WithContext(context.WithValue(hello.Context(), http.LocalAddrContextKey, hello.Conn.LocalAddr()))
	}
	return r
}
