package vars

import (
	"crypto/sha1"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The variables of NGINX's SSL module. Over a plain connection each is
// empty, as in NGINX. They read the connection's tls.ConnectionState, so
// they take the names OpenSSL gives (protocols, cipher suites, curves,
// distinguished names) rather than Go's.
func init() {
	ssl := func(name string, f func(cs *tls.ConnectionState) string) {
		Register(name, func(r *http.Request, _ *State) string {
			if r.TLS == nil {
				return ""
			}
			return f(r.TLS)
		})
	}
	ssl("ssl_protocol", func(cs *tls.ConnectionState) string { return tlsVersionName(cs.Version) })
	ssl("ssl_cipher", func(cs *tls.ConnectionState) string { return cipherName(cs.CipherSuite) })
	ssl("ssl_curve", func(cs *tls.ConnectionState) string { return curveName(cs.CurveID) })
	ssl("ssl_server_name", func(cs *tls.ConnectionState) string { return cs.ServerName })
	ssl("ssl_alpn_protocol", func(cs *tls.ConnectionState) string { return cs.NegotiatedProtocol })
	ssl("ssl_session_reused", func(cs *tls.ConnectionState) string {
		if cs.DidResume {
			return "r"
		}
		return "."
	})
	// Go keeps no session ID a server could show: with TLS 1.2 it sends
	// none unless it resumes a session (and then echoes the client's),
	// TLS 1.3 has none. $ssl_session_id is instead 32 bytes that the
	// connection's keys give (RFC 5705's exporter), in hex as OpenSSL's
	// 32-byte IDs: the same for every request of a connection and
	// different for every connection, a resumed one included; empty on
	// a TLS 1.2 connection without the extended master secret, which
	// has no exporter.
	ssl("ssl_session_id", sessionID)
	// The client's offers, as its ClientHello listed them.
	Register("ssl_ciphers", func(r *http.Request, st *State) string {
		if r.TLS == nil || st == nil || st.Hello == nil {
			return ""
		}
		return offeredCiphers(st.Hello.CipherSuites)
	})
	Register("ssl_curves", func(r *http.Request, st *State) string {
		if r.TLS == nil || st == nil || st.Hello == nil {
			return ""
		}
		return offeredCurves(st.Hello.Curves)
	})
	// Go's server does not accept TLS 1.3 early data: no request arrives
	// in it, so the variable is never "1".
	ssl("ssl_early_data", func(*tls.ConnectionState) string { return "" })
	Register("ssl_client_verify", func(r *http.Request, st *State) string {
		if r.TLS == nil {
			return ""
		}
		if v := read(st).ClientVerify; v != "" {
			return v
		}
		return clientVerify(r.TLS)
	})

	cert := func(name string, f func(c *x509.Certificate) string) {
		ssl(name, func(cs *tls.ConnectionState) string {
			if len(cs.PeerCertificates) == 0 {
				return ""
			}
			return f(cs.PeerCertificates[0])
		})
	}
	cert("ssl_client_raw_cert", rawCert)
	cert("ssl_client_cert", func(c *x509.Certificate) string {
		// The PEM text without its last newline, each line after the first
		// indented by a tab: the form that fits a header line of old.
		return strings.ReplaceAll(strings.TrimSuffix(rawCert(c), "\n"), "\n", "\n\t")
	})
	cert("ssl_client_escaped_cert", func(c *x509.Certificate) string { return escapeComponent(rawCert(c)) })
	cert("ssl_client_s_dn", func(c *x509.Certificate) string { return dnRFC2253(c.RawSubject) })
	cert("ssl_client_i_dn", func(c *x509.Certificate) string { return dnRFC2253(c.RawIssuer) })
	cert("ssl_client_s_dn_legacy", func(c *x509.Certificate) string { return dnLegacy(c.RawSubject) })
	cert("ssl_client_i_dn_legacy", func(c *x509.Certificate) string { return dnLegacy(c.RawIssuer) })
	cert("ssl_client_serial", func(c *x509.Certificate) string { return serialHex(c) })
	cert("ssl_client_fingerprint", func(c *x509.Certificate) string {
		sum := sha1.Sum(c.Raw)
		return hex.EncodeToString(sum[:])
	})
	cert("ssl_client_v_start", func(c *x509.Certificate) string { return asn1Time(c.NotBefore) })
	cert("ssl_client_v_end", func(c *x509.Certificate) string { return asn1Time(c.NotAfter) })
	cert("ssl_client_v_remain", func(c *x509.Certificate) string {
		left := time.Until(c.NotAfter)
		if left < 24*time.Hour {
			return "0"
		}
		return strconv.FormatInt(int64(left/(24*time.Hour)), 10)
	})
}

// tlsVersionName is OpenSSL's name of a protocol version.
func tlsVersionName(v uint16) string {
	switch v {
	case tls.VersionTLS10:
		return "TLSv1"
	case tls.VersionTLS11:
		return "TLSv1.1"
	case tls.VersionTLS12:
		return "TLSv1.2"
	case tls.VersionTLS13:
		return "TLSv1.3"
	}
	return "unknown"
}

// opensslCiphers maps the suites Go implements to OpenSSL's names (those
// of TLS 1.3 are the IANA names in both).
var opensslCiphers = map[uint16]string{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256:       "ECDHE-ECDSA-AES128-GCM-SHA256",
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256:         "ECDHE-RSA-AES128-GCM-SHA256",
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384:       "ECDHE-ECDSA-AES256-GCM-SHA384",
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384:         "ECDHE-RSA-AES256-GCM-SHA384",
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256:   "ECDHE-RSA-CHACHA20-POLY1305",
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA:          "ECDHE-ECDSA-AES128-SHA",
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA:            "ECDHE-RSA-AES128-SHA",
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA:          "ECDHE-ECDSA-AES256-SHA",
	tls.TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA:            "ECDHE-RSA-AES256-SHA",
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256:       "ECDHE-ECDSA-AES128-SHA256",
	tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256:         "ECDHE-RSA-AES128-SHA256",
	tls.TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA:           "ECDHE-RSA-DES-CBC3-SHA",
	tls.TLS_ECDHE_ECDSA_WITH_RC4_128_SHA:              "ECDHE-ECDSA-RC4-SHA",
	tls.TLS_ECDHE_RSA_WITH_RC4_128_SHA:                "ECDHE-RSA-RC4-SHA",
	tls.TLS_RSA_WITH_AES_128_GCM_SHA256:               "AES128-GCM-SHA256",
	tls.TLS_RSA_WITH_AES_256_GCM_SHA384:               "AES256-GCM-SHA384",
	tls.TLS_RSA_WITH_AES_128_CBC_SHA:                  "AES128-SHA",
	tls.TLS_RSA_WITH_AES_256_CBC_SHA:                  "AES256-SHA",
	tls.TLS_RSA_WITH_AES_128_CBC_SHA256:               "AES128-SHA256",
	tls.TLS_RSA_WITH_3DES_EDE_CBC_SHA:                 "DES-CBC3-SHA",
	tls.TLS_RSA_WITH_RC4_128_SHA:                      "RC4-SHA",
}

func cipherName(id uint16) string {
	if n, ok := opensslCiphers[id]; ok {
		return n
	}
	return tls.CipherSuiteName(id)
}

// sessionID is $ssl_session_id (see above). A ConnectionState that no
// handshake made (a test's, a module's copy) has no exporter to call,
// and reads empty.
func sessionID(cs *tls.ConnectionState) (id string) {
	defer func() {
		if recover() != nil {
			id = ""
		}
	}()
	b, err := cs.ExportKeyingMaterial("EXPORTER-mosaic-ssl-session-id", nil, 32)
	if err != nil {
		return ""
	}
	return hex.EncodeToString(b)
}

// offeredCiphers is $ssl_ciphers: the suites a client offered, by
// OpenSSL's names, ":"-separated; one OpenSSL does not name is its two
// bytes in hex ("0x0a0a"), as NGINX shows it.
func offeredCiphers(ids []uint16) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(':')
		}
		switch n, ok := opensslCiphers[id]; {
		case ok:
			b.WriteString(n)
		case id >= 0x1301 && id <= 0x1303:
			b.WriteString(tls.CipherSuiteName(id)) // TLS 1.3: the IANA names
		default:
			appendHex16(&b, id)
		}
	}
	return b.String()
}

