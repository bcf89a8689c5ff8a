package referer

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/pcre"
)

func policy(t testing.TB, parent *Policy, words ...string) *Policy {
	t.Helper()
	b := NewBuilder()
	for _, w := range words {
		if err := b.Add(w); err != nil {
			t.Fatalf("%q: %v", w, err)
		}
	}
	p, err := b.Policy(parent)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestValid: the answers Debian's NGINX 1.22.1 gave for these lists (see
// TestRefererMatchesNGINX in cmd/mosaic for the live comparison).
func TestValid(t *testing.T) {
	b := NewBuilder()
	for _, w := range []string{"server_names", "*.x.test", "x.*", ".dot.test", "b.test/p", `~foo\.test/q`} {
		if err := b.Add(w); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.AddServerName("s1.test", ""); err != nil {
		t.Fatal(err)
	}
	b.AddServerNameRegex(mustRe(t, `^re\d+\.test$`))
	p, err := b.Policy(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]bool{
		"http://s1.test/":           true,
		"http://re12.test/":         true,
		"http://rex.test/":          false,
		"http://y.x.test":           true,
		"http://x.test/":            true, // "x.*"
		"http://x.com/":             true,
		"http://dot.test:8/":        true,
		"http://a.dot.test/":        true,
		"http://b.test/p":           true,
		"http://b.test/px":          true,
		"http://b.test/":            false, // the path does not start with /p
		"http://b.test":             false,
		"http://b.test:80/pz":       true,
		"http://b.test:80/P":        false, // the path compares with case
		"https://FOO.test/q1":       true,
		"HTTP://B.TEST/p":           true,
		"http://s1.test.":           false, // a trailing dot is not the name
		"http://x.":                 false, // shorter than http://i.ru: no scheme
		"ftp://s1.test/":            false,
		"http://zz.test/foo.test/q": true, // the regex sees the whole rest
		"junk":                      false,
		"":                          false,
	} {
		if got, err := p.Valid(ref, true); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", ref, got, err, want)
		}
	}
	if ok, _ := p.Valid("", false); ok {
		t.Error("no Referer valid without none")
	}
}

func TestNoneBlocked(t *testing.T) {
	p := policy(t, nil, "none", "blocked", "a.test")
	for _, c := range []struct {
		ref     string
		present bool
		want    bool
	}{
		{"", false, true},
		{"", true, true},
		{"junk", true, true},
		{"http://short", true, false},
		{"http://a.test/x", true, true},
		{"http://b.test/x", true, false},
		{"https://a.test", true, true},
	} {
		if got, _ := p.Valid(c.ref, c.present); got != c.want {
			t.Errorf("%q %v: %v, want %v", c.ref, c.present, got, c.want)
		}
	}
	blocked := policy(t, nil, "blocked", "c.test")
	for ref, want := range map[string]bool{"http://c.test": true, "http://c.tes": false, "c.test": true} {
		if got, _ := blocked.Valid(ref, true); got != want {
			t.Errorf("blocked %q: %v, want %v", ref, got, want)
		}
	}
	if ok, _ := blocked.Valid("", false); ok {
		t.Error("blocked: no Referer valid")
	}
}

// TestLongHost: a host longer than NGINX's buffer is invalid, even for a
// regular expression that would match it.
func TestLongHost(t *testing.T) {
	p := policy(t, nil, "~.", "*.test")
	host := strings.Repeat("a", MaxHost-5) + ".test"
	if ok, _ := p.Valid("http://"+host+"/", true); !ok {
		t.Error("a host of MaxHost bytes is looked up")
	}
	if ok, _ := p.Valid("http://a"+host+"/", true); ok {
		t.Error("a longer host is valid")
	}
}

// TestInheritRegexes: a list without regular expressions takes its
// parent's, as NGINX's merge does; its names and words stay its own.
func TestInheritRegexes(t *testing.T) {
	parent := policy(t, nil, "none", "p.test", "~^r\\.test")
	child := policy(t, parent, "c.test")
	for ref, want := range map[string]bool{"http://r.test/": true, "http://p.test/": false, "http://c.test/": true} {
		if got, _ := child.Valid(ref, true); got != want {
			t.Errorf("%q: %v, want %v", ref, got, want)
		}
	}
	if ok, _ := child.Valid("", false); ok {
		t.Error("none inherited")
	}
	own := policy(t, parent, "~^o\\.test")
	if ok, _ := own.Valid("http://r.test/", true); ok {
		t.Error("own regex list replaced by the parent's")
	}
}

func TestEmptyPolicyValid(t *testing.T) {
	p := policy(t, nil, "server_names")
	if ok, _ := p.Valid("junk", true); !ok {
		t.Error("empty list refuses")
	}
}

func TestBuilderErrors(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{""}, `invalid referer ""`},
		{[]string{"~"}, `empty regex in "~"`},
		{[]string{"a*b"}, `invalid hostname or wildcard "a*b"`},
		{[]string{"a..b"}, `invalid hostname or wildcard "a..b"`},
		{[]string{"a.test", "A.test"}, `conflicting parameter "a.test"`},
		{[]string{"a.test/x", "a.test/y"}, `conflicting parameter "a.test"`},
		{[]string{"*.a.test", ".a.test"}, `conflicting parameter ".a.test"`},
		{[]string{".a.test", "a.test"}, `conflicting parameter "a.test"`},
		{[]string{"~("}, "pcre2_compile() failed: missing closing parenthesis"},
		{[]string{"none"}, `the "none" or "blocked" referers are specified in the "valid_referers" directive without any valid referer`},
		{[]string{"blocked", "~x"}, `without any valid referer`},
	} {
		b := NewBuilder()
		var err error
		for _, w := range c.words {
			if err = b.Add(w); err != nil {
				break
			}
		}
		if err == nil {
			_, err = b.Policy(nil)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.words, err, c.want)
		}
	}
}

func TestHandler(t *testing.T) {
	h := policy(t, nil, "none", "*.example.com").Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("image"))
	}))
	for ref, want := range map[string]int{"": 200, "http://www.example.com/page": 200, "http://evil.test/": 403} {
		r := httptest.NewRequest("GET", "/a.png", nil)
		if ref != "" {
			r.Header.Set("Referer", ref)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%q: %d, want %d", ref, w.Code, want)
		}
	}
}

func mustRe(t testing.TB, s string) *pcre.Regexp {
	re, err := pcre.Compile(s, false)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

// FuzzValid: any Referer is decided without error or panic, and with
// "blocked" every one without an http:// or https:// scheme is valid.
func FuzzValid(f *testing.F) {
	p := policy(f, nil, "blocked", "*.example.com/img", "example.*", "a.test", `~^[a-z]+\.org/`)
	for _, s := range []string{"http://www.example.com/img/a", "HTTPS://A.TEST", "junk", "http://:80/", "http://a.test:x/y", "http:///"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		ok, err := p.Valid(ref, true)
		if err != nil {
			t.Fatal(err)
		}
		low := strings.ToLower(ref)
		if !ok && !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") {
			t.Errorf("%q refused despite blocked", ref)
		}
	})
}
