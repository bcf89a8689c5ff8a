package auth

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/cputime"
)

// Vectors made by "openssl passwd" (-apr1, -1, -5, -6), by the system's
// crypt(3) through perl (bcrypt, DES) and by "openssl dgst -sha1".
var vectors = []struct{ password, hash string }{
	{"password", "$apr1$xxxxxxxx$dxHfLAsjHkDRmG83UXe8K0"},
	{"", "$apr1$abc$BfqKdn9xFDWJPa3kcp/PH0"},
	{"pass word", "$1$saltsalt$1K7dkhtbTNVUwUicA5kOT1"},
	{"secret", "$5$saltstring$C3o4O1TC6aRHF4FI.QSZMXtHbaj2gSXr4sUc/3NcUi."},
	{"secret", "$6$saltstring$AIsRs/Ee56G/tC8MEHhvReZTfx8u3rXXMl6eYrjCG9ibix19DxoMBLogdTET5Ukw9Sf7eZTITsuk0Ry5qulYz."},
	{"x", "$6$rounds=1000$abcd$YzKDp2z/HLq4p6De4aO4b.bIQmNSQeNy4v40I2G8Gk4eqRCIpWAYoHZtogd4VuVwdn1E7C2xHrVt8ZovraLdC1"},
	{"secret", "$2y$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW"},
	{"secret", "$2a$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW"},
	{"secret", "zz1T8N4tWvmbE"},
	{"12345678abc", "AblUWF9Hc6PgQ"},
	{"12345678", "AblUWF9Hc6PgQ"}, // DES reads 8 characters
	{strings.Repeat("x", 80), "$2b$04$abcdefghijklmnopqrstuubzadhGtS2zEF.gu0yd0opP6cVzb.e0i"},
	{strings.Repeat("x", 72), "$2b$04$abcdefghijklmnopqrstuubzadhGtS2zEF.gu0yd0opP6cVzb.e0i"},
	{"secret", "{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ="},
	{"secret", "{PLAIN}secret"},
	{"secret\x00tail", "{PLAIN}secret"}, // C strings, as in NGINX
	{"secret", "{SSHA}" + ssha("secret", "salt")},
}

func ssha(pw, salt string) string {
	return strings.TrimPrefix(sshaCrypt([]byte(pw), "{SSHA}"+base64.StdEncoding.EncodeToString(append(make([]byte, 20), salt...))), "{SSHA}")
}

func TestMatchVectors(t *testing.T) {
	for _, v := range vectors {
		if !Match(v.password, v.hash) {
			t.Errorf("Match(%q, %q) = false", v.password, v.hash)
		}
		if Match("!"+v.password, v.hash) {
			t.Errorf("Match(%q, %q) = true", "!"+v.password, v.hash)
		}
		// A hash changed in its last character never matches.
		b := []byte(v.hash)
		b[len(b)-1] ^= 1
		if Match(v.password, string(b)) {
			t.Errorf("Match(%q, %q) = true", v.password, b)
		}
	}
	for _, h := range []string{"", "$y$j9T$abc$def", "$7$xyz", "plain", "{PLAIN}", "$apr", "$2b$04$short", "a"} {
		if Match("", h) && h != "{PLAIN}" {
			t.Errorf("Match(\"\", %q) = true", h)
		}
	}
	if !Match("", "{PLAIN}") {
		t.Error("an empty {PLAIN} password does not match")
	}
}

