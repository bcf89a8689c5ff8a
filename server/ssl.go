package server

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
)

// The TLS settings of ngx_http_ssl_module beyond the certificates (which
// the core reads, tls.go) and of "http2 on". Each server that holds
// certificates gets its own tls.Config, built when the configuration
// loads, which the listener hands to Go's handshake once SNI has chosen
// the server (tlsConfig).

// sslLoc holds the settings of one level (http or server).
type sslLoc struct {
	// h2Streams and h2Preread: http2_max_concurrent_streams and
	// http2_body_preread_size (h2directives.go).
	h2Streams      Setting[int]
	h2Preread      Setting[int]
	ciphers        Setting[[]uint16]
	preferServer   Setting[bool]
	curves         Setting[[]tls.CurveID]
	sessionCache   Setting[sessionCacheConf]
	sessionTimeout Setting[time.Duration]
	sessionTickets Setting[bool]
	ticketKeys     Setting[sslFiles]
	bufferSize     Setting[int64]
	verify         Setting[verifyMode]
	verifyDepth    Setting[int]
	clientCA       Setting[sslPath]
	trusted        Setting[sslPath]
	crl            Setting[sslPath]
	passwords      Setting[sslPath]
	ocsp           Setting[ocspMode]
	ocspResponder  Setting[string]
	ocspCache      Setting[ocspCacheConf]
	confCommands   Setting[[]confCommand]
	stapling       Setting[bool]
	staplingVerify Setting[bool]
	staplingFile   Setting[sslPath]
	staplingURL    Setting[string]
	http2          Setting[bool]
	reject         Setting[bool]
	earlyData      Setting[bool]
}

// sslPath is a file named by a directive, kept with it for errors.
type sslPath struct {
	path string
	at   *conf.Directive
}

// verifyMode is ssl_verify_client.
type verifyMode int

const (
	verifyOff verifyMode = iota
	verifyOn
	verifyOptional
	verifyOptionalNoCA
)

var sslModule = &Module{
	Name:   "ssl",
	NewLoc: func() any { return &sslLoc{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*sslLoc), c.(*sslLoc)
		child.ciphers.Merge(parent.ciphers)
		child.preferServer.Merge(parent.preferServer)
		child.curves.Merge(parent.curves)
		child.sessionCache.Merge(parent.sessionCache)
		child.sessionTimeout.Merge(parent.sessionTimeout)
		if !child.sessionTimeout.Set {
			child.sessionTimeout.V = 5 * time.Minute
		}
		child.sessionTickets.Merge(parent.sessionTickets)
		if !child.sessionTickets.Set {
			child.sessionTickets.V = true
		}
		child.ticketKeys.Merge(parent.ticketKeys)
		child.bufferSize.Merge(parent.bufferSize)
		child.verify.Merge(parent.verify)
		child.verifyDepth.Merge(parent.verifyDepth)
		if !child.verifyDepth.Set {
			child.verifyDepth.V = 1
		}
		child.clientCA.Merge(parent.clientCA)
		child.trusted.Merge(parent.trusted)
		child.crl.Merge(parent.crl)
		child.passwords.Merge(parent.passwords)
		child.ocsp.Merge(parent.ocsp)
		child.ocspResponder.Merge(parent.ocspResponder)
		child.ocspCache.Merge(parent.ocspCache)
		child.confCommands.Merge(parent.confCommands)
		child.stapling.Merge(parent.stapling)
		child.staplingVerify.Merge(parent.staplingVerify)
		child.staplingFile.Merge(parent.staplingFile)
		child.staplingURL.Merge(parent.staplingURL)
		child.http2.Merge(parent.http2)
		child.reject.Merge(parent.reject)
		child.earlyData.Merge(parent.earlyData)
		return nil
	},
}

