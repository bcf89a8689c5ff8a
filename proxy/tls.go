package proxy

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// TLSOptions configure the connections to an https upstream.
//
// The zero value is what a Go program embedding the proxy should get: the
// upstream's certificate must chain to the system's roots and be valid for
// the proxied host name, which is also sent as SNI. NGINX's defaults, no
// verification and no SNI, are SkipVerify and NoSNI; the server sets them
// unless proxy_ssl_verify and proxy_ssl_server_name say otherwise.
type TLSOptions struct {
	// SkipVerify accepts any certificate ("proxy_ssl_verify off"): the
	// connection is encrypted, but nothing proves who is at the other end.
	SkipVerify bool
	// RootCAs are the authorities trusted to sign the upstream's
	// certificate (proxy_ssl_trusted_certificate); nil means the system's.
	RootCAs *x509.CertPool
	// MaxChainLength bounds the verified chain, counting the upstream's
	// certificate and the trust anchor; 0 means no bound. NGINX's
	// "proxy_ssl_verify_depth N" counts only the intermediate certificates,
	// so it is N+2 here.
	MaxChainLength int
	// Name returns the name the certificate must be valid for, which is
	// also the SNI (proxy_ssl_name). A ":port" is dropped, as NGINX does
	// for a name taken from $proxy_host or $http_host. nil means the host
	// of Pass. A name that evaluates to "" fails verification.
	Name func(r *http.Request) string
	// NoSNI leaves the server name out of the handshake
	// ("proxy_ssl_server_name off"); the certificate is still verified
	// against Name.
	NoSNI bool
	// MinVersion and MaxVersion bound the protocol versions
	// (proxy_ssl_protocols), as tls.VersionTLS12 and so on; 0 leaves Go's
	// bound, TLS 1.2 at least and 1.3 at most.
	MinVersion, MaxVersion uint16
	// Certificate is presented to an upstream that asks for a client
	// certificate (proxy_ssl_certificate and proxy_ssl_certificate_key);
	// nil means none.
	Certificate *tls.Certificate
	// CipherSuites are the TLS 1.0-1.2 suites offered (proxy_ssl_ciphers);
	// nil means Go's default list. Go chooses the TLS 1.3 suites itself.
	CipherSuites []uint16
	// CurvePreferences are the key exchange groups offered (the Groups
	// or Curves of proxy_ssl_conf_command); nil means Go's default.
	CurvePreferences []tls.CurveID
	// CheckChain, when set, checks a chain that verified (the upstream's
	// certificate first, the trust anchor last) further, as a CRL check
	// does (proxy_ssl_crl); an error fails the handshake. It is not called
	// with SkipVerify.
	CheckChain func(chain []*x509.Certificate) error
	// NoSessionReuse makes every connection a full handshake
	// ("proxy_ssl_session_reuse off"). By default the handler keeps the
	// sessions the upstreams offer and resumes them on new connections.
	NoSessionReuse bool
}

// clientTLS is a handler's TLS client: one configuration and one session
// cache for all its connections.
//
// Go's own certificate check is off (InsecureSkipVerify) and verifyPeer
// does it instead from VerifyConnection, for two reasons: Go verifies
// exactly the SNI name, while NGINX verifies proxy_ssl_name whether or not
// it is sent; and VerifyConnection also runs when a session is resumed, so
// a session cached under one name or one verification is checked afresh
// before it serves another.
type clientTLS struct {
	base     *tls.Config
	verify   bool
	roots    *x509.CertPool
	maxChain int
	check    func([]*x509.Certificate) error // nil: none
	name     func(*http.Request) string      // nil: host
	host     string                          // Pass's host, the default name
	noSNI    bool
}

func newClientTLS(o TLSOptions, host string) (*clientTLS, error) {
	if o.MaxChainLength < 0 {
		return nil, fmt.Errorf("proxy: TLS.MaxChainLength %d is negative", o.MaxChainLength)
	}
	if o.MinVersion != 0 && o.MaxVersion != 0 && o.MinVersion > o.MaxVersion {
		return nil, fmt.Errorf("proxy: TLS.MinVersion %s is above MaxVersion %s",
			tls.VersionName(o.MinVersion), tls.VersionName(o.MaxVersion))
	}
	base := &tls.Config{
		InsecureSkipVerify: true, // verifyPeer checks instead, see clientTLS
		MinVersion:         o.MinVersion,
		MaxVersion:         o.MaxVersion,
		CipherSuites:       o.CipherSuites,
		CurvePreferences:   o.CurvePreferences,
	}
	if !o.NoSessionReuse {
		base.ClientSessionCache = tls.NewLRUClientSessionCache(0)
	}
	if o.Certificate != nil {
		base.Certificates = []tls.Certificate{*o.Certificate}
	}
	return &clientTLS{
		base:     base,
		verify:   !o.SkipVerify,
		roots:    o.RootCAs,
		maxChain: o.MaxChainLength,
		check:    o.CheckChain,
		name:     o.Name,
		host:     host,
		noSNI:    o.NoSNI,
	}, nil
}

