package proxymod

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// The *_ssl_* directives of a module that speaks to its upstreams over
// TLS: proxy_ssl_* for https, uwsgi_ssl_* for suwsgi (modules/uwsgimod).
// One implementation serves every prefix: a module embeds a TLSConf in
// its location settings, registers TLSDirectives under its prefix and
// builds the proxy.TLSOptions of a location with TLSOptions.
//
// The server keeps NGINX's defaults, which are not the library's: without
// *_ssl_verify and *_ssl_server_name the upstream's certificate is not
// checked and no SNI is sent. The OpenSSL-shaped settings (cipher lists,
// CRLs, encrypted keys, SSL_CONF commands) are read by the code that
// reads the server side's ssl_* directives (package server).

// TLSConf is one level's *_ssl_* settings.
type TLSConf struct {
	verify     core.Setting[flagAt]
	trusted    core.Setting[*x509.CertPool]
	depth      core.Setting[int]
	serverName core.Setting[bool]
	name       core.Setting[func(*http.Request) string]
	protocols  core.Setting[[2]uint16]
	cert       core.Setting[*pemFile]
	key        core.Setting[*pemFile]
	passwords  core.Setting[*passwordFile]
	ciphers    core.Setting[[]uint16]
	crl        core.Setting[*crlFile]
	reuse      core.Setting[bool]
	commands   core.Setting[[]confCommand]
}

// Merge fills what c's level does not set from its parent's.
func (c *TLSConf) Merge(parent *TLSConf) {
	c.verify.Merge(parent.verify)
	c.trusted.Merge(parent.trusted)
	c.depth.Merge(parent.depth)
	c.serverName.Merge(parent.serverName)
	c.name.Merge(parent.name)
	c.protocols.Merge(parent.protocols)
	c.cert.Merge(parent.cert)
	c.key.Merge(parent.key)
	c.passwords.Merge(parent.passwords)
	c.ciphers.Merge(parent.ciphers)
	c.crl.Merge(parent.crl)
	c.reuse.Merge(parent.reuse)
	c.commands.Merge(parent.commands)
}

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

// passwordFile is a *_ssl_password_file's passphrases.
type passwordFile struct {
	lines []string
}

// crlFile is a *_ssl_crl file, read once the first location that
// verifies with it is built (NGINX reads it only with *_ssl_verify on);
// the levels that inherit it share the lists.
type crlFile struct {
	path   string
	at     *conf.Directive
	loaded bool
	lists  []*x509.RevocationList
	err    error
}

// load reads the file the first time.
func (f *crlFile) load() ([]*x509.RevocationList, error) {
	if !f.loaded {
		f.lists, f.err = core.ReadCRLs(f.path, f.at)
		f.loaded = true
	}
	return f.lists, f.err
}

// confCommand is one *_ssl_conf_command line that changes a setting.
type confCommand struct {
	name, value, pos string
}

// keyPairID names a loaded client certificate: its files and the
// passphrases its key was decrypted with.
type keyPairID struct {
	cert, key *pemFile
	passwords *passwordFile
}

// proxyTLSVersions are the *_ssl_protocols names Go speaks, in order.
var proxyTLSVersions = []struct {
	name    string
	version uint16
}{
	{"TLSv1", tls.VersionTLS10},
	{"TLSv1.1", tls.VersionTLS11},
	{"TLSv1.2", tls.VersionTLS12},
	{"TLSv1.3", tls.VersionTLS13},
}

// TLSDirectives returns the *_ssl_* directives under prefix ("proxy",
// "uwsgi") for a module whose location settings are T, with get
// returning their TLSConf.
func TLSDirectives[T any](prefix string, get func(T) *TLSConf) []core.Directive {
	tc := func(c *core.Cmd) *TLSConf { return get(c.Loc().(T)) }
	d := func(name string, maxArgs int, set func(*core.Cmd, *TLSConf) error) core.Directive {
		return core.Directive{Name: prefix + "_ssl_" + name, Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: maxArgs,
			Set: func(c *core.Cmd) error { return set(c, tc(c)) }}
	}
	return []core.Directive{
		d("verify", 1, setSSLVerify),
		d("trusted_certificate", 1, setSSLTrusted),
		d("verify_depth", 1, setSSLVerifyDepth),
		d("server_name", 1, func(c *core.Cmd, t *TLSConf) error { return core.PutFlag(c, &t.serverName) }),
		d("name", 1, setSSLName),
		d("protocols", core.Unlimited, setSSLProtocols),
		d("certificate", 1, setPEMFile(func(t *TLSConf) *core.Setting[*pemFile] { return &t.cert })),
		d("certificate_key", 1, setPEMFile(func(t *TLSConf) *core.Setting[*pemFile] { return &t.key })),
		d("password_file", 1, setSSLPasswordFile),
		d("ciphers", 1, setSSLCiphers),
		d("crl", 1, setSSLCRL),
		d("session_reuse", 1, func(c *core.Cmd, t *TLSConf) error { return core.PutFlag(c, &t.reuse) }),
		{Name: prefix + "_ssl_conf_command", Context: core.CtxHTTPAll, MinArgs: 2, MaxArgs: 2,
			Set: func(c *core.Cmd) error { return setSSLConfCommand(c, tc(c)) }},
	}
}