func init() {
	const ctx = CtxHTTP | CtxServer
	flag := func(get func(*sslLoc) *Setting[bool]) func(*Cmd) error { return SetFlag(get) }
	path := func(get func(*sslLoc) *Setting[sslPath]) func(*Cmd) error {
		return func(c *Cmd) error {
			return Put(c, get(c.Loc().(*sslLoc)), sslPath{path: c.Args[0], at: c.Directive})
		}
	}
	sslModule.Directives = []Directive{
		{Name: "ssl_ciphers", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setCiphers},
		{Name: "ssl_prefer_server_ciphers", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setPreferServer},
		{Name: "ssl_ecdh_curve", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setECDHCurve},
		{Name: "ssl_session_cache", Context: ctx, MinArgs: 1, MaxArgs: 2, Set: setSessionCache},
		{Name: "ssl_session_timeout", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setSessionTimeout},
		{Name: "ssl_session_tickets", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: flag(func(sl *sslLoc) *Setting[bool] { return &sl.sessionTickets })},
		{Name: "ssl_session_ticket_key", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setTicketKey},
		{Name: "ssl_buffer_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setBufferSize},
		{Name: "ssl_verify_client", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setVerifyClient},
		{Name: "ssl_verify_depth", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Int(c.Args[0], 0, 100)
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*sslLoc).verifyDepth, n)
		}},
		{Name: "ssl_client_certificate", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: path(func(sl *sslLoc) *Setting[sslPath] { return &sl.clientCA })},
		{Name: "ssl_trusted_certificate", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: path(func(sl *sslLoc) *Setting[sslPath] { return &sl.trusted })},
		{Name: "ssl_crl", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: path(func(sl *sslLoc) *Setting[sslPath] { return &sl.crl })},
		{Name: "ssl_password_file", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: path(func(sl *sslLoc) *Setting[sslPath] { return &sl.passwords })},
		{Name: "ssl_stapling", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: flag(func(sl *sslLoc) *Setting[bool] { return &sl.stapling })},
		{Name: "ssl_stapling_verify", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: flag(func(sl *sslLoc) *Setting[bool] { return &sl.staplingVerify })},
		{Name: "ssl_stapling_file", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: path(func(sl *sslLoc) *Setting[sslPath] { return &sl.staplingFile })},
		{Name: "ssl_stapling_responder", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setResponder(func(sl *sslLoc) *Setting[string] { return &sl.staplingURL })},
		{Name: "ssl_ocsp", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setOCSP},
		{Name: "ssl_ocsp_responder", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setResponder(func(sl *sslLoc) *Setting[string] { return &sl.ocspResponder })},
		{Name: "ssl_ocsp_cache", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: setOCSPCache},
		{Name: "ssl_conf_command", Context: ctx, MinArgs: 2, MaxArgs: 2, Set: setConfCommand},
		{Name: "http2", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: flag(func(sl *sslLoc) *Setting[bool] { return &sl.http2 })},
		{Name: "http2_idle_timeout", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: obsoleteHTTP2("keepalive_timeout")},
		{Name: "http2_max_field_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: obsoleteHTTP2("large_client_header_buffers")},
		{Name: "http2_max_header_size", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: obsoleteHTTP2("large_client_header_buffers")},
		{Name: "http2_max_requests", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: obsoleteHTTP2("keepalive_requests")},
		{Name: "http2_recv_timeout", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: obsoleteHTTP2("client_header_timeout")},
		{Name: "ssl_reject_handshake", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: flag(func(sl *sslLoc) *Setting[bool] { return &sl.reject })},
		{Name: "ssl_early_data", Context: ctx, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			sl := c.Loc().(*sslLoc)
			if err := PutFlag(c, &sl.earlyData); err != nil {
				return err
			}
			if sl.earlyData.V {
				c.Notice("ignoring \"ssl_early_data\" on: Go's server takes no TLS 1.3 early data")
			}
			return nil
		}},
	}
	sslModule.Directives = append(sslModule.Directives, h2Directives(ctx)...)
	Register(sslModule)
}

// obsoleteHTTP2 is the setter of an HTTP/2 directive that NGINX 1.19.7
// replaced with a general one (named by use): NGINX 1.22 still loads it,
// with a warning, and ignores its value, so that old files keep working.
func obsoleteHTTP2(use string) func(*Cmd) error {
	return func(c *Cmd) error {
		c.Notice(fmt.Sprintf("the %q directive is obsolete, use the %q directive instead", c.Name, use))
		return nil
	}
}

// setResponder reads an OCSP responder's URL: NGINX asks over plain HTTP
// only.
func setResponder(get func(*sslLoc) *Setting[string]) func(*Cmd) error {
	return func(c *Cmd) error {
		u := c.Args[0]
		if !strings.HasPrefix(u, "http://") {
			return c.Errorf("invalid URL prefix in OCSP responder %q in %q", u, c.Name)
		}
		return Put(c, get(c.Loc().(*sslLoc)), u)
	}
}

func setCiphers(c *Cmd) error {
	ids, tls13, missing, err := ParseCiphers(c.Args[0])
	if err != nil {
		return c.Errorf("SSL_CTX_set_cipher_list(%q) failed: %v", c.Args[0], err)
	}
	NoteIgnoredCiphers(c, tls13, missing)
	return Put(c, &c.Loc().(*sslLoc).ciphers, ids)
}

// setPreferServer reads ssl_prefer_server_ciphers. Go's server always
// picks the suite by its own ranking (on), so off cannot be honoured.
func setPreferServer(c *Cmd) error {
	sl := c.Loc().(*sslLoc)
	if err := PutFlag(c, &sl.preferServer); err != nil {
		return err
	}
	if !sl.preferServer.V {
		c.Notice("ignoring \"ssl_prefer_server_ciphers off\": Go's server always chooses the cipher suite by its own preference")
	}
	return nil
}

