package server

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testpki"
)

// A response is accepted only for the right certificate, when good and
// current, and with verification only when the issuer signed it.
func TestOCSPResponseCheck(t *testing.T) {
	ca := testpki.NewRootCA(t, "OCSP CA")
	leaf := ca.Issue(t, false, "a.test").Leaf
	other := ca.Issue(t, false, "b.test").Leaf
	rogue, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	next := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		name   string
		der    []byte
		verify bool
		want   string // "" = accepted
	}{
		{"good", ca.OCSPResponse(t, leaf, testpki.OCSPGood, next, nil), true, ""},
		{"no next update", ca.OCSPResponse(t, leaf, testpki.OCSPGood, time.Time{}, nil), true, ""},
		{"revoked", ca.OCSPResponse(t, leaf, testpki.OCSPRevoked, next, nil), false, "revoked"},
		{"unknown", ca.OCSPResponse(t, leaf, testpki.OCSPUnknown, next, nil), false, "unknown"},
		{"other certificate", ca.OCSPResponse(t, other, testpki.OCSPGood, next, nil), false, "not found"},
		{"expired", ca.OCSPResponse(t, leaf, testpki.OCSPGood, time.Now().Add(-time.Hour), nil), false, "not current"},
		{"bad signature unverified", ca.OCSPResponse(t, leaf, testpki.OCSPGood, next, rogue), false, ""},
		{"bad signature verified", ca.OCSPResponse(t, leaf, testpki.OCSPGood, next, rogue), true, "signature"},
	} {
		r, err := parseOCSPResponse(tc.der)
		if err == nil {
			err = r.check(leaf, ca.Cert, tc.verify, time.Now())
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if r, _ := parseOCSPResponse(ca.OCSPResponse(t, leaf, testpki.OCSPGood, next, nil)); r != nil {
		if err := r.check(leaf, ca.Cert, true, time.Now()); err == nil && !r.nextUpdate.Equal(next.UTC().Truncate(time.Second)) {
			t.Errorf("nextUpdate %v, want %v", r.nextUpdate, next)
		}
	}
	req, err := ocspRequest(leaf, ca.Cert)
	if err != nil || len(req) < 60 {
		t.Fatalf("request %x %v", req, err)
	}
}

func FuzzOCSPResponse(f *testing.F) {
	ca := testpki.NewRootCA(f, "OCSP CA")
	leaf := ca.Issue(f, false, "a.test").Leaf
	f.Add(ca.OCSPResponse(f, leaf, testpki.OCSPGood, time.Now().Add(time.Hour), nil))
	f.Add(ca.OCSPResponse(f, leaf, testpki.OCSPRevoked, time.Time{}, nil))
	f.Add([]byte{0x30, 0x03, 0x0a, 0x01, 0x01})
	f.Fuzz(func(t *testing.T, der []byte) {
		r, err := parseOCSPResponse(der)
		if err != nil {
			return
		}
		_ = r.check(leaf, ca.Cert, true, time.Now())
	})
}
