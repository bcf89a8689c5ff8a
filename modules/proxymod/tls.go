package proxymod

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// The proxy_ssl_* directives. The server keeps NGINX's defaults, which are
// not the library's: without proxy_ssl_verify and proxy_ssl_server_name
// the upstream's certificate is not checked and no SNI is sent.

// flagAt is an on|off setting with the place that set it, for errors that
// arise only once the settings of a location are merged.
type flagAt struct {
	on  bool
	pos string
}

// pemFile is a file read when its directive is, so that a missing file is
// reported at its line; its content is parsed once the location's
// settings are complete.
type pemFile struct {
	path string
	pos  string
	data []byte
}

// proxyTLSVersions are the proxy_ssl_protocols names Go speaks, in order.
var proxyTLSVersions = []struct {
	name    string
	version uint16
}{
	{"TLSv1", tls.VersionTLS10},
	{"TLSv1.1", tls.VersionTLS11},
	{"TLSv1.2", tls.VersionTLS12},
	{"TLSv1.3", tls.VersionTLS13},
}

func setSSLVerify(c *core.Cmd) error {
	on, err := c.Flag()
	if err != nil {
		return err
	}
	return core.Put(c, &c.Loc().(*locConf).sslVerify, flagAt{on: on, pos: c.Pos()})
}

func setSSLVerifyDepth(c *core.Cmd) error {
	// NGINX takes any number; no chain comes near this bound, which keeps
	// depth+2 (proxy.TLSOptions.MaxChainLength) from overflowing.
	n, err := c.Int(c.Args[0], 0, 1<<16)
	if err != nil {
		return err
	}
	return core.Put(c, &c.Loc().(*locConf).sslDepth, n)
}

// setSSLName compiles proxy_ssl_name, which may use variables like a
// proxy_set_header value.
func setSSLName(c *core.Cmd) error {
	v, err := templateValue(c, c.Args[0])
	if err != nil {
		return err
	}
	return core.Put(c, &c.Loc().(*locConf).sslName, v)
}

// readArgFile reads the file named by the directive's argument.
func readArgFile(c *core.Cmd) ([]byte, error) {
	path := c.Args[0]
	data, err := os.ReadFile(path)
	if err != nil {
		reason := err
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			reason = pe.Err // without the path, which the message names already
		}
		return nil, &conf.Error{Msg: fmt.Sprintf("cannot read %q: %v", path, reason), File: c.File, Line: c.Line, Err: err}
	}
	return data, nil
}

// setSSLTrusted loads proxy_ssl_trusted_certificate: every CERTIFICATE
// block of the PEM file must parse, and there must be one at least.
func setSSLTrusted(c *core.Cmd) error {
	data, err := readArgFile(c)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	n := 0
	for rest := data; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue // a CRL or a key beside the certificates
		}
		cert, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return &conf.Error{Msg: fmt.Sprintf("cannot load %q: certificate %d: %v", c.Args[0], n+1, err),
				File: c.File, Line: c.Line, Err: err}
		}
		pool.AddCert(cert)
		n++
	}
	if n == 0 {
		return c.Errorf("no certificates in %q", c.Args[0])
	}
	return core.Put(c, &c.Loc().(*locConf).sslTrusted, pool)
}

// setPEMFile returns the setter of proxy_ssl_certificate or
// proxy_ssl_certificate_key, which are paired after merging because a
// location may inherit them from different levels. Variables, with which
// NGINX reads the files per request, are refused.
func setPEMFile(get func(*locConf) *core.Setting[*pemFile]) func(*core.Cmd) error {
	return func(c *core.Cmd) error {
		if strings.Contains(c.Args[0], "$") {
			return c.Errorf("variables in %q are not supported", c.Name)
		}
		data, err := readArgFile(c)
		if err != nil {
			return err
		}
		return core.Put(c, get(c.Loc().(*locConf)), &pemFile{path: c.Args[0], pos: c.Pos(), data: data})
	}
}

// setSSLProtocols maps proxy_ssl_protocols onto a range of versions. Go
// has no SSL and enables every version between its bounds, so SSLv2,
// SSLv3 and a list with a gap are refused rather than silently changed.
func setSSLProtocols(c *core.Cmd) error {
	var on [4]bool // by index in proxyTLSVersions
	for _, a := range c.Args {
		found := false
		for i, v := range proxyTLSVersions {
			if strings.EqualFold(a, v.name) {
				on[i], found = true, true
			}
		}
		switch {
		case found:
		case strings.EqualFold(a, "SSLv2") || strings.EqualFold(a, "SSLv3"):
			return c.Errorf("%q in %q directive is not supported: only TLSv1 to TLSv1.3 are", a, c.Name)
		default:
			return c.Invalid(a, `it must be "TLSv1", "TLSv1.1", "TLSv1.2" or "TLSv1.3"`)
		}
	}
	lo, hi := -1, -1
	for i, set := range on {
		if !set {
			continue
		}
		if lo < 0 {
			lo = i
		}
		if i > hi+1 && hi >= 0 {
			return c.Errorf("%q directive leaves out %s between %s and %s; versions can only be enabled as a range",
				c.Name, proxyTLSVersions[hi+1].name, proxyTLSVersions[hi].name, proxyTLSVersions[i].name)
		}
		hi = i
	}
	return core.Put(c, &c.Loc().(*locConf).sslProtocols,
		[2]uint16{proxyTLSVersions[lo].version, proxyTLSVersions[hi].version})
}

// tlsOptions turns a location's merged proxy_ssl_* settings into
// proxy.TLSOptions, with NGINX's defaults: no verification, no SNI, depth 1.
// Like NGINX it checks them only for locations that proxy to https.
// Verification needs proxy_ssl_trusted_certificate, as in NGINX: mosaic
// does not fall back on the system's roots.
func (lc *locConf) tlsOptions(mc *mainConf) (proxy.TLSOptions, error) {
	verify := lc.sslVerify.V
	o := proxy.TLSOptions{
		SkipVerify: !verify.on,
		RootCAs:    lc.sslTrusted.V,
		// The depth counts intermediate certificates; the chain also
		// holds the upstream's certificate and the root.
		MaxChainLength: lc.sslDepth.Or(1) + 2,
		Name:           lc.sslName.V,
		NoSNI:          !lc.sslServerName.V,
		MinVersion:     lc.sslProtocols.V[0],
		MaxVersion:     lc.sslProtocols.V[1],
	}
	if verify.on && o.RootCAs == nil {
		return o, fmt.Errorf(`no "proxy_ssl_trusted_certificate" for "proxy_ssl_verify" in %s`, verify.pos)
	}
	cert, key := lc.sslCert.V, lc.sslKey.V
	switch {
	case cert == nil && key == nil:
		return o, nil
	case key == nil:
		return o, fmt.Errorf(`no "proxy_ssl_certificate_key" is defined for certificate %q in %s`, cert.path, cert.pos)
	case cert == nil:
		return o, fmt.Errorf(`no "proxy_ssl_certificate" is defined for key %q in %s`, key.path, key.pos)
	}
	pair := [2]*pemFile{cert, key}
	if o.Certificate = mc.keyPairs[pair]; o.Certificate == nil {
		kp, err := tls.X509KeyPair(cert.data, key.data)
		if err != nil {
			return o, fmt.Errorf("cannot load certificate %q with key %q in %s: %w", cert.path, key.path, cert.pos, err)
		}
		o.Certificate = &kp
		mc.keyPairs[pair] = o.Certificate
	}
	return o, nil
}