func setECDHCurve(c *Cmd) error {
	sl := c.Loc().(*sslLoc)
	if c.Args[0] == "auto" {
		return Put(c, &sl.curves, nil)
	}
	ids, missing, err := parseCurves(c.Args[0])
	if err != nil {
		return c.Errorf("%v", err)
	}
	if len(missing) > 0 {
		c.Notice(fmt.Sprintf("ignoring %s in \"ssl_ecdh_curve\": not implemented by Go", strings.Join(missing, ", ")))
	}
	return Put(c, &sl.curves, ids)
}

// setTicketKey reads ssl_session_ticket_key: several lines add up, the
// first one's key encrypts, as in NGINX.
func setTicketKey(c *Cmd) error {
	s := &c.Loc().(*sslLoc).ticketKeys
	s.V.files = append(s.V.files, c.Args[0])
	s.V.dirs = append(s.V.dirs, c.Directive)
	s.Set = true
	return nil
}

func setBufferSize(c *Cmd) error {
	n, err := c.Size(c.Args[0])
	if err != nil {
		return err
	}
	c.Notice("ignoring \"ssl_buffer_size\": Go's TLS stack sizes its records itself (small ones at the start of a connection, 16k after)")
	return Put(c, &c.Loc().(*sslLoc).bufferSize, n)
}

func setVerifyClient(c *Cmd) error {
	modes := map[string]verifyMode{"off": verifyOff, "on": verifyOn, "optional": verifyOptional, "optional_no_ca": verifyOptionalNoCA}
	m, ok := modes[strings.ToLower(c.Args[0])] // NGINX's enum values ignore case
	if !ok {
		return c.Errorf("invalid value %q in %q directive, it must be \"on\", \"off\", \"optional\" or \"optional_no_ca\"", c.Args[0], c.Name)
	}
	return Put(c, &c.Loc().(*sslLoc).verify, m)
}

// defaultCiphers are the suites of NGINX's default ssl_ciphers,
// "HIGH:!aNULL:!MD5": every suite Go has but 3DES, the RSA key exchange
// and the CBC ones included, which Go's own defaults leave out.
var defaultCiphers, _, _, _ = ParseCiphers("HIGH:!aNULL:!MD5")

// serverTLS is what a server with certificates answers handshakes with:
// one tls.Config that offers HTTP/2 by ALPN and one that does not.
type serverTLS struct {
	h1, h2 *tls.Config
	// sessions, when sessions resume, are the hooks each connection's
	// copy of h1 or h2 takes.
	sessions *sessionHooks
	certs    []*certStaple
	sl       *sslLoc
	// clientPool verifies client certificates: ssl_client_certificate and
	// ssl_trusted_certificate together.
	clientPool *x509.CertPool
	// crls are ssl_crl's revocation lists, checked for every certificate
	// of a client's chain when set.
	crls []*x509.RevocationList
	// ocspCache is ssl_ocsp_cache's zone, nil without one.
	ocspCache *ocspCache
	logf      func(string)
	// dynamic, in place of certs, reads the certificates at each
	// handshake (names with variables).
	dynamic *dynamicCerts
}

// readPEMCerts reads every certificate of a PEM file.
func readPEMCerts(p sslPath) ([]*x509.Certificate, error) {
	b, err := os.ReadFile(p.path)
	if err != nil {
		return nil, conf.Errorf(p.at, "cannot load certificate %q: %v", p.path, err)
	}
	var out []*x509.Certificate
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, conf.Errorf(p.at, "cannot load certificate %q: %v", p.path, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, conf.Errorf(p.at, "cannot load certificate %q: no certificate in it", p.path)
	}
	return out, nil
}

