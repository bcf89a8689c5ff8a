package sub

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// replace runs text through a Replacer in writes of n bytes (all at once
// for n 0) and returns the output and the most bytes held between writes.
func replace(pats, subs []string, once bool, text string, n int) (string, int) {
	var out bytes.Buffer
	set := Compile(pats)
	if set == nil {
		return text, 0
	}
	z := NewReplacer(&out, set, once, func(i int) []byte { return []byte(subs[i]) })
	most := 0
	for b := []byte(text); len(b) > 0; {
		k := len(b)
		if n > 0 && n < k {
			k = n
		}
		z.Write(b[:k])
		b = b[k:]
		most = max(most, len(z.held))
	}
	z.Close()
	return out.String(), most
}

func TestReplaceAsNGINX(t *testing.T) {
	for _, c := range []struct {
		pats, subs []string
		once       bool
		in, want   string
	}{
		{[]string{"hello", "foo"}, []string{"HI", "F"}, false, "Hello World hello foo bar FOO", "HI World HI F bar F"},
		{[]string{"hello", "foo"}, []string{"HI", "F"}, true, "Hello World hello foo bar FOO", "HI World hello F bar FOO"},
		// The first pattern in order that matches at a position wins,
		// not the longest.
		{[]string{"ab", "abc"}, []string{"1", "2"}, false, "abcabc", "1c1c"},
		{[]string{"abc", "ab"}, []string{"2", "1"}, false, "abcabx", "21x"},
		// ... and "abc", first, matching "ab" at the end as a prefix,
		// keeps "ab" from matching there: the body ends waiting.
		{[]string{"abc", "ab"}, []string{"2", "1"}, false, "abcab", "2ab"},
		// Matches do not overlap: the search goes on after one.
		{[]string{"aa"}, []string{"b"}, false, "aaaaa", "bba"},
		// A longer pattern matching the end of the body as a prefix hides
		// a shorter match inside it, as in NGINX.
		{[]string{"abcd", "bc"}, []string{"1", "2"}, false, "xabc", "xabc"},
		{[]string{"abcd", "bc"}, []string{"1", "2"}, false, "xabcx", "xa2x"},
		{[]string{"bc", "abcd"}, []string{"2", "1"}, false, "xabc", "xabc"},
		// Once: each pattern once; the others go on.
		{[]string{"a", "b"}, []string{"1", "2"}, true, "ababab", "12abab"},
		{[]string{"a"}, []string{""}, false, "banana", "bnn"},
		{[]string{"É"}, []string{"e"}, false, "É é", "e é"},
	} {
		if ref := nginxReplace(c.pats, c.subs, c.once, []byte(c.in)); ref != c.want {
			t.Errorf("%q %q once=%v in %q: NGINX's algorithm gives %q, want %q", c.pats, c.subs, c.once, c.in, ref, c.want)
		}
		for _, n := range []int{0, 1, 2, 3, 7} {
			got, held := replace(c.pats, c.subs, c.once, c.in, n)
			if got != c.want {
				t.Errorf("%q %q once=%v in %q by %d: got %q, want %q", c.pats, c.subs, c.once, c.in, n, got, c.want)
			}
			longest := 0
			for _, p := range c.pats {
				longest = max(longest, len(p))
			}
			if held >= longest {
				t.Errorf("%q by %d: held %d bytes, longest pattern %d", c.in, n, held, longest)
			}
		}
	}
}

func serve(t *testing.T, opts Options, ctype, body string, hdr map[string]string, method string) *httptest.ResponseRecorder {
	t.Helper()
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		for _, c := range []byte(body) {
			w.Write([]byte{c}) // a byte a write: matches straddle them
		}
	})
	rec := httptest.NewRecorder()
	New(app, opts).ServeHTTP(rec, httptest.NewRequest(method, "/page.html?x=1", nil))
	return rec
}

func pair(m, r string) Pair {
	return Pair{Match: vars.MustCompile(m), Replace: vars.MustCompile(r)}
}

