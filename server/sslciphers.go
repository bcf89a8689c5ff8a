package server

import (
	"crypto/tls"
	"fmt"
	"strings"
)

// ssl_ciphers takes OpenSSL's cipher-list language. Go implements a small
// subset of OpenSSL's suites and ignores the order of Config.CipherSuites
// (it ranks them itself), so a cipher string comes down to the set of Go
// suites it leaves enabled. The list is read as OpenSSL reads it: items
// separated by ':', ',', ';' or spaces; "A+B" is the suites in both A and
// B; a plain item enables what it matches, "-" disables it (a later item
// may enable it again), "!" removes it for good, "+" only reorders;
// "@STRENGTH" and "@SECLEVEL=n" reorder or filter by strength and change
// nothing among Go's suites. Names OpenSSL does not know match nothing, as
// in OpenSSL. TLS 1.3 suites are not set by this list in NGINX either.

// goSuite describes one suite that Go implements with the attributes
// OpenSSL's aliases select on.
type goSuite struct {
	id   uint16
	name string // OpenSSL's name
	kx   string // "RSA", "ECDHE"
	au   string // "RSA", "ECDSA"
	enc  string // "AES128", "AES256", "AESGCM128", "AESGCM256", "CHACHA20", "3DES"
	mac  string // "SHA1", "SHA256", "SHA384", "AEAD"
	ver  string // the version that introduced it: "SSLv3", "TLSv1", "TLSv1.2"
	high bool   // HIGH; the others (3DES) are MEDIUM
}

