package server

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// opensslSuites asks the openssl command which suites a cipher string
// enables, keeping those Go implements; ok is false when openssl refuses
// the string.
func opensslSuites(t *testing.T, spec string) (names []string, ok bool) {
	t.Helper()
	out, err := exec.Command("openssl", "ciphers", spec).Output()
	if err != nil {
		return nil, false
	}
	known := map[string]bool{}
	for _, s := range goSuites {
		known[s.name] = true
	}
	for _, n := range strings.Split(strings.TrimSpace(string(out)), ":") {
		if known[n] {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, true
}

// The cipher strings of real configurations and of NGINX's and Mozilla's
// documentation select the same Go suites as OpenSSL's own parser does.
func TestCipherStringsMatchOpenSSL(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("no openssl command")
	}
	// The suites this OpenSSL build has at all (3DES is often left out).
	have, _ := opensslSuites(t, "ALL:COMPLEMENTOFALL")
	for _, spec := range []string{
		"HIGH:!aNULL:!MD5",
		"DEFAULT",
		"ALL",
		"ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384",
		"EECDH+AESGCM:EDH+AESGCM",
		"EECDH+AESGCM:EDH+AESGCM:AES256+EECDH:AES256+EDH",
		"EECDH+CHACHA20:EECDH+AES128:RSA+AES128:EECDH+AES256:RSA+AES256:EECDH+3DES:RSA+3DES:!MD5",
		"ECDH+AESGCM:ECDH+AES256:ECDH+AES128:DH+3DES:!ADH:!AECDH:!MD5",
		"HIGH:!aNULL:!MD5:!kRSA",
		"HIGH:-AES256:AES256-SHA",
		"HIGH:!AES256:AES256-SHA",
		"kECDHE+aECDSA+AESGCM",
		"ALL:!SHA1:!SHA256:!SHA384",
		"AES128+SHA256 AES256,CHACHA20",
		"TLSv1.2:!aRSA",
		"SSLv3",
		"TLSv1",
		"MEDIUM:HIGH:@STRENGTH",
		"AESGCM:-ECDSA:+RSA",
		"ECDSA:RSA",
		"aRSA+SHA1",
	} {
		want, ok := opensslSuites(t, spec)
		ids, _, _, err := ParseCiphers(spec)
		if !ok {
			if err == nil {
				t.Errorf("%q: openssl refuses it, mosaic takes it", spec)
			}
			continue
		}
		var got []string
		for _, id := range ids {
			for _, s := range goSuites {
				if s.id == id && slices.Contains(have, s.name) {
					got = append(got, s.name)
				}
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n mosaic  %v\n openssl %v", spec, got, want)
		}
	}
}

func TestCipherStringErrors(t *testing.T) {
	for _, spec := range []string{"", "DHE-RSA-AES128-GCM-SHA256", "ALL:!ALL", "nonsense", "TLS_AES_128_GCM_SHA256"} {
		if _, _, _, err := ParseCiphers(spec); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
	_, tls13, _, err := ParseCiphers("TLS_AES_128_GCM_SHA256:HIGH")
	if err != nil || len(tls13) != 1 {
		t.Errorf("TLS 1.3 names: %v %v", tls13, err)
	}
}

func FuzzParseCiphers(f *testing.F) {
	for _, s := range []string{"HIGH:!aNULL:!MD5", "EECDH+AESGCM:-RSA", "+a:!b,c d;@STRENGTH", "!", "-+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		ids, _, _, err := ParseCiphers(spec)
		if err == nil && len(ids) == 0 {
			t.Fatal("no suites and no error")
		}
		if len(ids) > len(goSuites) {
			t.Fatal("too many suites")
		}
	})
}
