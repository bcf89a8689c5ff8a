package testpki

import (
	"crypto"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// OCSP responses for tests of stapling, encoded here with encoding/asn1
// (RFC 6960's basic response) since the module has no OCSP package.

// OCSPStatus is a certificate's status in a response.
type OCSPStatus int

const (
	OCSPGood OCSPStatus = iota
	OCSPRevoked
	OCSPUnknown
)

type certID struct {
	HashAlgorithm  pkix.AlgorithmIdentifier
	IssuerNameHash []byte
	IssuerKeyHash  []byte
	SerialNumber   *big.Int
}

type singleResponse struct {
	CertID     certID
	Status     asn1.RawValue
	ThisUpdate time.Time `asn1:"generalized"`
	NextUpdate time.Time `asn1:"generalized,explicit,tag:0,optional"`
}

type responseData struct {
	ResponderID asn1.RawValue
	ProducedAt  time.Time `asn1:"generalized"`
	Responses   []singleResponse
}

type basicResponse struct {
	TBS       asn1.RawValue
	Algorithm pkix.AlgorithmIdentifier
	Signature asn1.BitString
}

type responseBytes struct {
	Type     asn1.ObjectIdentifier
	Response []byte
}

type ocspResponse struct {
	Status asn1.Enumerated
	Bytes  responseBytes `asn1:"explicit,tag:0"`
}

// OCSPResponse makes a DER OCSP response about leaf, issued by ca,
// signed by ca's key (or by signer when not nil, to make a bad one), with
// nextUpdate omitted when zero.
func (ca *CA) OCSPResponse(t testing.TB, leaf *x509.Certificate, status OCSPStatus, nextUpdate time.Time, signer crypto.Signer) []byte {
	t.Helper()
	var spki struct {
		Algorithm pkix.AlgorithmIdentifier
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(ca.Cert.RawSubjectPublicKeyInfo, &spki); err != nil {
		t.Fatal(err)
	}
	nameHash := sha1.Sum(ca.Cert.RawSubject)
	keyHash := sha1.Sum(spki.PublicKey.RightAlign())
	st := asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: int(status)}
	if status == OCSPRevoked {
		when, _ := asn1.MarshalWithParams(time.Now().Add(-time.Minute).UTC(), "generalized")
		st.IsCompound, st.Bytes = true, when
	}
	data := responseData{
		ResponderID: asn1.RawValue{Class: asn1.ClassContextSpecific, Tag: 1, IsCompound: true, Bytes: ca.Cert.RawSubject},
		ProducedAt:  time.Now().UTC().Truncate(time.Second),
		Responses: []singleResponse{{
			CertID: certID{
				HashAlgorithm:  pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 3, 14, 3, 2, 26}, Parameters: asn1.NullRawValue},
				IssuerNameHash: nameHash[:], IssuerKeyHash: keyHash[:], SerialNumber: leaf.SerialNumber,
			},
			Status:     st,
			ThisUpdate: time.Now().Add(-time.Minute).UTC().Truncate(time.Second),
			NextUpdate: nextUpdate.UTC().Truncate(time.Second),
		}},
	}
	tbs := mustMarshal(t, data)
	if signer == nil {
		signer = ca.Key
	}
	digest := sha256.Sum256(tbs)
	sig, err := signer.Sign(rand.Reader, digest[:], crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	basic := mustMarshal(t, basicResponse{
		TBS:       asn1.RawValue{FullBytes: tbs},
		Algorithm: pkix.AlgorithmIdentifier{Algorithm: asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}}, // ecdsa-with-SHA256
		Signature: asn1.BitString{Bytes: sig, BitLength: 8 * len(sig)},
	})
	return mustMarshal(t, ocspResponse{Bytes: responseBytes{Type: asn1.ObjectIdentifier{1, 3, 6, 1, 5, 5, 7, 48, 1, 1}, Response: basic}})
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := asn1.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// OCSPResponder is an OCSP responder on 127.0.0.1 that answers every POST
// with what respond returns, counting the requests in Hits.
type OCSPResponder struct {
	*httptest.Server
	Hits atomic.Int64
}

// NewOCSPResponder starts a responder; respond gets the DER request, the
// body of a POST or the base64 path of a GET.
func NewOCSPResponder(t testing.TB, respond func(req []byte) []byte) *OCSPResponder {
	t.Helper()
	r := &OCSPResponder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if req.Method == http.MethodGet {
			body, _ = base64.StdEncoding.DecodeString(strings.TrimPrefix(req.URL.Path, "/"))
		}
		r.Hits.Add(1)
		w.Header().Set("Content-Type", "application/ocsp-response")
		_, _ = w.Write(respond(body))
	}))
	t.Cleanup(r.Close)
	return r
}

// IssueOCSP signs a server certificate for names (a client one with
// client) that names url as its OCSP responder, sent with the
// intermediates above it.
func (ca *CA) IssueOCSP(t testing.TB, client bool, url string, names ...string) tls.Certificate {
	t.Helper()
	use := x509.ExtKeyUsageServerAuth
	if client {
		use = x509.ExtKeyUsageClientAuth
	}
	c, k := newCert(t, &x509.Certificate{
		Subject:     pkix.Name{CommonName: names[0]},
		DNSNames:    names,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{use},
		OCSPServer:  []string{url},
	}, ca)
	return tls.Certificate{Certificate: append([][]byte{c.Raw}, ca.Chain...), PrivateKey: k, Leaf: c}
}

// OCSPRequestSerial returns the serial number a DER OCSP request asks
// about (its first entry), or nil.
func OCSPRequestSerial(req []byte) *big.Int {
	var msg struct {
		TBS struct {
			List []struct{ Cert certID }
		}
	}
	if _, err := asn1.Unmarshal(req, &msg); err != nil || len(msg.TBS.List) == 0 {
		return nil
	}
	return msg.TBS.List[0].Cert.SerialNumber
}