var goSuites = []goSuite{
	{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE", "ECDSA", "AESGCM256", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384, "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE", "RSA", "AESGCM256", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE", "ECDSA", "CHACHA20", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256, "ECDHE-RSA-CHACHA20-POLY1305", "ECDHE", "RSA", "CHACHA20", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE", "ECDSA", "AESGCM128", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, "ECDHE-RSA-AES128-GCM-SHA256", "ECDHE", "RSA", "AESGCM128", "AEAD", "TLSv1.2", true},
	{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, "ECDHE-ECDSA-AES128-SHA256", "ECDHE", "ECDSA", "AES128", "SHA256", "TLSv1.2", true},
	{tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256, "ECDHE-RSA-AES128-SHA256", "ECDHE", "RSA", "AES128", "SHA256", "TLSv1.2", true},
	{tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, "ECDHE-ECDSA-AES256-SHA", "ECDHE", "ECDSA", "AES256", "SHA1", "TLSv1", true},
	{tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA, "ECDHE-RSA-AES256-SHA", "ECDHE", "RSA", "AES256", "SHA1", "TLSv1", true},
	{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, "ECDHE-ECDSA-AES128-SHA", "ECDHE", "ECDSA", "AES128", "SHA1", "TLSv1", true},
	{tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA, "ECDHE-RSA-AES128-SHA", "ECDHE", "RSA", "AES128", "SHA1", "TLSv1", true},
	{tls.TLS_RSA_WITH_AES_256_GCM_SHA384, "AES256-GCM-SHA384", "RSA", "RSA", "AESGCM256", "AEAD", "TLSv1.2", true},
	{tls.TLS_RSA_WITH_AES_128_GCM_SHA256, "AES128-GCM-SHA256", "RSA", "RSA", "AESGCM128", "AEAD", "TLSv1.2", true},
	{tls.TLS_RSA_WITH_AES_128_CBC_SHA256, "AES128-SHA256", "RSA", "RSA", "AES128", "SHA256", "TLSv1.2", true},
	{tls.TLS_RSA_WITH_AES_256_CBC_SHA, "AES256-SHA", "RSA", "RSA", "AES256", "SHA1", "SSLv3", true},
	{tls.TLS_RSA_WITH_AES_128_CBC_SHA, "AES128-SHA", "RSA", "RSA", "AES128", "SHA1", "SSLv3", true},
	{tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA, "ECDHE-RSA-DES-CBC3-SHA", "ECDHE", "RSA", "3DES", "SHA1", "SSLv3", false},
	{tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA, "DES-CBC3-SHA", "RSA", "RSA", "3DES", "SHA1", "SSLv3", false},
}

// cipherAliases are OpenSSL's group names, as predicates on Go's suites.
// Groups of suites Go does not implement (DHE, PSK, CAMELLIA, ARIA, CCM,
// anonymous and null suites...) are listed as matching nothing.
var cipherAliases = map[string]func(s *goSuite) bool{
	"ALL":      func(*goSuite) bool { return true },
	"DEFAULT":  func(s *goSuite) bool { return s.high },
	"HIGH":     func(s *goSuite) bool { return s.high },
	"MEDIUM":   func(s *goSuite) bool { return !s.high },
	"kRSA":     func(s *goSuite) bool { return s.kx == "RSA" },
	"RSA":      func(s *goSuite) bool { return s.kx == "RSA" },
	"aRSA":     func(s *goSuite) bool { return s.au == "RSA" },
	"kECDHE":   func(s *goSuite) bool { return s.kx == "ECDHE" },
	"kEECDH":   func(s *goSuite) bool { return s.kx == "ECDHE" },
	"ECDHE":    func(s *goSuite) bool { return s.kx == "ECDHE" },
	"EECDH":    func(s *goSuite) bool { return s.kx == "ECDHE" },
	"ECDH":     func(s *goSuite) bool { return s.kx == "ECDHE" },
	"aECDSA":   func(s *goSuite) bool { return s.au == "ECDSA" },
	"ECDSA":    func(s *goSuite) bool { return s.au == "ECDSA" },
	"AES":      func(s *goSuite) bool { return strings.HasPrefix(s.enc, "AES") },
	"AES128":   func(s *goSuite) bool { return s.enc == "AES128" || s.enc == "AESGCM128" },
	"AES256":   func(s *goSuite) bool { return s.enc == "AES256" || s.enc == "AESGCM256" },
	"AESGCM":   func(s *goSuite) bool { return strings.HasPrefix(s.enc, "AESGCM") },
	"CHACHA20": func(s *goSuite) bool { return s.enc == "CHACHA20" },
	"3DES":     func(s *goSuite) bool { return s.enc == "3DES" },
	"SHA1":     func(s *goSuite) bool { return s.mac == "SHA1" },
	"SHA":      func(s *goSuite) bool { return s.mac == "SHA1" },
	"SHA256":   func(s *goSuite) bool { return s.mac == "SHA256" },
	"SHA384":   func(s *goSuite) bool { return s.mac == "SHA384" },
	"TLSv1.2":  func(s *goSuite) bool { return s.ver == "TLSv1.2" },
	"TLSv1.0":  func(s *goSuite) bool { return s.ver == "TLSv1" },
	"TLSv1":    func(s *goSuite) bool { return s.ver == "TLSv1" },
	"SSLv3":    func(s *goSuite) bool { return s.ver == "SSLv3" },
}

func init() {
	none := func(*goSuite) bool { return false }
	for _, n := range strings.Fields(`COMPLEMENTOFALL COMPLEMENTOFDEFAULT LOW EXPORT EXP eNULL NULL aNULL
		ADH AECDH kDHE kEDH DHE EDH DH kDH kDHr kDHd aDSS DSS aDH aECDH kECDHr kECDHe
		PSK kPSK aPSK kECDHEPSK kDHEPSK kRSAPSK ECDHEPSK DHEPSK RSAPSK SRP kSRP aSRP
		CAMELLIA CAMELLIA128 CAMELLIA256 ARIA ARIA128 ARIA256 ARIAGCM SEED IDEA RC2 RC4 DES
		AESCCM AESCCM8 CHACHA20POLY1305 MD5 GOST94 GOST89MAC kGOST aGOST aGOST01 GOST2012
		kGOST18 aNULL SUITEB128 SUITEB128ONLY SUITEB128C2 SUITEB192`) {
		cipherAliases[n] = none
	}
}

// ParseCiphers returns the Go suites that an OpenSSL cipher string
// enables, the TLS 1.3 suite names found in it (which only an OpenSSL
// "Ciphersuites" command sets), and the items meant to enable suites
// that match none Go implements (DHE-RSA-AES128-GCM-SHA256, EDH+AESGCM),
// which OpenSSL would honour and mosaic drops. An empty result is an
// error, as OpenSSL's "no cipher match". The proxy's *_ssl_ciphers read
// it too.
func ParseCiphers(spec string) (ids []uint16, tls13, missing []string, err error) {
	active := make([]bool, len(goSuites))
	killed := make([]bool, len(goSuites))
	items := strings.FieldsFunc(spec, func(r rune) bool { return r == ':' || r == ',' || r == ';' || r == ' ' || r == '\t' })
	for _, it := range items {
		op := byte(0)
		if it[0] == '!' || it[0] == '-' || it[0] == '+' {
			op, it = it[0], it[1:]
		}
		if it == "" || it[0] == '@' {
			continue // @STRENGTH, @SECLEVEL=n: orders or filters nothing Go has
		}
		if strings.HasPrefix(it, "TLS_") {
			tls13 = append(tls13, it)
			continue
		}
		parts := strings.Split(it, "+")
		matched := false
		for i := range goSuites {
			if !suiteMatches(&goSuites[i], parts) {
				continue
			}
			matched = true
			switch op {
			case 0:
				if !killed[i] {
					active[i] = true
				}
			case '-':
				active[i] = false
			case '!':
				active[i], killed[i] = false, true
			}
		}
		if !matched && op == 0 {
			missing = append(missing, it)
		}
	}
	for i, on := range active {
		if on {
			ids = append(ids, goSuites[i].id)
		}
	}
	if len(ids) == 0 {
		return nil, tls13, missing, fmt.Errorf("no cipher suite that mosaic implements matches %q", spec)
	}
	return ids, tls13, missing, nil
}

// NoteIgnoredCiphers tells, by notices, what a cipher list named that Go
// cannot honour: TLS 1.3 suites (Go chooses among its own) and items that
// enable none of Go's suites.
func NoteIgnoredCiphers(c *Cmd, tls13, missing []string) {
	if len(tls13) > 0 {
		c.Notice(fmt.Sprintf("ignoring TLS 1.3 cipher suites %s in %q: Go chooses among its TLS 1.3 suites itself",
			strings.Join(tls13, ", "), c.Name))
	}
	if len(missing) > 0 {
		c.Notice(fmt.Sprintf("ignoring %s in %q: no cipher suite that Go implements matches", strings.Join(missing, ", "), c.Name))
	}
}

// suiteMatches reports whether s is in every group of parts (a cipher
// name counts as the group of that one suite).
func suiteMatches(s *goSuite, parts []string) bool {
	for _, p := range parts {
		if p == s.name {
			continue
		}
		f, ok := cipherAliases[p]
		if !ok || !f(s) {
			return false
		}
	}
	return true
}

// curveNames maps OpenSSL's group names (and the NIST aliases it
// accepts) to Go's.
var curveNames = map[string]tls.CurveID{
	"X25519": tls.X25519, "x25519": tls.X25519,
	"prime256v1": tls.CurveP256, "secp256r1": tls.CurveP256, "P-256": tls.CurveP256,
	"secp384r1": tls.CurveP384, "P-384": tls.CurveP384,
	"secp521r1": tls.CurveP521, "P-521": tls.CurveP521,
	"X25519MLKEM768": tls.X25519MLKEM768,
}

// parseCurves reads ssl_ecdh_curve's "name:name...". Groups OpenSSL knows
// that Go does not implement (X448, the brainpool and ffdhe groups) are
// returned apart, for a notice; an unknown name is an error, as OpenSSL's
// SSL_CTX_set1_curves_list fails on one.
func parseCurves(spec string) (ids []tls.CurveID, missing []string, err error) {
	for _, n := range strings.Split(spec, ":") {
		if id, ok := curveNames[n]; ok {
			ids = append(ids, id)
			continue
		}
		switch n {
		case "X448", "x448", "brainpoolP256r1", "brainpoolP384r1", "brainpoolP512r1", "secp256k1",
			"ffdhe2048", "ffdhe3072", "ffdhe4096", "ffdhe6144", "ffdhe8192", "secp224r1", "P-224":
			missing = append(missing, n)
			continue
		}
		return nil, nil, fmt.Errorf("SSL_CTX_set1_curves_list(%q) failed: unknown group %q", spec, n)
	}
	if len(ids) == 0 {
		return nil, missing, fmt.Errorf("SSL_CTX_set1_curves_list(%q) failed: no group that mosaic implements", spec)
	}
	return ids, missing, nil
}
