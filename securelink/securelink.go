// Package securelink checks the links of NGINX's
// ngx_http_secure_link_module: a base64url MD5 hash of a text only the
// server and the link's issuer can build, with an optional expiry time
// (secure_link and secure_link_md5), or the older form
// /prefix/md5hex/link hashed with a secret word (secure_link_secret). It
// knows nothing of configuration files or variables;
// modules/securelinkmod makes $secure_link and $secure_link_expires of
// it.
package securelink

import (
	"crypto/md5"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"
)

// Results of Link.Verify, the values of NGINX's $secure_link.
const (
	NotFound = ""  // no hash, a malformed one, or one of another text
	Expired  = "0" // the right hash, past its expiry time
	Valid    = "1" // the right hash, in time
)

// Link is the value of secure_link, read: "hash" or "hash,expires".
type Link struct {
	// Expires is the expiry time as the link gave it, once it parsed as
	// a positive number of seconds (whatever the hash), else "": NGINX's
	// $secure_link_expires. secure_link_md5's text usually includes it.
	Expires string
	expires int64
	sum     []byte
}

// maxHash is the longest hash text NGINX decodes: 16 bytes in base64
// with padding.
const maxHash = 24

// Parse reads link as NGINX does: the hash up to the first comma, in
// base64url (see decodeBase64URL), and after it an expiry time in
// seconds since the epoch. ok is false when the link can never be valid
// (NotFound): a bad expiry time, a hash too long or not of 16 bytes.
func Parse(link string) (l Link, ok bool) {
	hash := link
	if i := strings.IndexByte(link, ','); i >= 0 {
		hash = link[:i]
		n, ok := parseSeconds(link[i+1:])
		if !ok || n <= 0 {
			return l, false
		}
		l.expires, l.Expires = n, link[i+1:]
	}
	if len(hash) > maxHash {
		return l, false
	}
	sum, ok := decodeBase64URL(hash)
	if !ok || len(sum) != md5.Size {
		return l, false
	}
	l.sum = sum
	return l, true
}

// Verify compares the link's hash with the MD5 of text, the value of
// secure_link_md5, and returns NotFound, Expired (the right hash past
// the expiry time, by now) or Valid.
func (l Link) Verify(text string, now time.Time) string {
	want := md5.Sum([]byte(text))
	if len(l.sum) != md5.Size || subtle.ConstantTimeCompare(l.sum, want[:]) != 1 {
		return NotFound
	}
	if l.expires != 0 && l.expires < now.Unix() {
		return Expired
	}
	return Valid
}

// Hash returns the hash secure_link expects for text: its MD5 in
// base64url without padding, as `openssl md5 -binary | openssl base64 |
// tr +/ -_ | tr -d =` makes it.
func Hash(text string) string {
	sum := md5.Sum([]byte(text))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// VerifySecret checks the older form of secure_link_secret: target is the
// request's target as sent, "/prefix/md5hex/link" (arguments included),
// whose hex MD5 is that of link followed by secret. It returns the link
// and true when they agree.
func VerifySecret(target, secret string) (string, bool) {
	if target == "" {
		return "", false
	}
	// NGINX skips the first byte, then takes the text between the next
	// two slashes as the hash.
	rest := target[1:]
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return "", false
	}
	rest = rest[i+1:]
	j := strings.IndexByte(rest, '/')
	if j < 0 {
		return "", false
	}
	hexHash, link := rest[:j], rest[j+1:]
	if len(hexHash) != 2*md5.Size || link == "" {
		return "", false
	}
	got, err := hex.DecodeString(hexHash)
	if err != nil {
		return "", false
	}
	want := md5.Sum([]byte(link + secret))
	if subtle.ConstantTimeCompare(got, want[:]) != 1 {
		return "", false
	}
	return link, true
}

// SecretHash returns the hex MD5 that VerifySecret expects for link.
func SecretHash(link, secret string) string {
	sum := md5.Sum([]byte(link + secret))
	return hex.EncodeToString(sum[:])
}

// parseSeconds reads decimal digits as NGINX's ngx_atotm: at least one,
// nothing else, refused past the largest time_t.
func parseSeconds(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// decodeBase64URL decodes as NGINX's ngx_decode_base64url: the text up to
// the first "=" (what follows is ignored), in the URL alphabet, whose
// length must not leave a single character over; the bits left over in
// the last character are ignored.
func decodeBase64URL(s string) ([]byte, bool) {
	if i := strings.IndexByte(s, '='); i >= 0 {
		s = s[:i]
	}
	if len(s)%4 == 1 {
		return nil, false
	}
	out := make([]byte, 0, len(s)*3/4)
	var acc uint
	bits := 0
	for i := 0; i < len(s); i++ {
		v := base64URLValue(s[i])
		if v < 0 {
			return nil, false
		}
		acc = acc<<6 | uint(v)
		bits += 6
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	return out, true
}

func base64URLValue(c byte) int {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 26
	case c >= '0' && c <= '9':
		return int(c-'0') + 52
	case c == '-':
		return 62
	case c == '_':
		return 63
	}
	return -1
}