// TestMatchSystemCrypt compares the implementations with the system's
// crypt(3), which NGINX calls, on random passwords and salts.
func TestMatchSystemCrypt(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is not installed")
	}
	var args []string
	for i := 0; i < 12; i++ {
		pw := randomString(i*3, "abcXYZ019 !$:\x7f\xe9")
		for _, setting := range []string{
			randomString(2, itoa64),
			"$1$" + randomString(i%9, itoa64) + "$",
			"$5$" + randomString(i+4, itoa64) + "$",
			"$6$" + randomString(16, itoa64) + "$",
			"$2b$04$" + randomString(21, itoa64) + "u",
		} {
			args = append(args, pw, setting)
		}
	}
	out, err := exec.Command("perl", append([]string{"-e",
		`while (@ARGV) { my $p = shift; my $s = shift; print crypt($p, $s), "\n" }`}, args...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	hashes := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(hashes) != len(args)/2 {
		t.Fatalf("%d hashes for %d settings", len(hashes), len(args)/2)
	}
	for i, h := range hashes {
		if !Match(args[2*i], h) {
			t.Errorf("crypt(%q, %q) = %q: no match", args[2*i], args[2*i+1], h)
		}
	}
}

// TestMatchLongPassword: the system's crypt(3), which NGINX calls for
// these schemes, refuses a password of 512 bytes or more ("*0"), so none
// matches, even against the hash mosaic itself would make of it; one
// byte shorter still matches the system's hash.
func TestMatchLongPassword(t *testing.T) {
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("perl is not installed")
	}
	settings := []string{"ab", "$1$saltsalt$", "$5$saltstring$", "$6$saltstring$", "$2b$04$abcdefghijklmnopqrstuu"}
	for _, n := range []int{511, 512} {
		pw := strings.Repeat("x", n)
		out, err := exec.Command("perl", append([]string{"-e",
			`my $p = shift; print crypt($p, $_), "\n" for @ARGV`, pw}, settings...)...).Output()
		if err != nil {
			t.Fatal(err)
		}
		for i, h := range strings.Fields(string(out)) {
			if n < 512 {
				if !Match(pw, h) {
					t.Errorf("%d bytes, crypt %q: no match", n, h)
				}
				continue
			}
			if h != "*0" {
				t.Fatalf("the system's crypt of %d bytes with %q gave %q", n, settings[i], h)
			}
			var own string
			switch scheme(settings[i]) {
			case "$1$":
				own = md5Crypt([]byte(pw), "$1$", settings[i])
			case "$5$", "$6$":
				own, _ = shaCrypt([]byte(pw), settings[i])
			default:
				continue // bcrypt and DES read only the first bytes
			}
			if Match(pw, own) {
				t.Errorf("%d bytes matched %q, which the system's crypt refuses", n, own)
			}
		}
	}
	// Nor does mosaic spend the square of the length on one (SHA-crypt).
	// Timed in processor time (cputime): the wall clock charged it the
	// time a loaded machine gave other processes.
	if d := cputime.Of(func() {
		Match(strings.Repeat("x", 6000), "$6$saltstring$AIsRs/Ee56G/tC8MEHhvReZTfx8u3rXXMl6eYrjCG9ibix19DxoMBLogdTET5Ukw9Sf7eZTITsuk0Ry5qulYz.")
	}); d > 20*time.Millisecond {
		t.Errorf("a 6000-byte password took %v of processor time", d)
	}
}

// TestMatchOpenSSLAPR1 checks Apache's MD5 against "openssl passwd -apr1".
func TestMatchOpenSSLAPR1(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl is not installed")
	}
	for i := 0; i < 4; i++ {
		pw, salt := randomString(i*5+1, itoa64), randomString(8, itoa64)
		out, err := exec.Command("openssl", "passwd", "-apr1", "-salt", salt, pw).Output()
		if err != nil {
			t.Fatal(err)
		}
		h := strings.TrimSpace(string(out))
		if !Match(pw, h) || Match(pw+"x", h) {
			t.Errorf("%q %q: %q", pw, salt, h)
		}
	}
}

