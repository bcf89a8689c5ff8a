package cache

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/byterange"
)

func TestParseTargeted(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want string // the fields of interest, formatted
	}{
		{"max-age=60", true, "max-age=1m0s s-maxage=-1ns"},
		{"max-age=60, s-maxage=30;x=1", true, "max-age=1m0s s-maxage=30s"},
		{`no-store, private, no-cache="Set-Cookie"`, true, "no-store private no-cache-fields=[Set-Cookie]"},
		{"no-store=?0, must-understand", true, "must-understand"},
		{`max-age="60"`, true, "invalid max-age=0s s-maxage=-1ns"},
		{"max-age=1.5", true, "invalid max-age=0s s-maxage=-1ns"},
		{"max-age=60, max-age=10", true, "max-age=10s s-maxage=-1ns"}, // the last wins (RFC 8941)
		{"   ", false, ""},
		{"", false, ""},
		{"MAX-AGE=60", false, ""},
		{"max-age=60,", false, ""},
		{"max-age=60 no-store", false, ""},
		{`a="unterminated`, false, ""},
		{"a=?2", false, ""},
		{"a=1234567890123456", false, ""},
		{"a=:aGk=:, b=tok/en, c=-1.25", true, "max-age=-1ns s-maxage=-1ns"},
		{"a=(1 b;x=2 \"s\");p, max-age=5", true, "max-age=5s s-maxage=-1ns"},
		{"a=(1 2", false, ""},
		{"max-age=(60)", true, "invalid max-age=0s s-maxage=-1ns"},
	} {
		cc, ok, _ := parseTargeted(c.in)
		if ok != c.ok {
			t.Errorf("%q: ok %v", c.in, ok)
			continue
		}
		if !ok {
			continue
		}
		var b bytes.Buffer
		if cc.invalidMaxAge {
			b.WriteString("invalid ")
		}
		if cc.noStore {
			b.WriteString("no-store ")
		}
		if cc.private {
			b.WriteString("private ")
		}
		if cc.mustUnderstand {
			b.WriteString("must-understand")
		}
		if len(cc.noCacheFields) > 0 {
			fmt.Fprintf(&b, "no-cache-fields=%v", cc.noCacheFields)
		}
		if cc.maxAge != -1 || cc.sMaxAge != -1 || cc.invalidMaxAge {
			fmt.Fprintf(&b, "max-age=%v s-maxage=%v", cc.maxAge, cc.sMaxAge)
		} else if b.Len() == 0 {
			fmt.Fprintf(&b, "max-age=%v s-maxage=%v", cc.maxAge, cc.sMaxAge)
		}
		if got := b.String(); got != c.want {
			t.Errorf("%q: %s, want %s", c.in, got, c.want)
		}
	}
}

func FuzzTargeted(f *testing.F) {
	f.Add(`max-age=60, no-cache="a,b";p=1, s-maxage=1.5, x=:aGk=:, y=?1`)
	f.Add(`"unterminated, max-age=1`)
	f.Fuzz(func(t *testing.T, v string) {
		cc, ok, _ := parseTargeted(v)
		if ok && (cc.maxAge < -1 || cc.sMaxAge < -1) {
			t.Fatalf("negative lifetime %+v", cc)
		}
		normalizeAcceptList([]string{v}, true)
	})
}

