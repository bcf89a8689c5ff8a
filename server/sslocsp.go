package server

import (
	"container/list"
	"context"
	"crypto/x509"
	"fmt"
	"strings"
	"sync"
	"time"
)

// OCSP checks of client certificates (ssl_ocsp on | leaf): once a
// client's chain has verified, each of its certificates but the trusted
// CA (only the client's own with leaf) is looked up with its issuer's
// OCSP responder (the certificate's URL, or ssl_ocsp_responder); the
// response must be signed by the issuer. A revoked certificate fails as
// "certificate revoked", an unknown one as "certificate status unknown",
// and a query that fails (no URL, no answer, a bad or unsigned response)
// as "certificate status request failed", NGINX's wordings; each is a 495.
// The connection's first request waits for the answers, as NGINX holds
// the handshake. ssl_ocsp_cache shared:NAME:SIZE keeps the answers until
// their nextUpdate (an hour without one), for every server naming the
// zone and across reloads.

type ocspMode int

const (
	ocspOff ocspMode = iota
	ocspChain
	ocspLeaf
)

func setOCSP(c *Cmd) error {
	m, ok := map[string]ocspMode{"off": ocspOff, "on": ocspChain, "leaf": ocspLeaf}[strings.ToLower(c.Args[0])] // NGINX's enum values ignore case
	if !ok {
		return c.Errorf("invalid value %q in %q directive, it must be \"on\", \"off\" or \"leaf\"", c.Args[0], c.Name)
	}
	return Put(c, &c.Loc().(*sslLoc).ocsp, m)
}

// ocspCacheConf is ssl_ocsp_cache: off (name empty) or a shared zone.
type ocspCacheConf struct {
	name string
	size int64
}

func setOCSPCache(c *Cmd) error {
	a := c.Args[0]
	var oc ocspCacheConf
	if a != "off" {
		name, size, ok := strings.Cut(strings.TrimPrefix(a, "shared:"), ":")
		n, err := ParseSize(size)
		if !strings.HasPrefix(a, "shared:") || !ok || name == "" || err != nil {
			return c.Errorf("invalid value %q in %q directive", a, c.Name)
		}
		if n < 8*4096 {
			return c.Errorf("OCSP cache %q is too small", a)
		}
		oc = ocspCacheConf{name: name, size: n}
	}
	return Put(c, &c.Loc().(*sslLoc).ocspCache, oc)
}

// ocspCache remembers certificate statuses by certificate ID.
type ocspCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *ocspCached, oldest first
	byKey map[string]*list.Element
}

type ocspCached struct {
	key    string
	status string
	valid  time.Time
}

// ocspEntryBytes is about what NGINX's cache spends on one status.
const ocspEntryBytes = 256

var ocspCaches = struct {
	sync.Mutex
	m map[string]*ocspCache
}{m: map[string]*ocspCache{}}

func sharedOCSPCache(oc ocspCacheConf) *ocspCache {
	max := int(oc.size / ocspEntryBytes)
	ocspCaches.Lock()
	defer ocspCaches.Unlock()
	c := ocspCaches.m[oc.name]
	if c == nil || c.max != max {
		c = &ocspCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
		ocspCaches.m[oc.name] = c
	}
	return c
}

func (c *ocspCache) get(key string, now time.Time) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		e := el.Value.(*ocspCached)
		if now.Before(e.valid) {
			return e.status
		}
		c.order.Remove(el)
		delete(c.byKey, key)
	}
	return ""
}

func (c *ocspCache) put(key, status string, valid time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.order.Remove(el)
		delete(c.byKey, key)
	}
	for c.order.Len() >= c.max && c.order.Len() > 0 {
		old := c.order.Remove(c.order.Front()).(*ocspCached)
		delete(c.byKey, old.key)
	}
	c.byKey[key] = c.order.PushBack(&ocspCached{key: key, status: status, valid: valid})
}

// checkOCSP looks up the statuses of a verified chain (leaf first, the
// trusted CA last) and returns why it fails, or "".
func (st *serverTLS) checkOCSP(chain []*x509.Certificate, now time.Time) string {
	last := len(chain) - 1
	if st.sl.ocsp.V == ocspLeaf {
		last = min(last, 1)
	}
	for i := 0; i < last; i++ {
		switch st.ocspStatus(chain[i], chain[i+1], now) {
		case ocspGood:
			continue
		case ocspRevoked:
			return "certificate revoked"
		case ocspUnknown:
			return "certificate status unknown"
		default:
			return "certificate status request failed"
		}
	}
	return ""
}

// ocspStatus is a certificate's status, from the cache or its
// responder; "" when it could not be had.
func (st *serverTLS) ocspStatus(cert, issuer *x509.Certificate, now time.Time) string {
	id, err := certIDFor(cert, issuer)
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%x:%x:%s", id.IssuerNameHash, id.IssuerKeyHash, id.SerialNumber)
	if st.ocspCache != nil {
		if s := st.ocspCache.get(key, now); s != "" {
			return s
		}
	}
	url := st.sl.ocspResponder.V
	if url == "" && len(cert.OCSPServer) > 0 {
		url = cert.OCSPServer[0]
	}
	if !strings.HasPrefix(url, "http://") {
		st.logf(fmt.Sprintf("no OCSP responder URL in certificate %q", cert.Subject.CommonName))
		return ""
	}
	_, r, err := queryOCSP(context.Background(), url, cert, issuer)
	var status string
	if err == nil {
		status, err = r.status(cert, issuer, now)
	}
	if err == nil {
		err = r.verifySignature(issuer)
	}
	if err != nil {
		st.logf(fmt.Sprintf("OCSP query for client certificate %q to %s: %v", cert.Subject.CommonName, url, err))
		return ""
	}
	if st.ocspCache != nil {
		valid := r.nextUpdate
		if valid.IsZero() {
			valid = now.Add(time.Hour)
		}
		st.ocspCache.put(key, status, valid)
	}
	return status
}
