package server

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	neturl "net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// OCSP stapling (ssl_stapling): the handshake sends, with the server's
// certificate, a response of the certificate's OCSP responder saying the
// certificate is good. As NGINX does, the response is fetched when a
// handshake finds none or finds it due for refresh, in the background:
// the handshake never waits for it and goes without a staple until one
// arrives. A good response is kept until its nextUpdate (until replaced
// when it has none) and refreshed five minutes before, at the latest
// after an hour; a failed fetch is retried five minutes later. ssl_stapling_file
// staples a response read from a file instead, as it is, forever;
// ssl_stapling_responder replaces the certificate's responder URL;
// ssl_stapling_verify checks the response's signature against the
// issuer (found after the certificate in its file, or among
// ssl_trusted_certificate).
//
// The OCSP messages are encoded and decoded here with encoding/asn1
// (RFC 6960's request, and the basic response), the little that stapling
// needs.

// certStaple is one certificate of a server with its stapler, if any.
type certStaple struct {
	cert *tls.Certificate
	st   *stapler
}

// current returns the certificate, with the staple in force when the
// client asked for one (only such a handshake starts a fetch, as only
// such a handshake calls NGINX's status callback).
func (c *certStaple) current(hello *tls.ClientHelloInfo) *tls.Certificate {
	if c.st == nil || !slices.Contains(hello.Extensions, extStatusRequest) {
		return c.cert
	}
	staple := c.st.get()
	if staple == nil {
		return c.cert
	}
	out := *c.cert
	out.OCSPStaple = staple
	return &out
}

// extStatusRequest is the TLS extension by which a client asks for a
// stapled OCSP response.
const extStatusRequest = 5

// stapler keeps the OCSP response of one certificate.
type stapler struct {
	leaf, issuer *x509.Certificate
	url          string
	verify       bool
	fixed        bool // ssl_stapling_file: never fetched
	ctx          context.Context
	logf         func(string)
	// clock, when set, replaces time.Now (tests move it on).
	clock func() time.Time

	mu       sync.Mutex
	resp     []byte
	valid    time.Time // serve resp until then
	refresh  time.Time // fetch again from then
	fetching atomic.Bool
}

func (s *stapler) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// get returns the staple to send, starting a fetch when one is due.
func (s *stapler) get() []byte {
	now := s.now()
	s.mu.Lock()
	resp, valid, due := s.resp, s.valid, !s.fixed && !now.Before(s.refresh)
	s.mu.Unlock()
	if due && s.fetching.CompareAndSwap(false, true) {
		go s.fetch()
	}
	if resp == nil || (!s.fixed && now.After(valid)) {
		return nil
	}
	return resp
}

// ocspTimeout bounds one query, as NGINX's resolver and OCSP timeouts do.
var ocspTimeout = 30 * time.Second

func (s *stapler) fetch() {
	defer s.fetching.Store(false)
	resp, next, err := s.query()
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.ctx.Err() == nil {
			s.logf(fmt.Sprintf("OCSP response for certificate %q from %s: %v", s.leaf.Subject.CommonName, s.url, err))
		}
		s.refresh = now.Add(5 * time.Minute)
		return
	}
	valid := next
	if valid.IsZero() {
		valid = now.AddDate(100, 0, 0) // good until replaced, as NGINX keeps it
	}
	s.resp, s.valid = resp, valid
	s.refresh = refreshAt(now, valid)
}

// refreshAt is when a response fetched at now and good until valid is
// fetched again, by NGINX's rule: five minutes before it expires, at the
// latest in an hour, at the soonest in five minutes.
func refreshAt(now, valid time.Time) time.Time {
	refresh := valid.Add(-5 * time.Minute)
	if hour := now.Add(time.Hour); refresh.After(hour) {
		refresh = hour
	}
	if soon := now.Add(5 * time.Minute); refresh.Before(soon) {
		refresh = soon
	}
	return refresh
}

func (s *stapler) query() ([]byte, time.Time, error) {
	body, r, err := queryOCSP(s.ctx, s.url, s.leaf, s.issuer)
	if err != nil {
		return nil, time.Time{}, err
	}
	if err := r.check(s.leaf, s.issuer, s.verify, s.now()); err != nil {
		return nil, time.Time{}, err
	}
	return body, r.nextUpdate, nil
}