func TestNormalizeVaried(t *testing.T) {
	for _, c := range []struct{ name, a, b string }{
		{"Accept-Language", "en-US, fr;q=0.5", "fr;q=0.50,EN-us"},
		{"Accept-Language", "de;q=1.0,en", "de , en;q=1"},
		{"Accept", "text/html, application/json;q=0.9", "Application/JSON;Q=0.9,TEXT/HTML"},
		{"Accept-Charset", "UTF-8 , iso-8859-1;q=0.2", "utf-8,ISO-8859-1;q=0.200"},
		{"Accept-Encoding", "gzip, br", "br,gzip"},
		{"X-Custom", "  a,b ", "a,b"},
	} {
		if x, y := normalizeVaried(c.name, []string{c.a}), normalizeVaried(c.name, []string{c.b}); x != y {
			t.Errorf("%s: %q -> %q but %q -> %q", c.name, c.a, x, c.b, y)
		}
	}
	for _, c := range []struct{ name, a, b string }{
		{"Accept-Language", "en, fr", "fr, en"}, // equal weights keep their order
		{"Accept", `text/html;level="A"`, `text/html;level="a"`},
		{"X-Custom", "a, b", "a,b"},
	} {
		if x, y := normalizeVaried(c.name, []string{c.a}), normalizeVaried(c.name, []string{c.b}); x == y {
			t.Errorf("%s: %q and %q both -> %q", c.name, c.a, c.b, x)
		}
	}
	if got := normalizeVaried("Accept-Language", []string{"fr;q=0.5, en-GB;q=0.8, de"}); got != "de,en-gb;q=0.8,fr;q=0.5" {
		t.Errorf("q order: %q", got)
	}
	// A field the request lacks selects another variant than an empty one
	// (RFC 9111 section 4.1).
	absent := &http.Request{Header: http.Header{}}
	empty := &http.Request{Header: http.Header{"X-A": {""}}}
	if variantKey("k", "e", []string{"X-A"}, absent) == variantKey("k", "e", []string{"X-A"}, empty) {
		t.Error("absent and empty X-A share a variant")
	}
}

// TestRangeWriter cuts ranges out of a body written in pieces of every
// size, so that ranges start and end inside, at and across writes.
func TestRangeWriter(t *testing.T) {
	const body = "abcdefghijklmnopqrstuvwxyz"
	for _, c := range []struct {
		spec string
		want string
	}{
		{"3-5", "def"},
		{"0-0,25-", "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 0-0/26\r\n\r\na" +
			"\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 25-25/26\r\n\r\nz\r\n--B--\r\n"},
		{"1-2,3-4", "\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 1-2/26\r\n\r\nbc" +
			"\r\n--B\r\nContent-Type: text/plain\r\nContent-Range: bytes 3-4/26\r\n\r\nde\r\n--B--\r\n"},
	} {
		ranges, v := byterange.Parse(c.spec, int64(len(body)), 0, nil)
		if v != byterange.Partial {
			t.Fatalf("%s: verdict %d", c.spec, v)
		}
		for piece := 1; piece <= len(body); piece++ {
			var out bytes.Buffer
			h := http.Header{"Content-Type": {"text/plain"}}
			rw := setRangeHeader(context.Background(), h, ranges, int64(len(body)), &out)
			for i := 0; i < len(body); i += piece {
				if n, err := rw.Write([]byte(body[i:min(i+piece, len(body))])); err != nil || n != min(piece, len(body)-i) {
					t.Fatalf("%s: Write = %d, %v", c.spec, n, err)
				}
			}
			got := out.String()
			if boundary, ok := strings.CutPrefix(h.Get("Content-Type"), "multipart/byteranges; boundary="); ok {
				got = strings.ReplaceAll(got, boundary, "B")
			}
			if got != c.want {
				t.Fatalf("%s in pieces of %d: %q, want %q", c.spec, piece, got, c.want)
			}
			if cl := h.Get("Content-Length"); cl != fmt.Sprint(out.Len()) {
				t.Fatalf("%s: Content-Length %s for %d bytes", c.spec, cl, out.Len())
			}
		}
	}
}

func TestIfRangeMatches(t *testing.T) {
	lm := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := http.Header{
		"Etag":          {`"x"`},
		"Last-Modified": {lm.Format(http.TimeFormat)},
		"Date":          {lm.Add(time.Hour).Format(http.TimeFormat)},
	}
	for v, want := range map[string]bool{
		`"x"`:                      true,
		`W/"x"`:                    false,
		`"y"`:                      false,
		lm.Format(http.TimeFormat): true,
		lm.Add(time.Second).Format(http.TimeFormat): false,
		"garbage": false,
	} {
		if got := ifRangeMatches(v, h); got != want {
			t.Errorf("If-Range %q: %v", v, got)
		}
	}
	// A Last-Modified within a second of Date is weak: no date matches it.
	h["Date"] = h["Last-Modified"]
	if ifRangeMatches(lm.Format(http.TimeFormat), h) {
		t.Error("weak Last-Modified matched")
	}
}
