package server

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/reason"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// Client certificates, as NGINX checks them: the handshake asks for a
// certificate (naming the CAs of ssl_client_certificate) but never fails
// for want of one or because it does not verify. The verdict, against
// ssl_client_certificate and ssl_trusted_certificate within
// ssl_verify_depth, then ssl_crl and ssl_ocsp (sslocsp.go), is reached
// once per connection and is $ssl_client_verify; a request to a server with "ssl_verify_client on"
// (or optional) whose client sent no certificate, or one that did not
// verify, is answered 400 "No required SSL certificate was sent" (496) or
// 400 "The SSL certificate error" (495), which error_page may catch.

// setupClientAuth asks for client certificates when ssl_verify_client is
// set.
func (st *serverTLS) setupClientAuth(tc *tls.Config, b *tlsBuild, trusted []*x509.Certificate) error {
	sl := st.sl
	if sl.verify.V == verifyOff {
		return nil
	}
	if !sl.clientCA.Set && sl.verify.V != verifyOptionalNoCA {
		return errors.New("no ssl_client_certificate for ssl_verify_client")
	}
	st.clientPool = x509.NewCertPool()
	if sl.clientCA.Set {
		cas, err := b.readCerts(sl.clientCA.V)
		if err != nil {
			return err
		}
		names := x509.NewCertPool()
		for _, c := range cas {
			names.AddCert(c)
			st.clientPool.AddCert(c)
		}
		// Go names ClientCAs in its certificate request; it verifies
		// nothing itself with RequestClientCert.
		tc.ClientCAs = names
	}
	for _, c := range trusted {
		st.clientPool.AddCert(c)
	}
	if sl.ocsp.V != ocspOff {
		if sl.verify.V == verifyOptionalNoCA {
			return errors.New("\"ssl_ocsp\" is incompatible with \"ssl_verify_client optional_no_ca\"")
		}
		if oc := sl.ocspCache.V; oc.name != "" {
			st.ocspCache = sharedOCSPCache(oc)
		}
	}
	if sl.crl.Set {
		crls, err := readCRLs(sl.crl.V)
		if err != nil {
			return err
		}
		st.crls = crls
	}
	tc.ClientAuth = tls.RequestClientCert
	return nil
}

// ReadCRLs reads the revocation lists of a CRL file for the directive at
// (the proxy's *_ssl_crl), as ssl_crl's.
func ReadCRLs(path string, at *conf.Directive) ([]*x509.RevocationList, error) {
	return readCRLs(sslPath{path: path, at: at})
}

