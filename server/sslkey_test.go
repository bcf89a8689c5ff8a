package server

import (
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Keys that openssl encrypts, in the PKCS#8 form of OpenSSL 3 and in the
// old PEM form, are read with the right line of the password file and
// refused with none.
func TestEncryptedKeys(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl command")
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "k.pem")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
	run("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", plain)
	forms := map[string][]string{
		"pkcs8 aes-256 sha256": {"pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", plain, "-passout", "pass:right"},
		"pkcs8 aes-128 sha1":   {"pkcs8", "-topk8", "-v2", "aes-128-cbc", "-v2prf", "hmacWithSHA1", "-in", plain, "-passout", "pass:right"},
		"pkcs8 3des sha512":    {"pkcs8", "-topk8", "-v2", "des3", "-v2prf", "hmacWithSHA512", "-in", plain, "-passout", "pass:right"},
		"traditional":          {"pkey", "-in", plain, "-aes256", "-passout", "pass:right", "-traditional"},
	}
	for name, args := range forms {
		out := filepath.Join(dir, "enc.pem")
		run(append(args, "-out", out)...)
		enc, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecryptKeyPEM(enc, []string{"wrong", "right"})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if blk, _ := pem.Decode(got); blk == nil || !keyParses(blk.Type, blk.Bytes) {
			t.Errorf("%s: no key in %q", name, got)
		}
		if _, err := DecryptKeyPEM(enc, []string{"wrong"}); err == nil {
			t.Errorf("%s: decrypted with a wrong password", name)
		}
	}
}

func FuzzDecryptPKCS8(f *testing.F) {
	old := maxPBKDF2Iterations
	maxPBKDF2Iterations = 64 // each input stays quick
	f.Cleanup(func() { maxPBKDF2Iterations = old })
	f.Add([]byte{0x30, 0x00}, "pw")
	f.Fuzz(func(t *testing.T, der []byte, pw string) {
		_, _ = decryptPKCS8(der, pw)
	})
}