func TestFilterHeaders(t *testing.T) {
	v := map[string]string{"Etag": `"abc"`, "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT", "Accept-Ranges": "bytes"}
	opts := Options{Pairs: []Pair{pair("World", "[$uri]")}, Once: true}
	rec := serve(t, opts, "text/html; charset=utf-8", "Hello world, world", v, "GET")
	if got := rec.Body.String(); got != "Hello [/page.html], world" {
		t.Errorf("body %q", got)
	}
	for _, k := range []string{"Content-Length", "Etag", "Last-Modified"} {
		if rec.Header().Get(k) != "" {
			t.Errorf("%s kept: %q", k, rec.Header().Get(k))
		}
	}
	opts.LastModified = true
	rec = serve(t, opts, "text/html", "x", v, "HEAD")
	if rec.Header().Get("Etag") != `W/"abc"` || rec.Header().Get("Last-Modified") == "" || rec.Header().Get("Content-Length") != "" {
		t.Errorf("last_modified on, HEAD: %v %q", rec.Header(), rec.Body)
	}
	// Another type passes untouched, until sub_filter_types lists it.
	rec = serve(t, opts, "text/plain", "world", v, "GET")
	if rec.Body.String() != "world" || rec.Header().Get("Content-Length") != "5" {
		t.Errorf("text/plain: %v %q", rec.Header(), rec.Body)
	}
	opts.Types = []string{"text/plain"}
	if rec = serve(t, opts, "text/plain", "world", v, "GET"); rec.Body.String() != "[/page.html]" {
		t.Errorf("sub_filter_types text/plain: %q", rec.Body)
	}
	// Subrequests keep their validators.
	opts.Subrequest = func(*http.Request) bool { return true }
	opts.LastModified = false
	if rec = serve(t, opts, "text/html", "world", v, "GET"); rec.Header().Get("Etag") != `"abc"` || rec.Body.String() != "[/page.html]" {
		t.Errorf("subrequest: %v %q", rec.Header(), rec.Body)
	}
}

func TestFilterDynamicPatterns(t *testing.T) {
	// A pattern whose variables come out empty is left out; none left,
	// the response is not touched at all.
	opts := Options{Pairs: []Pair{pair("$arg_none", "X"), pair("$arg_x", "one")}}
	rec := serve(t, opts, "text/html", "a1b1", map[string]string{"Etag": `"e"`}, "GET")
	if rec.Body.String() != "aonebone" {
		t.Errorf("body %q", rec.Body)
	}
	opts = Options{Pairs: []Pair{pair("$arg_none", "X")}}
	rec = serve(t, opts, "text/html", "a1b1", map[string]string{"Etag": `"e"`}, "GET")
	if rec.Body.String() != "a1b1" || rec.Header().Get("Etag") != `"e"` || rec.Header().Get("Content-Length") != "4" {
		t.Errorf("no pattern left: %v %q", rec.Header(), rec.Body)
	}
}

func TestEmptyBodyAndNotModifiedUntouched(t *testing.T) {
	opts := Options{Pairs: []Pair{pair("a", "b")}}
	rec := serve(t, opts, "text/html", "", map[string]string{"Etag": `"e"`}, "GET")
	if rec.Header().Get("Etag") != `"e"` {
		t.Errorf("Content-Length 0: %v", rec.Header())
	}
	h := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Etag", `"e"`)
		w.WriteHeader(http.StatusNotModified)
	}), opts)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 304 || rec.Header().Get("Etag") != `"e"` {
		t.Errorf("304: %d %v", rec.Code, rec.Header())
	}
}

// FuzzReplacer checks the Replacer against a port of NGINX's algorithm
// and that any cutting of the text into writes gives the output of one
// write, holding back less than the longest pattern.
func FuzzReplacer(f *testing.F) {
	f.Add("abcd\x00bc", "xabcabcdbcx", uint8(1), false)
	f.Add("Hello\x00foo\x00o", "hello foo HELLO FOO", uint8(3), true)
	f.Fuzz(func(t *testing.T, pats, text string, n uint8, once bool) {
		ps := strings.Split(pats, "\x00")
		if len(ps) > 255 {
			return
		}
		subs := make([]string, len(ps))
		longest := 0
		for i, p := range ps {
			subs[i] = fmt.Sprintf("<%d>", i)
			longest = max(longest, len(p))
		}
		whole, _ := replace(ps, subs, once, text, 0)
		if ref := nginxReplace(ps, subs, once, []byte(text)); whole != ref {
			t.Fatalf("%q once=%v in %q: %q, NGINX's algorithm %q", ps, once, text, whole, ref)
		}
		got, held := replace(ps, subs, once, text, int(n))
		if got != whole {
			t.Fatalf("by %d: %q, at once: %q", n, got, whole)
		}
		if held > 0 && held >= longest {
			t.Fatalf("held %d bytes, longest pattern %d", held, longest)
		}
	})
}
