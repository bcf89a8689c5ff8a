package auth

import (
	"crypto/sha1"
	"crypto/subtle"
	"encoding/base64"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/basicauth"
	"golang.org/x/crypto/bcrypt"
)

// Supported reports whether Match can check a password against stored:
// "$apr1$", "{PLAIN}", "{SSHA}" and "{SHA}" (NGINX's own), and what
// NGINX leaves to the system's crypt(3) that mosaic implements: bcrypt
// ("$2a$", "$2b$", "$2y$"), MD5-crypt ("$1$"), SHA-crypt ("$5$", "$6$")
// and the traditional DES crypt (13 characters). Other crypt(3) schemes
// (yescrypt "$y$", scrypt "$7$", ...) never match.
func Supported(stored string) bool {
	switch scheme(stored) {
	case "", "unknown":
		return false
	}
	return true
}

func scheme(stored string) string {
	for _, p := range []string{"$apr1$", "{PLAIN}", "{SSHA}", "{SHA}", "$1$", "$5$", "$6$", "$2a$", "$2b$", "$2y$"} {
		if strings.HasPrefix(stored, p) {
			return p
		}
	}
	if len(stored) == 13 {
		if _, ok := saltValue(stored[0]); ok {
			if _, ok := saltValue(stored[1]); ok {
				return "des"
			}
		}
	}
	return "unknown"
}

// maxCryptPassphrase is libxcrypt's CRYPT_MAX_PASSPHRASE_SIZE: its
// crypt(3) fails for a passphrase of this length or more.
const maxCryptPassphrase = 512

// Match reports whether password matches stored, a hash as an htpasswd
// file holds it, the way NGINX checks one: the password's hash, made
// with stored as the salt, must equal stored. As in NGINX, which handles
// both as C strings, each ends at its first NUL byte. As with the
// system's crypt(3), a password of 512 bytes or more never matches a
// crypt(3) scheme ($1$, $5$, $6$, bcrypt, DES). The comparison takes the
// same time wherever the two differ.
func Match(password, stored string) bool {
	password, stored = cString(password), cString(stored)
	pw := []byte(password)
	s := scheme(stored)
	switch s {
	case "$1$", "$5$", "$6$", "$2a$", "$2b$", "$2y$", "des":
		// The schemes NGINX leaves to Debian's crypt(3) (libxcrypt),
		// which refuses a passphrase of maxCryptPassphrase bytes or
		// more: such a password never matches in NGINX. Refusing it
		// before hashing also bounds a client's work: SHA-crypt hashes
		// the password once per byte of it (a 6 kB one took 100 ms).
		if len(pw) >= maxCryptPassphrase {
			return false
		}
	}
	var computed string
	switch s {
	case "$apr1$":
		computed = md5Crypt(pw, "$apr1$", stored)
	case "$1$":
		computed = md5Crypt(pw, "$1$", stored)
	case "{PLAIN}":
		computed = "{PLAIN}" + password
	case "{SHA}":
		sum := sha1.Sum(pw)
		computed = "{SHA}" + base64.StdEncoding.EncodeToString(sum[:])
	case "{SSHA}":
		computed = sshaCrypt(pw, stored)
	case "$5$", "$6$":
		var ok bool
		if computed, ok = shaCrypt(pw, stored); !ok {
			return false
		}
	case "$2a$", "$2b$", "$2y$":
		// bcrypt reads at most 72 bytes of a password, as the system's
		// crypt does; x/crypto refuses longer ones rather than cut them.
		if len(pw) > 72 {
			pw = pw[:72]
		}
		return bcrypt.CompareHashAndPassword([]byte(stored), pw) == nil
	case "des":
		var ok bool
		if computed, ok = desCrypt(pw, stored); !ok {
			return false
		}
	default:
		return false
	}
	return subtle.ConstantTimeCompare([]byte(computed), []byte(stored)) == 1
}

// sshaCrypt is "{SSHA}" base64(SHA1(password salt) salt), the salt being
// what follows the first 20 bytes of stored's decoded value (none when
// it does not decode to at least 20 bytes, as in NGINX).
func sshaCrypt(pw []byte, stored string) string {
	decoded, ok := basicauth.DecodeBase64(strings.TrimPrefix(stored, "{SSHA}"))
	var salt []byte
	if ok && len(decoded) >= 20 {
		salt = decoded[20:]
	}
	h := sha1.New()
	h.Write(pw)
	h.Write(salt)
	return "{SSHA}" + base64.StdEncoding.EncodeToString(append(h.Sum(nil), salt...))
}

func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
