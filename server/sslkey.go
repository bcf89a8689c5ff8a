package server

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"hash"
	"os"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
)

// Encrypted private keys (ssl_password_file). NGINX lets OpenSSL read a
// key protected by a passphrase, trying each line of the password file in
// turn. Go reads the old PEM encryption ("Proc-Type: 4,ENCRYPTED", what
// "openssl rsa -aes256 -traditional" writes) with x509.DecryptPEMBlock;
// the PKCS#8 form that OpenSSL 3 writes by default ("ENCRYPTED PRIVATE
// KEY", PBES2: PBKDF2 with HMAC-SHA1/SHA-256/SHA-512 and AES or 3DES in
// CBC mode) is decoded here.

// ReadPasswordFile reads a password file for the directive at (the
// proxy's *_ssl_password_file): one passphrase a line.
func ReadPasswordFile(path string, at *conf.Directive) ([]string, error) {
	return readPasswords(sslPath{path: path, at: at})
}

// readPasswords reads ssl_password_file: one passphrase a line.
func readPasswords(p sslPath) ([]string, error) {
	b, err := os.ReadFile(p.path)
	if err != nil {
		return nil, conf.Errorf(p.at, "open() %q failed: %v", p.path, err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimRight(l, "\r")
		if l != "" {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return nil, conf.Errorf(p.at, "empty file %q", p.path)
	}
	return out, nil
}

// loadKeyPair is tls.LoadX509KeyPair that also reads an encrypted key
// with one of passwords.
func loadKeyPair(certFile, keyFile string, passwords []string) (tls.Certificate, error) {
	if len(passwords) == 0 {
		return tls.LoadX509KeyPair(certFile, keyFile)
	}
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	plain, err := DecryptKeyPEM(keyPEM, passwords)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, plain)
}

// DecryptKeyPEM returns keyPEM with its first private key decrypted with
// one of passwords (a key that is not encrypted is returned as it is).
func DecryptKeyPEM(keyPEM []byte, passwords []string) ([]byte, error) {
	for rest := keyPEM; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return keyPEM, nil
		}
		switch {
		case blk.Type == "ENCRYPTED PRIVATE KEY":
			for _, pw := range passwords {
				der, err := decryptPKCS8(blk.Bytes, pw)
				if err != nil {
					continue
				}
				if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
					return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
				}
			}
			return nil, errors.New("bad password read")
		case strings.HasSuffix(blk.Type, "PRIVATE KEY") && x509.IsEncryptedPEMBlock(blk):
			// Deprecated in Go for its weak padding check (keyParses
			// makes up for it), but the old form is one NGINX reads.
			for _, pw := range passwords {
				der, err := x509.DecryptPEMBlock(blk, []byte(pw))
				if err != nil {
					continue
				}
				if keyParses(blk.Type, der) {
					return pem.EncodeToMemory(&pem.Block{Type: blk.Type, Bytes: der}), nil
				}
			}
			return nil, errors.New("bad password read")
		case strings.HasSuffix(blk.Type, "PRIVATE KEY"):
			return keyPEM, nil
		}
	}
}

// keyParses checks a decrypted old-form key: a wrong password may pass
// the padding check and give garbage.
func keyParses(typ string, der []byte) bool {
	var err error
	switch typ {
	case "RSA PRIVATE KEY":
		_, err = x509.ParsePKCS1PrivateKey(der)
	case "EC PRIVATE KEY":
		_, err = x509.ParseECPrivateKey(der)
	default:
		_, err = x509.ParsePKCS8PrivateKey(der)
	}
	return err == nil
}

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)

type encryptedPKCS8 struct {
	Algorithm pkix.AlgorithmIdentifier
	Data      []byte
}

type pbes2Params struct {
	KDF    pkix.AlgorithmIdentifier
	Cipher pkix.AlgorithmIdentifier
}

type pbkdf2Params struct {
	Salt       []byte
	Iterations int
	KeyLength  int                      `asn1:"optional"`
	PRF        pkix.AlgorithmIdentifier `asn1:"optional"`
}

// maxPBKDF2Iterations bounds the work a key file may ask for (a
// variable for the fuzz target, which keeps each input quick).
var maxPBKDF2Iterations = 10_000_000

// decryptPKCS8 decrypts a PKCS#8 EncryptedPrivateKeyInfo with PBES2.
func decryptPKCS8(der []byte, password string) ([]byte, error) {
	var info encryptedPKCS8
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed encrypted key")
	}
	if !info.Algorithm.Algorithm.Equal(oidPBES2) {
		return nil, fmt.Errorf("unsupported key encryption %s", info.Algorithm.Algorithm)
	}
	var params pbes2Params
	if _, err := asn1.Unmarshal(info.Algorithm.Parameters.FullBytes, &params); err != nil {
		return nil, errors.New("malformed PBES2 parameters")
	}
	if !params.KDF.Algorithm.Equal(oidPBKDF2) {
		return nil, fmt.Errorf("unsupported key derivation %s", params.KDF.Algorithm)
	}
	var kdf pbkdf2Params
	if _, err := asn1.Unmarshal(params.KDF.Parameters.FullBytes, &kdf); err != nil {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	if kdf.Iterations < 1 || kdf.Iterations > maxPBKDF2Iterations {
		return nil, errors.New("PBKDF2 iteration count out of range")
	}
	var prf func() hash.Hash
	switch a := kdf.PRF.Algorithm; {
	case len(a) == 0 || a.Equal(oidHMACSHA1):
		prf = sha1.New
	case a.Equal(oidHMACSHA256):
		prf = sha256.New
	case a.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, fmt.Errorf("unsupported PBKDF2 function %s", a)
	}
	var iv []byte
	if _, err := asn1.Unmarshal(params.Cipher.Parameters.FullBytes, &iv); err != nil {
		return nil, errors.New("malformed cipher parameters")
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch a := params.Cipher.Algorithm; {
	case a.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case a.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case a.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case a.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, fmt.Errorf("unsupported key cipher %s", a)
	}
	key, err := pbkdf2.Key(prf, password, kdf.Salt, kdf.Iterations, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(iv) != bs || len(info.Data) == 0 || len(info.Data)%bs != 0 {
		return nil, errors.New("malformed encrypted key")
	}
	out := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, iv).CryptBlocks(out, info.Data)
	// PKCS#7 padding: a wrong password shows here most of the time.
	n := int(out[len(out)-1])
	if n == 0 || n > bs || !bytes.Equal(out[len(out)-n:], bytes.Repeat([]byte{byte(n)}, n)) {
		return nil, errors.New("bad password")
	}
	return out[:len(out)-n], nil
}
