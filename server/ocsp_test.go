package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"strings"
	"sync/atomic"
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

// TestOCSPStapleRefresh: a fetched response is fetched again by NGINX's
// rule, five minutes before its nextUpdate, at the latest in an hour, at
// the soonest in five minutes (and five minutes after a failure); a
// handshake before that time starts no fetch, one at it does, and an
// expired staple is not sent. The stapler's clock is the test's.
func TestOCSPStapleRefresh(t *testing.T) {
	ca := testpki.NewRootCA(t, "OCSP CA")
	leaf := ca.Issue(t, false, "a.test").Leaf
	t0 := time.Now().Truncate(time.Second) // nextUpdate has whole seconds
	var answer atomic.Pointer[[]byte]
	responder := testpki.NewOCSPResponder(t, func([]byte) []byte { return *answer.Load() })
	for _, tc := range []struct {
		name    string
		life    time.Duration // nextUpdate - t0; 0: none
		garbage bool
		want    time.Duration // refresh - t0
	}{
		{"long-lived, capped at an hour", 3 * time.Hour, false, time.Hour},
		{"five minutes before nextUpdate", 40 * time.Minute, false, 35 * time.Minute},
		{"just under the hour", 64 * time.Minute, false, 59 * time.Minute},
		{"no sooner than five minutes", 7 * time.Minute, false, 5 * time.Minute},
		{"no nextUpdate", 0, false, time.Hour},
		{"failed fetch", time.Hour, true, 5 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next := time.Time{}
			if tc.life > 0 {
				next = t0.Add(tc.life)
			}
			der := ca.OCSPResponse(t, leaf, testpki.OCSPGood, next, nil)
			if tc.garbage {
				der = []byte("not an OCSP response")
			}
			answer.Store(&der)
			var clock atomic.Int64
			clock.Store(t0.UnixNano())
			s := &stapler{leaf: leaf, issuer: ca.Cert, url: responder.URL, verify: true, ctx: context.Background(),
				logf: func(string) {}, clock: func() time.Time { return time.Unix(0, clock.Load()) }}
			s.fetching.Store(true)
			s.fetch()
			if got := s.refresh.Sub(t0); got != tc.want {
				t.Fatalf("refresh in %v, want %v", got, tc.want)
			}
			if tc.garbage {
				if s.get() != nil {
					t.Error("a staple after a failed fetch")
				}
				return
			}
			// Just before the refresh the staple is sent and nothing is
			// fetched; at the refresh a fetch starts.
			hits := responder.Hits.Load()
			clock.Store(t0.Add(tc.want - time.Second).UnixNano())
			if string(s.get()) != string(der) {
				t.Fatal("the staple is not sent before its refresh")
			}
			time.Sleep(50 * time.Millisecond)
			if h := responder.Hits.Load(); h != hits {
				t.Fatalf("%d fetches before the refresh time", h-hits)
			}
			clock.Store(t0.Add(tc.want).UnixNano())
			s.get()
			for deadline := time.Now().Add(5 * time.Second); responder.Hits.Load() == hits; time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no fetch at the refresh time")
				}
			}
			idle := func() {
				for deadline := time.Now().Add(5 * time.Second); s.fetching.Load(); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the fetch never ended")
					}
				}
			}
			idle()
			if tc.life > 0 {
				// Past nextUpdate the staple is no longer sent (the
				// look starts a fetch too, waited for).
				clock.Store(t0.Add(tc.life + time.Second).UnixNano())
				if s.get() != nil {
					t.Error("an expired staple is sent")
				}
				idle()
			}
		})
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