// queryOCSP asks the responder at url about leaf. As NGINX it uses GET,
// the request in base64 in the path (RFC 6960, appendix A.1).
func queryOCSP(parent context.Context, url string, leaf, issuer *x509.Certificate) ([]byte, *ocspResponse, error) {
	req, err := ocspRequest(leaf, issuer)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(parent, ocspTimeout)
	defer cancel()
	// "+", "/" and "=" escaped, as NGINX escapes a URI component.
	u := strings.TrimSuffix(url, "/") + "/" + neturl.QueryEscape(base64.StdEncoding.EncodeToString(req))
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	res, err := http.DefaultClient.Do(hr)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, nil, fmt.Errorf("OCSP responder sent %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, nil, err
	}
	r, err := parseOCSPResponse(body)
	if err != nil {
		return nil, nil, err
	}
	return body, r, nil
}

// setupStapling makes the staplers of a server's certificates.
func (st *serverTLS) setupStapling(s *VServer, b *tlsBuild, trusted []*x509.Certificate) error {
	sl := st.sl
	files := LocConf[*coreLoc](s.level, coreModule).sslCerts.V.files
	if s.dynamic != nil && sl.stapling.V {
		// As NGINX: no stapling for certificates read per handshake.
		st.logf(fmt.Sprintf("\"ssl_stapling\" is not supported for certificates with variables in %s:%d", s.file, s.line))
	}
	for i := range s.certs {
		c := &s.certs[i]
		cs := &certStaple{cert: c}
		st.certs = append(st.certs, cs)
		if !sl.stapling.V {
			continue
		}
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			return err
		}
		if sl.staplingFile.Set {
			f := sl.staplingFile.V
			resp, err := os.ReadFile(f.path)
			if err != nil {
				return fmtErrorAt(f, "open() %q failed: %v", f.path, err)
			}
			cs.st = &stapler{leaf: leaf, fixed: true, resp: resp}
			continue
		}
		issuer := findIssuer(leaf, c.Certificate[1:], trusted)
		if issuer == nil {
			b.notice(fmt.Sprintf("\"ssl_stapling\" ignored, issuer certificate not found for certificate %q", files[i]))
			continue
		}
		url := sl.staplingURL.V
		if url == "" && len(leaf.OCSPServer) > 0 {
			url = leaf.OCSPServer[0]
		}
		if url == "" {
			b.notice(fmt.Sprintf("\"ssl_stapling\" ignored, no OCSP responder URL in the certificate %q", files[i]))
			continue
		}
		if !strings.HasPrefix(url, "http://") {
			b.notice(fmt.Sprintf("\"ssl_stapling\" ignored, invalid URL prefix in OCSP responder %q", url))
			continue
		}
		key := fmt.Sprintf("%x\x00%s\x00%v", sha1.Sum(c.Certificate[0]), url, sl.staplingVerify.V)
		if sp := b.staplers[key]; sp != nil {
			cs.st = sp
			continue
		}
		sp := &stapler{leaf: leaf, issuer: issuer, url: url, verify: sl.staplingVerify.V, ctx: b.ctx(), logf: b.logWarn}
		b.staplers[key] = sp
		cs.st = sp
	}
	return nil
}

// findIssuer looks for the certificate that signed leaf among the rest of
// its chain, then among the trusted ones.
func findIssuer(leaf *x509.Certificate, chain [][]byte, trusted []*x509.Certificate) *x509.Certificate {
	var cands []*x509.Certificate
	for _, der := range chain {
		if c, err := x509.ParseCertificate(der); err == nil {
			cands = append(cands, c)
		}
	}
	cands = append(cands, trusted...)
	for _, c := range cands {
		if bytes.Equal(c.RawSubject, leaf.RawIssuer) && leaf.CheckSignatureFrom(c) == nil {
			return c
		}
	}
	return nil
}

// The OCSP messages (RFC 6960).

type ocspCertID struct {
	HashAlgorithm  pkix.AlgorithmIdentifier
	IssuerNameHash []byte
	IssuerKeyHash  []byte
	SerialNumber   *big.Int
}

type ocspReqEntry struct {
	Cert ocspCertID
}

type ocspTBSRequest struct {
	RequestList []ocspReqEntry
}

