package securelink

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	now := time.Unix(2_000_000_000, 0)
	text := func(exp string) string { return exp + "/a secret" }
	good := Hash(text("2000000100"))
	noExp := Hash(text(""))
	for _, c := range []struct {
		link, text, want, expires string
	}{
		{good + ",2000000100", text("2000000100"), Valid, "2000000100"},
		{Hash(text("1999999999")) + ",1999999999", text("1999999999"), Expired, "1999999999"},
		{Hash(text("2000000000")) + ",2000000000", text("2000000000"), Valid, "2000000000"}, // not before now
		{good + ",2000000100", text("2000000101"), NotFound, "2000000100"},
		{noExp, text(""), Valid, ""},
		{noExp + "==", text(""), Valid, ""},
		{noExp + "=x", text(""), Valid, ""},     // what follows "=" is ignored
		{noExp + "=xy", text(""), NotFound, ""}, // longer than 24
		{noExp[:21], text(""), NotFound, ""},
		{noExp[:20], text(""), NotFound, ""},
		{noExp + "AA", text(""), NotFound, ""},
		{strings.NewReplacer("-", "+", "_", "/").Replace(noExp) + "+", text(""), NotFound, ""},
		{noExp + ",0", text(""), NotFound, ""},
		{noExp + ",", text(""), NotFound, ""},
		{noExp + ",-1", text(""), NotFound, ""},
		{noExp + ",1x", text(""), NotFound, ""},
		{noExp + ",99999999999999999999", text(""), NotFound, ""},
		{Hash("9223372036854775807/a secret") + ",9223372036854775807", "9223372036854775807/a secret", Valid, "9223372036854775807"},
		{"", text(""), NotFound, ""},
	} {
		l, ok := Parse(c.link)
		got := NotFound
		if ok {
			got = l.Verify(c.text, now)
		}
		if got != c.want || l.Expires != c.expires {
			t.Errorf("%q: %q %q, want %q %q", c.link, got, l.Expires, c.want, c.expires)
		}
	}
}

// TestLooseLastCharacter: the bits of the last character beyond the hash
// are ignored, as NGINX's decoder ignores them.
func TestLooseLastCharacter(t *testing.T) {
	h := Hash("x")
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	loose := h[:21] + string(alphabet[strings.IndexByte(alphabet, h[21])^3])
	if l, ok := Parse(loose); !ok || l.Verify("x", time.Now()) != Valid {
		t.Errorf("%q refused for %q", loose, h)
	}
}

func TestVerifySecret(t *testing.T) {
	h := SecretHash("link/x.zip", "word")
	for _, c := range []struct {
		target, link string
		ok           bool
	}{
		{"/p/" + h + "/link/x.zip", "link/x.zip", true},
		{"/p/" + strings.ToUpper(h) + "/link/x.zip", "link/x.zip", true},
		{"/pp/q/" + h + "/link/x.zip", "", false}, // the hash is the second segment
		{"/p/" + h + "/link/x.zi", "", false},
		{"/p/" + h[:31] + "/link/x.zip", "", false},
		{"/p/" + h[:31] + "g/link/x.zip", "", false},
		{"/p/" + SecretHash("", "word") + "/", "", false},
		{"/p/" + h, "", false},
		{"/p/", "", false},
		{"/", "", false},
		{"", "", false},
	} {
		link, ok := VerifySecret(c.target, "word")
		if link != c.link || ok != c.ok {
			t.Errorf("%q: %q %v, want %q %v", c.target, link, ok, c.link, c.ok)
		}
	}
}

// FuzzParse: the decoder agrees with encoding/base64 on the canonical
// unpadded texts it accepts, and never panics.
func FuzzParse(f *testing.F) {
	for _, s := range []string{Hash("a"), Hash("b") + "==", Hash("c") + ",123", "a=b,1", ",", "====", "-_-_"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, ok := Parse(s)
		if ok && len(l.sum) != md5.Size {
			t.Fatalf("%q: %d bytes", s, len(l.sum))
		}
		hash, _, _ := strings.Cut(s, ",")
		want, err := base64.RawURLEncoding.Strict().DecodeString(hash)
		// encoding/base64 skips line breaks, which NGINX refuses.
		if err == nil && len(hash) <= maxHash && !strings.ContainsAny(hash, "\r\n") {
			got, ok := decodeBase64URL(hash)
			if !ok || !bytes.Equal(got, want) {
				t.Errorf("%q: %x %v, want %x", hash, got, ok, want)
			}
		}
	})
}

// FuzzVerifySecret: any request target is judged without panic, and one
// accepted names a link whose hash it carries.
func FuzzVerifySecret(f *testing.F) {
	for _, s := range []string{"/p/" + SecretHash("x", "w") + "/x", "/", "", "//", "/p//x", "/a/b/c?d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		link, ok := VerifySecret(target, "w")
		if ok && !strings.Contains(strings.ToLower(target), SecretHash(link, "w")+"/"+strings.ToLower(link)) {
			t.Errorf("%q: accepted %q", target, link)
		}
	})
}