// opensslGroups are the key exchange groups of TLS that OpenSSL 3.0
// names, by its short names; the others it shows in hex.
var opensslGroups = map[tls.CurveID]string{
	1: "sect163k1", 2: "sect163r1", 3: "sect163r2", 4: "sect193r1", 5: "sect193r2", 6: "sect233k1",
	7: "sect233r1", 8: "sect239k1", 9: "sect283k1", 10: "sect283r1", 11: "sect409k1", 12: "sect409r1",
	13: "sect571k1", 14: "sect571r1", 15: "secp160k1", 16: "secp160r1", 17: "secp160r2", 18: "secp192k1",
	19: "prime192v1", 20: "secp224k1", 21: "secp224r1", 22: "secp256k1", 23: "prime256v1", 24: "secp384r1", 25: "secp521r1",
	26: "brainpoolP256r1", 27: "brainpoolP384r1", 28: "brainpoolP512r1", 29: "X25519", 30: "X448",
	256: "ffdhe2048", 257: "ffdhe3072", 258: "ffdhe4096", 259: "ffdhe6144", 260: "ffdhe8192",
}

// offeredCurves is $ssl_curves: the groups a client offered, by
// OpenSSL's names, ":"-separated, those it does not name in hex
// ("0x11ec", X25519MLKEM768, which OpenSSL 3.0 does not know).
func offeredCurves(ids []tls.CurveID) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(':')
		}
		if n, ok := opensslGroups[id]; ok {
			b.WriteString(n)
		} else {
			appendHex16(&b, uint16(id))
		}
	}
	return b.String()
}