type ocspRequestMsg struct {
	TBSRequest ocspTBSRequest
}

var (
	oidSHA1      = asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}
	oidOCSPBasic = asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 1}
)

// certIDFor is the CertID of leaf (SHA-1 hashes of the issuer's name and
// key, as responders expect).
func certIDFor(leaf, issuer *x509.Certificate) (ocspCertID, error) {
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(issuer.RawSubjectPublicKeyInfo, &spki); err != nil {
		return ocspCertID{}, err
	}
	nameHash := sha1.Sum(issuer.RawSubject)
	keyHash := sha1.Sum(spki.PublicKey.RightAlign())
	return ocspCertID{
		HashAlgorithm:  pkix.AlgorithmIdentifier{Algorithm: oidSHA1, Parameters: asn1.NullRawValue},
		IssuerNameHash: nameHash[:],
		IssuerKeyHash:  keyHash[:],
		SerialNumber:   leaf.SerialNumber,
	}, nil
}

func ocspRequest(leaf, issuer *x509.Certificate) ([]byte, error) {
	id, err := certIDFor(leaf, issuer)
	if err != nil {
		return nil, err
	}
	return asn1.Marshal(ocspRequestMsg{TBSRequest: ocspTBSRequest{RequestList: []ocspReqEntry{{Cert: id}}}})
}

type ocspResponseMsg struct {
	Status asn1.Enumerated
	Bytes  ocspResponseBytes `asn1:"explicit,tag:0,optional"`
}

type ocspResponseBytes struct {
	Type     asn1.ObjectIdentifier
	Response []byte
}

type ocspBasicResponse struct {
	TBS       asn1.RawValue
	Algorithm pkix.AlgorithmIdentifier
	Signature asn1.BitString
	Certs     []asn1.RawValue `asn1:"explicit,tag:0,optional"`
}

type ocspResponseData struct {
	Raw         asn1.RawContent
	Version     int           `asn1:"optional,explicit,default:0,tag:0"`
	ResponderID asn1.RawValue // by name [1] or by key hash [2]
	ProducedAt  time.Time     `asn1:"generalized"`
	Responses   []ocspSingleResponse
	Extensions  []pkix.Extension `asn1:"explicit,tag:1,optional"`
}

type ocspSingleResponse struct {
	CertID     ocspCertID
	Good       asn1.Flag        `asn1:"tag:0,optional"`
	Revoked    asn1.RawValue    `asn1:"tag:1,optional"`
	Unknown    asn1.Flag        `asn1:"tag:2,optional"`
	ThisUpdate time.Time        `asn1:"generalized"`
	NextUpdate time.Time        `asn1:"generalized,explicit,tag:0,optional"`
	Extensions []pkix.Extension `asn1:"explicit,tag:1,optional"`
}

// ocspResponse is a decoded basic OCSP response.
type ocspResponse struct {
	tbs        []byte
	sigAlg     asn1.ObjectIdentifier
	signature  []byte
	certs      []*x509.Certificate
	responses  []ocspSingleResponse
	nextUpdate time.Time
}

// parseOCSPResponse decodes a DER OCSP response; anything but a
// successful basic response is an error.
func parseOCSPResponse(der []byte) (*ocspResponse, error) {
	var msg ocspResponseMsg
	rest, err := asn1.Unmarshal(der, &msg)
	if err != nil {
		return nil, fmt.Errorf("malformed OCSP response: %w", err)
	}
	if len(rest) > 0 {
		return nil, errors.New("malformed OCSP response: trailing data")
	}
	if msg.Status != 0 {
		return nil, fmt.Errorf("OCSP response not successful (%d)", msg.Status)
	}
	if !msg.Bytes.Type.Equal(oidOCSPBasic) {
		return nil, errors.New("OCSP response is not a basic response")
	}
	var basic ocspBasicResponse
	if rest, err := asn1.Unmarshal(msg.Bytes.Response, &basic); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed basic OCSP response")
	}
	var data ocspResponseData
	if rest, err := asn1.Unmarshal(basic.TBS.FullBytes, &data); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed OCSP response data")
	}
	r := &ocspResponse{tbs: basic.TBS.FullBytes, sigAlg: basic.Algorithm.Algorithm, signature: basic.Signature.RightAlign(), responses: data.Responses}
	for _, raw := range basic.Certs {
		c, err := x509.ParseCertificate(raw.FullBytes)
		if err != nil {
			return nil, fmt.Errorf("malformed certificate in OCSP response: %w", err)
		}
		r.certs = append(r.certs, c)
	}
	return r, nil
}