func setSSLVerify(c *core.Cmd, t *TLSConf) error {
	on, err := c.Flag()
	if err != nil {
		return err
	}
	return core.Put(c, &t.verify, flagAt{on: on, pos: c.Pos()})
}

func setSSLVerifyDepth(c *core.Cmd, t *TLSConf) error {
	// NGINX takes any number; no chain comes near this bound, which keeps
	// depth+2 (proxy.TLSOptions.MaxChainLength) from overflowing.
	n, err := c.Int(c.Args[0], 0, 1<<16)
	if err != nil {
		return err
	}
	return core.Put(c, &t.depth, n)
}

// setSSLName compiles *_ssl_name, which may use variables like a
// proxy_set_header value.
func setSSLName(c *core.Cmd, t *TLSConf) error {
	v, err := templateValue(c, c.Args[0])
	if err != nil {
		return err
	}
	return core.Put(c, &t.name, v)
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

// setSSLTrusted loads *_ssl_trusted_certificate: every CERTIFICATE block
// of the PEM file must parse, and there must be one at least.
func setSSLTrusted(c *core.Cmd, t *TLSConf) error {
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
	return core.Put(c, &t.trusted, pool)
}

// setPEMFile returns the setter of *_ssl_certificate or
// *_ssl_certificate_key, which are paired after merging because a
// location may inherit them from different levels. Variables, with which
// NGINX reads the files per request, are refused.
func setPEMFile(get func(*TLSConf) *core.Setting[*pemFile]) func(*core.Cmd, *TLSConf) error {
	return func(c *core.Cmd, t *TLSConf) error {
		if strings.Contains(c.Args[0], "$") {
			return c.Errorf("variables in %q are not supported", c.Name)
		}
		data, err := readArgFile(c)
		if err != nil {
			return err
		}
		return core.Put(c, get(t), &pemFile{path: c.Args[0], pos: c.Pos(), data: data})
	}
}

// setSSLPasswordFile reads *_ssl_password_file as ssl_password_file is
// read: one passphrase a line, tried in turn on an encrypted
// *_ssl_certificate_key.
func setSSLPasswordFile(c *core.Cmd, t *TLSConf) error {
	lines, err := core.ReadPasswordFile(c.Args[0], c.Directive)
	if err != nil {
		return err
	}
	return core.Put(c, &t.passwords, &passwordFile{lines: lines})
}

// setSSLCiphers reads *_ssl_ciphers, OpenSSL's cipher-list language as
// ssl_ciphers reads it. TLS 1.3 suites, which Go picks itself, and items
// that enable none of Go's suites are noted and left out.
func setSSLCiphers(c *core.Cmd, t *TLSConf) error {
	ids, tls13, missing, err := core.ParseCiphers(c.Args[0])
	if err != nil {
		return c.Errorf("SSL_CTX_set_cipher_list(%q) failed: %v", c.Args[0], err)
	}
	core.NoteIgnoredCiphers(c, tls13, missing)
	return core.Put(c, &t.ciphers, ids)
}

// setSSLCRL notes *_ssl_crl: PEM or DER revocation lists, read as
// ssl_crl's when a location verifies with them, and checked for the
// upstream's chain.
func setSSLCRL(c *core.Cmd, t *TLSConf) error {
	if strings.Contains(c.Args[0], "$") {
		return c.Errorf("variables in %q are not supported", c.Name)
	}
	return core.Put(c, &t.crl, &crlFile{path: c.Args[0], at: c.Directive})
}

// setSSLConfCommand reads "*_ssl_conf_command name value", the client
// side of ssl_conf_command: the commands with a Go equivalent
// (CipherString, Groups or Curves, MinProtocol, MaxProtocol) apply after
// the other directives, the others OpenSSL knows load with a notice.
// Several lines add up; a level with none inherits its parent's.
func setSSLConfCommand(c *core.Cmd, t *TLSConf) error {
	name, value := c.Args[0], c.Args[1]
	applies, err := core.CheckConfCommand(name, value)
	if err != nil {
		return c.Errorf("SSL_CONF_cmd(%q, %q) failed: %v", name, value, err)
	}
	if !applies {
		c.Notice(fmt.Sprintf("ignoring %q %s: Go's TLS stack has no such setting", c.Name, name))
		return nil
	}
	t.commands.V = append(t.commands.V, confCommand{name: name, value: value, pos: c.Pos()})
	t.commands.Set = true
	return nil
}

// setSSLProtocols maps *_ssl_protocols onto a range of versions. Go has
// no SSL and enables every version between its bounds, so SSLv2, SSLv3
// and a list with a gap are refused rather than silently changed. As
// NGINX's bitmask, the lines at one level add up; their union must be a
// range too.
func setSSLProtocols(c *core.Cmd, t *TLSConf) error {
	var on [4]bool // by index in proxyTLSVersions
	if t.protocols.Set {
		for i, v := range proxyTLSVersions {
			on[i] = v.version >= t.protocols.V[0] && v.version <= t.protocols.V[1]
		}
	}
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
	t.protocols.Put([2]uint16{proxyTLSVersions[lo].version, proxyTLSVersions[hi].version})
	return nil
}

// TLSOptions turns the merged *_ssl_* settings t of location l, whose
// directives are named with prefix, into proxy.TLSOptions, with NGINX's
// defaults: no verification, no SNI, depth 1, sessions reused. Like NGINX
// it checks them only for locations that pass to a TLS upstream.
// Verification needs *_ssl_trusted_certificate, as in NGINX: mosaic does
// not fall back on the system's roots.
func TLSOptions(l *core.Location, t *TLSConf, prefix string) (proxy.TLSOptions, error) {
	verify := t.verify.V
	o := proxy.TLSOptions{
		SkipVerify: !verify.on,
		RootCAs:    t.trusted.V,
		// The depth counts intermediate certificates; the chain also
		// holds the upstream's certificate and the root.
		MaxChainLength: t.depth.Or(1) + 2,
		Name:           t.name.V,
		NoSNI:          !t.serverName.V,
		MinVersion:     t.protocols.V[0],
		MaxVersion:     t.protocols.V[1],
		CipherSuites:   t.ciphers.V,
		NoSessionReuse: !t.reuse.Or(true),
	}
	if verify.on && o.RootCAs == nil {
		return o, fmt.Errorf(`no "%s_ssl_trusted_certificate" for "%s_ssl_verify" in %s`, prefix, prefix, verify.pos)
	}
	if verify.on && t.crl.V != nil {
		crls, err := t.crl.V.load()
		if err != nil {
			return o, err
		}
		o.CheckChain = func(chain []*x509.Certificate) error {
			if why := core.CheckCRLs(crls, chain, time.Now()); why != "" {
				return errors.New(why)
			}
			return nil
		}
	}
	if len(t.commands.V) > 0 {
		tc := &tls.Config{MinVersion: o.MinVersion, MaxVersion: o.MaxVersion, CipherSuites: o.CipherSuites}
		for _, cmd := range t.commands.V {
			if err := core.ApplyConfCommand(tc, cmd.name, cmd.value); err != nil {
				return o, fmt.Errorf("SSL_CONF_cmd(%q, %q) in %s failed: %w", cmd.name, cmd.value, cmd.pos, err)
			}
		}
		o.MinVersion, o.MaxVersion = tc.MinVersion, tc.MaxVersion
		o.CipherSuites, o.CurvePreferences = tc.CipherSuites, tc.CurvePreferences
		if o.MinVersion != 0 && o.MaxVersion != 0 && o.MinVersion > o.MaxVersion {
			return o, fmt.Errorf("%q leaves no protocol version: %s is above %s", prefix+"_ssl_conf_command",
				tls.VersionName(o.MinVersion), tls.VersionName(o.MaxVersion))
		}
	}
	cert, key := t.cert.V, t.key.V
	switch {
	case cert == nil && key == nil:
		return o, nil
	case key == nil:
		return o, fmt.Errorf(`no "%s_ssl_certificate_key" is defined for certificate %q in %s`, prefix, cert.path, cert.pos)
	case cert == nil:
		return o, fmt.Errorf(`no "%s_ssl_certificate" is defined for key %q in %s`, prefix, key.path, key.pos)
	}
	mc := core.MainConf[*mainConf](l.Server().Config(), module)
	id := keyPairID{cert: cert, key: key, passwords: t.passwords.V}
	if o.Certificate = mc.keyPairs[id]; o.Certificate == nil {
		keyPEM := key.data
		if id.passwords != nil {
			plain, err := core.DecryptKeyPEM(keyPEM, id.passwords.lines)
			if err != nil {
				return o, fmt.Errorf("cannot load key %q in %s: %w", key.path, key.pos, err)
			}
			keyPEM = plain
		}
		kp, err := tls.X509KeyPair(cert.data, keyPEM)
		if err != nil {
			return o, fmt.Errorf("cannot load certificate %q with key %q in %s: %w", cert.path, key.path, cert.pos, err)
		}
		o.Certificate = &kp
		mc.keyPairs[id] = o.Certificate
	}
	return o, nil
}