// buildTLS makes the server's TLS configurations once its certificates
// are loaded (a server without any has none: the default server of its
// address answers its handshakes).
func (s *VServer) buildTLS(b *tlsBuild) error {
	if s.certs == nil && s.dynamic == nil {
		return nil
	}
	sl := LocConf[*sslLoc](s.level, sslModule)
	st := &serverTLS{sl: sl, logf: b.logWarn, dynamic: s.dynamic}
	base := &tls.Config{MinVersion: tls.VersionTLS12}
	if p := LocConf[*coreLoc](s.level, coreModule).sslProtocols; p.Set {
		base.MinVersion, base.MaxVersion = p.V[0], p.V[1]
	}
	// NGINX's default list unless ssl_ciphers says otherwise.
	base.CipherSuites = defaultCiphers
	if sl.ciphers.Set {
		base.CipherSuites = sl.ciphers.V
	}
	if sl.curves.Set {
		base.CurvePreferences = sl.curves.V
	}
	for _, cmd := range sl.confCommands.V {
		if err := applyConfCommand(base, cmd); err != nil {
			return conf.Errorf(cmd.at, "SSL_CONF_cmd(%q, %q) failed: %v", cmd.name, cmd.value, err)
		}
	}
	var err error
	owner := certsOwner(s.certs)
	if s.dynamic != nil {
		// Sessions belong to the names, which the certificates follow.
		owner = fmt.Sprintf("%x", sha256.Sum256([]byte(strings.Join(s.dynamic.certs.files, "\x00"))))[:16]
	}
	if st.sessions, err = setupSessions(base, sl, owner); err != nil {
		return err
	}
	var trusted []*x509.Certificate
	if sl.trusted.Set {
		var err error
		if trusted, err = b.readCerts(sl.trusted.V); err != nil {
			return err
		}
	}
	if err := st.setupClientAuth(base, b, trusted); err != nil {
		return err
	}
	if err := st.setupStapling(s, b, trusted); err != nil {
		return err
	}
	base.GetCertificate = st.certificate
	st.h1 = base
	st.h1.NextProtos = []string{"http/1.1"}
	st.h2 = base.Clone()
	st.h2.NextProtos = []string{"h2", "http/1.1"}
	s.tls = st
	return nil
}

// certificate is GetCertificate: the first certificate that the client
// supports (an ECDSA one before an RSA one when listed first), else the
// first, as Go chooses among Config.Certificates, with its current OCSP
// response.
func (st *serverTLS) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if st.dynamic != nil {
		pairs, err := st.dynamic.pairs(hello)
		if err != nil {
			return nil, err
		}
		for i := range pairs {
			if hello.SupportsCertificate(&pairs[i]) == nil {
				return &pairs[i], nil
			}
		}
		return &pairs[0], nil
	}
	pick := st.certs[0]
	if len(st.certs) > 1 {
		for _, c := range st.certs {
			if hello.SupportsCertificate(c.cert) == nil {
				pick = c
				break
			}
		}
	}
	return pick.current(hello), nil
}

// forConn returns the configuration of a connection, which offers HTTP/2
// or not: a copy of its own where sessions resume (sessionHooks).
func (st *serverTLS) forConn(h2 bool) *tls.Config {
	tc := st.h1
	if h2 {
		tc = st.h2
	}
	if st.sessions == nil {
		return tc
	}
	tc = tc.Clone()
	st.sessions.install(tc)
	return tc
}

// tlsBuild is what the servers of one configuration share while their
// TLS settings are made: certificate files read once, OCSP staplers one
// per certificate and responder.
type tlsBuild struct {
	cfg      *Config
	loaded   map[string]*tls.Certificate
	files    map[string][]*x509.Certificate
	staplers map[string]*stapler
	stop     context.Context
}

func newTLSBuild(cfg *Config) *tlsBuild {
	return &tlsBuild{cfg: cfg, loaded: map[string]*tls.Certificate{}, files: map[string][]*x509.Certificate{}, staplers: map[string]*stapler{}}
}

func (b *tlsBuild) readCerts(p sslPath) ([]*x509.Certificate, error) {
	if c, ok := b.files[p.path]; ok {
		return c, nil
	}
	c, err := readPEMCerts(p)
	if err != nil {
		return nil, err
	}
	b.files[p.path] = c
	return c, nil
}

func (b *tlsBuild) notice(msg string) { b.cfg.notices = append(b.cfg.notices, msg) }

// ctx is cancelled when the configuration retires: its staplers' fetches
// stop.
func (b *tlsBuild) ctx() context.Context {
	if b.stop == nil {
		var cancel context.CancelFunc
		b.stop, cancel = context.WithCancel(context.Background())
		b.cfg.OnClose(func() error { cancel(); return nil })
	}
	return b.stop
}

// logWarn writes to the configuration's error log at warn, as NGINX logs
// a failed OCSP query.
func (b *tlsBuild) logWarn(msg string) {
	if l := b.cfg.Logger; l != nil {
		l.Warn(msg)
	}
}

// fmtErrorAt is an error at the directive that named p.
func fmtErrorAt(p sslPath, format string, args ...any) error {
	return conf.Errorf(p.at, format, args...)
}

// setSessionTimeout reads ssl_session_timeout, in seconds mode as NGINX's
// ngx_conf_set_sec_slot: 0 is a session that expires at once, so that no
// handshake resumes one.
func setSessionTimeout(c *Cmd) error {
	d, err := c.Seconds(c.Args[0])
	if err != nil {
		return err
	}
	return Put(c, &c.Loc().(*sslLoc).sessionTimeout, d)
}