// check finds leaf's entry, which must say good and be current, and with
// verify checks the signature: by the issuer, or by a responder
// certificate the issuer signed for OCSP signing.
func (r *ocspResponse) check(leaf, issuer *x509.Certificate, verify bool, now time.Time) error {
	status, err := r.status(leaf, issuer, now)
	if err != nil {
		return err
	}
	if status != ocspGood {
		return fmt.Errorf("certificate status %q in the OCSP response", status)
	}
	if verify {
		return r.verifySignature(issuer)
	}
	return nil
}

// The statuses of a certificate, with OpenSSL's names.
const (
	ocspGood    = "good"
	ocspRevoked = "revoked"
	ocspUnknown = "unknown"
)

// status finds leaf's entry, which must be current, and returns what it
// says; r.nextUpdate is set from it.
func (r *ocspResponse) status(leaf, issuer *x509.Certificate, now time.Time) (string, error) {
	id, err := certIDFor(leaf, issuer)
	if err != nil {
		return "", err
	}
	var single *ocspSingleResponse
	for i := range r.responses {
		e := &r.responses[i]
		if e.CertID.SerialNumber != nil && e.CertID.SerialNumber.Cmp(id.SerialNumber) == 0 &&
			bytes.Equal(e.CertID.IssuerNameHash, id.IssuerNameHash) && bytes.Equal(e.CertID.IssuerKeyHash, id.IssuerKeyHash) {
			single = e
			break
		}
	}
	if single == nil {
		return "", errors.New("certificate status not found in the OCSP response")
	}
	// Five minutes of leeway for clocks, as NGINX allows.
	const leeway = 5 * time.Minute
	if single.ThisUpdate.After(now.Add(leeway)) || (!single.NextUpdate.IsZero() && single.NextUpdate.Before(now.Add(-leeway))) {
		return "", errors.New("OCSP response is not current")
	}
	r.nextUpdate = single.NextUpdate
	switch {
	case len(single.Revoked.FullBytes) > 0:
		return ocspRevoked, nil
	case bool(single.Unknown):
		return ocspUnknown, nil
	}
	return ocspGood, nil
}

// verifySignature checks that the issuer signed the response, or a
// responder certificate the issuer signed for OCSP signing did.
func (r *ocspResponse) verifySignature(issuer *x509.Certificate) error {
	alg, ok := sigAlgs[r.sigAlg.String()]
	if !ok {
		return fmt.Errorf("OCSP response signed with an unsupported algorithm %s", r.sigAlg)
	}
	signer := issuer
	for _, c := range r.certs {
		if c.CheckSignatureFrom(issuer) == nil && hasOCSPSigning(c) {
			signer = c
			break
		}
	}
	if err := signer.CheckSignature(alg, r.tbs, r.signature); err != nil {
		return fmt.Errorf("OCSP response signature: %w", err)
	}
	return nil
}

func hasOCSPSigning(c *x509.Certificate) bool {
	for _, u := range c.ExtKeyUsage {
		if u == x509.ExtKeyUsageOCSPSigning {
			return true
		}
	}
	return false
}

// sigAlgs maps the signature algorithms responders use to Go's.
var sigAlgs = map[string]x509.SignatureAlgorithm{
	"1.2.840.113549.1.1.5":  x509.SHA1WithRSA,
	"1.2.840.113549.1.1.11": x509.SHA256WithRSA,
	"1.2.840.113549.1.1.12": x509.SHA384WithRSA,
	"1.2.840.113549.1.1.13": x509.SHA512WithRSA,
	"1.2.840.10045.4.1":     x509.ECDSAWithSHA1,
	"1.2.840.10045.4.3.2":   x509.ECDSAWithSHA256,
	"1.2.840.10045.4.3.3":   x509.ECDSAWithSHA384,
	"1.2.840.10045.4.3.4":   x509.ECDSAWithSHA512,
	"1.3.101.112":           x509.PureEd25519,
}