// serverName is the name r's connection is verified against and sent as
// SNI, without a port. It is "" when the name is neither checked nor sent,
// so that such connections are pooled together whatever Name returns.
func (t *clientTLS) serverName(r *http.Request) string {
	if !t.verify && t.noSNI {
		return ""
	}
	name := t.host
	if t.name != nil {
		name = t.name(r)
	}
	return stripPort(name)
}

// stripPort drops a ":port" from a host name or a bracketed IPv6 address.
func stripPort(name string) string {
	start := 0
	if strings.HasPrefix(name, "[") {
		start = max(strings.IndexByte(name, ']'), 0)
	}
	if i := strings.IndexByte(name[start:], ':'); i >= 0 {
		return name[:start+i]
	}
	return name
}

// config is the configuration of one handshake for name. Clones share
// the session cache, which Go keys by SNI name or, without one, by the
// server's address.
func (t *clientTLS) config(name string) *tls.Config {
	c := t.base.Clone()
	if !t.noSNI {
		c.ServerName = name // Go sends none for an IP address, as NGINX does
	}
	if t.verify {
		c.VerifyConnection = func(cs tls.ConnectionState) error {
			return t.verifyPeer(cs.PeerCertificates, name)
		}
	}
	return c
}

// verifyPeer checks the upstream's certificate as OpenSSL does for NGINX:
// a chain to a trusted root, valid for name, with at most maxChain
// certificates. Go stops a chain at the first trusted certificate, so an
// intermediate listed among the roots shortens it.
func (t *clientTLS) verifyPeer(certs []*x509.Certificate, name string) error {
	if name == "" {
		return errors.New("no name to verify the upstream's certificate against")
	}
	if len(certs) == 0 {
		return errors.New("upstream sent no certificate")
	}
	opts := x509.VerifyOptions{Roots: t.roots, DNSName: name, Intermediates: x509.NewCertPool()}
	for _, c := range certs[1:] {
		opts.Intermediates.AddCert(c)
	}
	chains, err := certs[0].Verify(opts)
	if err != nil {
		return fmt.Errorf("upstream SSL certificate verify error: %w", err)
	}
	// The chains Go found that are short enough; one of them must pass
	// the further check, if any.
	var firstErr error
	for _, chain := range chains {
		if t.maxChain != 0 && len(chain) > t.maxChain {
			continue
		}
		if t.check == nil {
			return nil
		}
		err := t.check(chain)
		if err == nil {
			return nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return fmt.Errorf("upstream SSL certificate verify error: %w", firstErr)
	}
	shortest := len(chains[0])
	for _, chain := range chains[1:] {
		shortest = min(shortest, len(chain))
	}
	return fmt.Errorf("upstream SSL certificate verify error: certificate chain too long (%d certificates with the root, %d allowed)",
		shortest, t.maxChain)
}

// connID is what a connection was opened for. The idle pool hands a
// connection only to a request with the same connID: a TLS connection is
// reused by the handler that made it (its verification settings and
// client certificate) and for the name it was verified for, never by a
// handler with other settings that shares the upstream group.
type connID struct {
	tls  *clientTLS // nil: plain TCP
	name string
	sock sockOpts // the socket's local address and options (local.go)
}

// ClientConfig returns, for a module that dials with a client of its own
// (gRPC's HTTP/2), what the Handler's connections to an upstream whose
// target's host is host use: for each request, the tls.Config of its
// connection and the name it verifies and sends, under which
// connections may be shared ("" when the name is neither checked nor
// sent). The configurations share one session cache.
func (o TLSOptions) ClientConfig(host string) (func(r *http.Request) (name string, c *tls.Config), error) {
	t, err := newClientTLS(o, host)
	if err != nil {
		return nil, err
	}
	return func(r *http.Request) (string, *tls.Config) {
		name := t.serverName(r)
		return name, t.config(name)
	}, nil
}