// readCRLs reads the PEM (or DER) revocation lists of an ssl_crl file.
func readCRLs(p sslPath) ([]*x509.RevocationList, error) {
	b, err := os.ReadFile(p.path)
	if err != nil {
		return nil, conf.Errorf(p.at, "X509_LOOKUP_load_file(%q) failed: %v", p.path, err)
	}
	var ders [][]byte
	for rest := b; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			break
		}
		if blk.Type == "X509 CRL" {
			ders = append(ders, blk.Bytes)
		}
	}
	if len(ders) == 0 {
		ders = [][]byte{b}
	}
	var out []*x509.RevocationList
	for _, der := range ders {
		l, err := x509.ParseRevocationList(der)
		if err != nil {
			return nil, conf.Errorf(p.at, "X509_LOOKUP_load_file(%q) failed: %v", p.path, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// revocation checks a verified chain against ssl_crl.
func (st *serverTLS) revocation(chain []*x509.Certificate, now time.Time) string {
	return CheckCRLs(st.crls, chain, now)
}

// CheckCRLs checks a verified chain against crls, as OpenSSL does with
// CRL checks on the whole chain: every certificate but the trusted one
// needs a current list from its issuer that does not name it. It returns
// OpenSSL's reason for a failure, "" when the chain passes. ssl_crl
// checks clients' chains with it, the proxy's *_ssl_crl upstreams'.
func CheckCRLs(crls []*x509.RevocationList, chain []*x509.Certificate, now time.Time) string {
	for i := 0; i+1 < len(chain); i++ {
		c, issuer := chain[i], chain[i+1]
		var list *x509.RevocationList
		for _, l := range crls {
			if bytes.Equal(l.RawIssuer, c.RawIssuer) && l.CheckSignatureFrom(issuer) == nil {
				list = l
				break
			}
		}
		if list == nil {
			return "unable to get certificate CRL"
		}
		for _, e := range list.RevokedCertificateEntries {
			if e.SerialNumber.Cmp(c.SerialNumber) == 0 {
				return "certificate revoked"
			}
		}
		if !list.NextUpdate.IsZero() && now.After(list.NextUpdate) {
			return "CRL has expired"
		}
		if now.Before(list.ThisUpdate) {
			return "CRL is not yet valid"
		}
	}
	return ""
}

// clientVerdict is a connection's verification result: the text of
// $ssl_client_verify, and whether optional_no_ca forgives its error.
type clientVerdict struct {
	text     string
	optional bool // an error optional_no_ca lets through
}

// verifyClient verifies the peer chain of cs with st's settings.
func (st *serverTLS) verifyClient(cs *tls.ConnectionState) clientVerdict {
	if len(cs.PeerCertificates) == 0 {
		return clientVerdict{text: "NONE"}
	}
	leaf := cs.PeerCertificates[0]
	// OpenSSL goes on after an error (NGINX's callback lets it) and
	// reports the last one it met: the validity period, checked last,
	// before the purpose, before the chain.
	now := time.Now()
	switch {
	case now.After(leaf.NotAfter):
		return clientVerdict{text: "FAILED:certificate has expired"}
	case now.Before(leaf.NotBefore):
		return clientVerdict{text: "FAILED:certificate is not yet valid"}
	case !clientPurpose(leaf):
		return clientVerdict{text: "FAILED:unsuitable certificate purpose"}
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	chains, err := leaf.Verify(x509.VerifyOptions{
		Roots:         st.clientPool,
		Intermediates: inter,
		KeyUsages:     []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	if err == nil {
		// ssl_verify_depth counts the CAs between the client's certificate
		// and the trusted one, as OpenSSL's verify depth.
		for _, ch := range chains {
			if len(ch)-2 <= st.sl.verifyDepth.V {
				if st.crls != nil {
					if why := st.revocation(ch, now); why != "" {
						return clientVerdict{text: "FAILED:" + why}
					}
				}
				if st.sl.ocsp.V != ocspOff {
					if why := st.checkOCSP(ch, now); why != "" {
						return clientVerdict{text: "FAILED:" + why}
					}
				}
				return clientVerdict{text: "SUCCESS"}
			}
		}
		return clientVerdict{text: "FAILED:certificate chain too long"}
	}
	var ua x509.UnknownAuthorityError
	var ci x509.CertificateInvalidError
	switch {
	case errors.As(err, &ua):
		if bytes.Equal(leaf.RawSubject, leaf.RawIssuer) && len(cs.PeerCertificates) == 1 {
			return clientVerdict{text: "FAILED:self-signed certificate", optional: true}
		}
		if len(cs.PeerCertificates) > 1 {
			return clientVerdict{text: "FAILED:unable to get local issuer certificate", optional: true}
		}
		return clientVerdict{text: "FAILED:unable to verify the first certificate", optional: true}
	case errors.As(err, &ci) && ci.Reason == x509.Expired:
		return clientVerdict{text: "FAILED:certificate has expired"} // a CA's
	case errors.As(err, &ci) && ci.Reason == x509.IncompatibleUsage:
		return clientVerdict{text: "FAILED:unsuitable certificate purpose"}
	case errors.As(err, &ci) && ci.Reason == x509.TooManyIntermediates:
		return clientVerdict{text: "FAILED:certificate chain too long"}
	}
	return clientVerdict{text: "FAILED:" + err.Error()}
}

// verdictCache holds a connection's verdict: the chain is verified by
// the first request that needs it.
type verdictCache struct {
	once    sync.Once
	verdict clientVerdict
}

// verdicts maps a connection's TLS state (one pointer for every request
// of a connection, on HTTP/1.x and HTTP/2 alike) to its verdict; an entry
// goes when the state is collected.
var verdicts sync.Map // weak.Pointer[tls.ConnectionState] -> *verdictCache

func verdictOf(cs *tls.ConnectionState) *verdictCache {
	key := weak.Make(cs)
	if v, ok := verdicts.Load(key); ok {
		return v.(*verdictCache)
	}
	v, loaded := verdicts.LoadOrStore(key, &verdictCache{})
	if !loaded {
		runtime.AddCleanup(cs, func(k weak.Pointer[tls.ConnectionState]) { verdicts.Delete(k) }, key)
	}
	return v.(*verdictCache)
}

// checkClientCert applies ssl_verify_client to a request: it records
// $ssl_client_verify in the request's state and returns the NGINX code
// to answer with (495, 496, 421), or 0.
func checkClientCert(r *http.Request, g *addrGroup, srv *VServer, ri *reqInfo) int {
	if r.TLS == nil {
		return 0
	}
	// The handshake's server: the one SNI chose, or the default server.
	hs := g.def
	if name, ok := reqrule.Host(r.TLS.ServerName); ok && r.TLS.ServerName != "" {
		hs = g.find(name)
		// NGINX refuses a request for another name than the one the
		// handshake was made for when the name's server checks
		// certificates: the certificate was checked by the handshake
		// server's rules. It knows the handshake's name only when the
		// address has several servers and one of them has that name.
		named := len(g.servers) > 1 && (hs != g.def || g.def.answersTo(name))
		if named && ri.st.Host != name && sslOf(srv).verify.V != verifyOff {
			return http.StatusMisdirectedRequest
		}
	}
	if hs.tls == nil {
		hs = g.def
	}
	st := hs.tls
	if st == nil || st.clientPool == nil {
		return verdictFor(srv, clientVerdict{text: "NONE"}, ri)
	}
	vc := verdictOf(r.TLS)
	vc.once.Do(func() { vc.verdict = st.verifyClient(r.TLS) })
	return verdictFor(srv, vc.verdict, ri)
}

// clientPurpose reports whether a certificate may serve as a client's,
// as OpenSSL's "sslclient" purpose has it: no extended key usage, or one
// that allows client authentication.
func clientPurpose(c *x509.Certificate) bool {
	if len(c.ExtKeyUsage) == 0 && len(c.UnknownExtKeyUsage) == 0 {
		return true
	}
	for _, u := range c.ExtKeyUsage {
		if u == x509.ExtKeyUsageClientAuth || u == x509.ExtKeyUsageAny {
			return true
		}
	}
	return false
}

func verdictFor(srv *VServer, v clientVerdict, ri *reqInfo) int {
	ri.st.MakeRare().ClientVerify = v.text
	switch mode := sslOf(srv).verify.V; {
	case mode == verifyOff:
		return 0
	case v.text == "NONE":
		if mode == verifyOn {
			return 496
		}
	case v.text != "SUCCESS":
		if mode != verifyOptionalNoCA || !v.optional {
			return 495
		}
	}
	return 0
}

func sslOf(s *VServer) *sslLoc { return LocConf[*sslLoc](s.level, sslModule) }

// statusToHTTPS is NGINX's code for a plain HTTP request on a TLS port.
const statusToHTTPS = 497

// serveCertError answers a request that ssl_verify_client refuses, a
// plain HTTP request on a TLS port, 421 or a header too large; an
// HTTP/1.x connection closes, as NGINX's does. On HTTP/2 NGINX ends the
// stream only (its keepalive flag means nothing there), and
// "Connection: close" would be a GOAWAY refusing the next streams.
func serveCertError(w http.ResponseWriter, r *http.Request, srv *VServer, code int) {
	if r.ProtoMajor == 1 {
		w.Header()["Connection"] = []string{"close"}
	}
	if code == http.StatusMisdirectedRequest {
		Error(w, r, code)
		return
	}
	serveSpecial(w, r, LocConf[*coreLoc](srv.level, coreModule), code)
}

// serveSpecial answers one of the codes NGINX answers as 400 with an
// explanation (reason.Explanation: 494 to 497), which error_page catches
// by their own code, never as 400: cl's error_page for
// the code when there is one (the page goes with 400 unless it says
// otherwise, as NGINX turns these codes into 400 on the way out), else
// 400 with NGINX's explanation.
func serveSpecial(w http.ResponseWriter, r *http.Request, cl *coreLoc, code int) {
	markUncaught(w)
	if ep, ok := cl.errorPages[code]; ok {
		serveErrorPage(w, r, http.StatusBadRequest, ep, cl.recursivePages.V)
		return
	}
	page, _ := reason.Page(code)
	body := padded(r, cl, http.StatusBadRequest, page)
	h := w.Header()
	h["Content-Type"] = []string{"text/html"}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusBadRequest)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(body))
	}
}

// answersTo reports whether one of the server's own names matches name,
// by the rules of server_name.
func (s *VServer) answersTo(name string) bool {
	for _, n := range s.names {
		switch {
		case n.re != nil:
			if ok, _ := n.re.exec(name, nil); ok {
				return true
			}
		case strings.HasPrefix(n.raw, "*."):
			if strings.HasSuffix(name, n.raw[1:]) && len(name) > len(n.raw)-1 {
				return true
			}
		case strings.HasPrefix(n.raw, "."):
			if name == n.raw[1:] || strings.HasSuffix(name, n.raw) {
				return true
			}
		case strings.HasSuffix(n.raw, ".*"):
			if strings.HasPrefix(name, n.raw[:len(n.raw)-1]) && len(name) > len(n.raw)-1 {
				return true
			}
		case name == n.raw:
			return true
		}
	}
	return false
}