// appendHex16 writes v as "0x" and four lower-case hex digits.
func appendHex16(b *strings.Builder, v uint16) {
	const digits = "0123456789abcdef"
	b.WriteString("0x")
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(digits[v>>uint(shift)&0xf])
	}
}

// curveName is OpenSSL's name of a key exchange group.
func curveName(id tls.CurveID) string {
	switch id {
	case 0:
		return ""
	case tls.X25519:
		return "X25519"
	case tls.CurveP256:
		return "prime256v1"
	case tls.CurveP384:
		return "secp384r1"
	case tls.CurveP521:
		return "secp521r1"
	}
	return id.String()
}

// clientVerify is $ssl_client_verify: NONE without a client certificate,
// SUCCESS when it was verified, FAILED:reason otherwise.
func clientVerify(cs *tls.ConnectionState) string {
	switch {
	case len(cs.PeerCertificates) == 0:
		return "NONE"
	case len(cs.VerifiedChains) > 0:
		return "SUCCESS"
	}
	return "FAILED:unable to verify the first certificate"
}

func rawCert(c *x509.Certificate) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
}

// escapeComponent percent-encodes everything but letters, digits and
// "-._~", as NGINX escapes a URI component.
func escapeComponent(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// serialHex is the serial number as OpenSSL prints it: upper-case hex of
// whole bytes.
func serialHex(c *x509.Certificate) string {
	if c.SerialNumber == nil {
		return ""
	}
	s := strings.ToUpper(c.SerialNumber.Text(16))
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if len(s)%2 == 1 {
		s = "0" + s
	}
	if neg {
		s = "-" + s
	}
	return s
}

// asn1Time is a certificate time as OpenSSL's ASN1_TIME_print writes it.
func asn1Time(t time.Time) string {
	return t.UTC().Format("Jan _2 15:04:05 2006 GMT")
}

// attrNames are OpenSSL's short names of the attribute types found in
// distinguished names.
var attrNames = map[string]string{
	"2.5.4.3":                    "CN",
	"2.5.4.4":                    "SN",
	"2.5.4.5":                    "serialNumber",
	"2.5.4.6":                    "C",
	"2.5.4.7":                    "L",
	"2.5.4.8":                    "ST",
	"2.5.4.9":                    "street",
	"2.5.4.10":                   "O",
	"2.5.4.11":                   "OU",
	"2.5.4.12":                   "title",
	"2.5.4.17":                   "postalCode",
	"2.5.4.42":                   "GN",
	"2.5.4.43":                   "initials",
	"2.5.4.46":                   "dnQualifier",
	"2.5.4.65":                   "pseudonym",
	"0.9.2342.19200300.100.1.1":  "UID",
	"0.9.2342.19200300.100.1.25": "DC",
	"1.2.840.113549.1.9.1":       "emailAddress",
}

// parseRDNs decodes a DER distinguished name.
func parseRDNs(der []byte) (pkix.RDNSequence, bool) {
	var seq pkix.RDNSequence
	rest, err := asn1.Unmarshal(der, &seq)
	return seq, err == nil && len(rest) == 0
}

// dnRFC2253 prints a distinguished name as OpenSSL's XN_FLAG_RFC2253
// does: the last RDN first, "," between RDNs and "+" inside one, RFC 2253
// escapes, bytes above 0x7f as \XX, and types OpenSSL has no name for as
// their OID with the value's DER in hex.
func dnRFC2253(der []byte) string {
	seq, ok := parseRDNs(der)
	if !ok {
		return ""
	}
	var b strings.Builder
	for i := len(seq) - 1; i >= 0; i-- {
		if i < len(seq)-1 {
			b.WriteByte(',')
		}
		for j, atv := range seq[i] {
			if j > 0 {
				b.WriteByte('+')
			}
			oid := atv.Type.String()
			name, known := attrNames[oid]
			s, isString := atv.Value.(string)
			if !known || !isString {
				raw, _ := asn1.Marshal(atv.Value)
				b.WriteString(oid + "=#" + strings.ToUpper(hex.EncodeToString(raw)))
				continue
			}
			b.WriteString(name)
			b.WriteByte('=')
			b.WriteString(escape2253(s))
		}
	}
	return b.String()
}

func escape2253(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case strings.IndexByte(",+\"\\<>;", c) >= 0,
			c == '#' && i == 0,
			c == ' ' && (i == 0 || i == len(s)-1):
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dnLegacy prints a distinguished name as X509_NAME_oneline does:
// "/C=US/O=Example/CN=name", first RDN first.
func dnLegacy(der []byte) string {
	seq, ok := parseRDNs(der)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, rdn := range seq {
		for j, atv := range rdn {
			if j == 0 {
				b.WriteByte('/')
			} else {
				b.WriteByte('+')
			}
			oid := atv.Type.String()
			name, known := attrNames[oid]
			if !known {
				name = oid
			}
			s, _ := atv.Value.(string)
			b.WriteString(name + "=" + s)
		}
	}
	return b.String()
}