func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	for i := range b {
		k, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

func TestLookup(t *testing.T) {
	file := "# comment\n\nalice:{PLAIN}a:comment\r\n bob:{PLAIN}spaced\nbob:{PLAIN}b\ncarol:{PLAIN}c\r\n" +
		"carol:{PLAIN}second\ndave\ndave:{PLAIN}hidden\neve:{PLAIN}last"
	for _, c := range []struct {
		user, hash string
		ok         bool
	}{
		{"alice", "{PLAIN}a", true},
		{"bob", "{PLAIN}b", true},
		{" bob", "{PLAIN}spaced", true},
		{"carol", "{PLAIN}c", true},
		// "dave" without ":" ends at LF while matching: NGINX's reader
		// then skips the next line as well.
		{"dave", "", false},
		{"eve", "{PLAIN}last", true},
		{"# comment", "", false},
		{"mallory", "", false},
		{"ali", "", false},
	} {
		h, ok := Lookup([]byte(file), c.user)
		if h != c.hash || ok != c.ok {
			t.Errorf("Lookup(%q) = %q, %v; want %q, %v", c.user, h, ok, c.hash, c.ok)
		}
	}
}

// TestLookupLongField: NGINX reads a user file through a 2 KiB buffer
// and takes a password field that fills it as the hash, cut there.
func TestLookupLongField(t *testing.T) {
	field := "{PLAIN}" + strings.Repeat("p", 3000)
	for _, file := range []string{"ann:" + field + "\n", "bob:x\n" + "ann:" + field} {
		if h, ok := Lookup([]byte(file), "ann"); !ok || h != field[:2048] {
			t.Errorf("Lookup: %d bytes, %v; want the field's first 2048", len(h), ok)
		}
	}
}

// TestFilesReread: a user file is read again once it changes, in place
// or replaced by another file.
func TestFilesReread(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "htpasswd")
	write := func(s string, mtime time.Time) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	var files Files
	read := func() string {
		b, err := files.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	t0 := time.Now().Add(-time.Hour)
	write("a:{PLAIN}1\n", t0)
	if got := read(); got != "a:{PLAIN}1\n" {
		t.Fatalf("first read %q", got)
	}
	write("a:{PLAIN}2\n", t0.Add(time.Second)) // same size, newer
	if got := read(); got != "a:{PLAIN}2\n" {
		t.Fatalf("after an edit: %q", got)
	}
	tmp := filepath.Join(dir, "new")
	os.WriteFile(tmp, []byte("a:{PLAIN}3\n"), 0o644)
	os.Chtimes(tmp, t0.Add(time.Second), t0.Add(time.Second))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "a:{PLAIN}3\n" {
		t.Fatalf("after a rename over it: %q", got)
	}
	os.Remove(path)
	if _, err := files.Read(path); !os.IsNotExist(err) {
		t.Fatalf("removed file: %v", err)
	}
}

func TestBasicHandler(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users")
	os.WriteFile(path, []byte("ann:$apr1$xxxxxxxx$dxHfLAsjHkDRmG83UXe8K0\n"), 0o644)
	h := Basic(`Staff "only"`, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "in")
	}))
	for _, c := range []struct {
		user, pass string
		code       int
	}{{"ann", "password", 200}, {"ann", "wrong", 401}, {"bob", "password", 401}, {"", "", 401}} {
		r := httptest.NewRequest("GET", "/", nil)
		if c.user != "" {
			r.SetBasicAuth(c.user, c.pass)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.code {
			t.Errorf("%s:%s: %d, want %d", c.user, c.pass, w.Code, c.code)
		}
		if c.code == 401 && w.Header().Get("WWW-Authenticate") != `Basic realm="Staff "only""` {
			t.Errorf("challenge %q", w.Header().Get("WWW-Authenticate"))
		}
	}
	missing := Basic("x", filepath.Join(dir, "none"), http.NotFoundHandler())
	r := httptest.NewRequest("GET", "/", nil)
	r.SetBasicAuth("ann", "password")
	w := httptest.NewRecorder()
	missing.ServeHTTP(w, r)
	if w.Code != 403 {
		t.Errorf("missing file: %d, want 403", w.Code)
	}
}

func FuzzLookup(f *testing.F) {
	f.Add([]byte("a:b\n#c:d\r\nuser:{PLAIN}x:y"), "user")
	f.Add([]byte("u\nu:x"), "u")
	f.Fuzz(func(t *testing.T, data []byte, user string) {
		h, ok := Lookup(data, user)
		// Fed a byte at a time, as a file read in pieces, the reader
		// finds the same.
		l := lookup{want: user + ":"}
		for i := range data {
			if l.feed(data[i : i+1]) {
				break
			}
		}
		if h2, ok2 := l.result(); h2 != h || ok2 != ok {
			t.Fatalf("in pieces: %q %v, whole: %q %v", h2, ok2, h, ok)
		}
		if !ok {
			return
		}
		if strings.ContainsAny(h, "\r\n:") {
			t.Fatalf("hash %q holds a separator", h)
		}
		// The hash comes right after "user:" in the file.
		if !strings.Contains(string(data), user+":"+h) {
			t.Fatalf("hash %q of %q is not in the file", h, user)
		}
	})
}

// FuzzMatch feeds arbitrary stored hashes: Match must not panic, and a
// hash never matches a password it was not made from, as far as a
// second password tells.
func FuzzMatch(f *testing.F) {
	for _, v := range vectors {
		if !strings.HasPrefix(v.hash, "$2") && !strings.HasPrefix(v.hash, "$5$") && !strings.HasPrefix(v.hash, "$6$") {
			f.Add(v.password, v.hash)
		}
	}
	f.Fuzz(func(t *testing.T, password, stored string) {
		switch {
		case strings.HasPrefix(stored, "$2"), strings.HasPrefix(stored, "$5$"), strings.HasPrefix(stored, "$6$"):
			// Slow by design (bcrypt's cost, SHA-crypt's rounds); the
			// vectors and TestMatchSystemCrypt cover them.
			return
		case len(password) > 1024 && (strings.HasPrefix(stored, "$1$") || strings.HasPrefix(stored, "$apr1$")):
			// MD5-crypt hashes the password a thousand times over: a
			// fuzzed one of 128 KB takes a third of a second a call, and
			// stalled the run for most of a minute. (A request's password
			// is bounded by the header buffers: 8 KB, 19 ms.)
			return
		}
		password = cString(password) // what NGINX reads of it
		if Match(password, stored) && Match(password+"\x01", stored) && !strings.HasPrefix(cString(stored), "{PLAIN}") {
			if s := scheme(cString(stored)); s != "des" { // DES reads 8 characters only
				t.Fatalf("%q matches %q and %q", stored, password, password+"\x01")
			}
		}
	})
}
