package static

import (
	"fmt"
	"net/http"
	"testing"
)

const (
	etagA   = `"5f5e1000-1a"` // a.txt
	before  = "Sun, 13 Sep 2020 12:26:39 GMT"
	after   = "Sun, 13 Sep 2020 12:26:41 GMT"
	badDate = "yesterday"
)

func TestConditionalRequests(t *testing.T) {
	fx := serve(t, nil)
	cases := []struct {
		name   string
		header []string
		status int
	}{
		{"INM equal", []string{"If-None-Match", etagA}, 304},
		{"INM weak form matches weakly", []string{"If-None-Match", "W/" + etagA}, 304},
		{"INM in a list", []string{"If-None-Match", `"x", ` + etagA}, 304},
		{"INM over two header lines", []string{"If-None-Match", `"x"`, "If-None-Match", etagA}, 304},
		{"INM star", []string{"If-None-Match", "*"}, 304},
		{"INM star in a list", []string{"If-None-Match", `*, "x"`}, 200},
		{"INM other", []string{"If-None-Match", `"5f5e1000-1b"`}, 200},
		{"INM unquoted", []string{"If-None-Match", `5f5e1000-1a`}, 200},
		{"INM empty is a miss", []string{"If-None-Match", "", "If-Modified-Since", fixedLastModified}, 200},

		{"IMS equal", []string{"If-Modified-Since", fixedLastModified}, 304},
		{"IMS later (before mode)", []string{"If-Modified-Since", after}, 304},
		{"IMS earlier", []string{"If-Modified-Since", before}, 200},
		{"IMS invalid", []string{"If-Modified-Since", badDate}, 200},

		// As in NGINX, a 304 needs both If-None-Match and If-Modified-Since
		// to say "not modified" (RFC 9110 13.2.2 lets If-None-Match decide).
		{"INM miss beside IMS hit", []string{"If-None-Match", `"x"`, "If-Modified-Since", fixedLastModified}, 200},
		{"INM hit beside IMS miss", []string{"If-None-Match", etagA, "If-Modified-Since", before}, 200},
		{"INM hit beside IMS hit", []string{"If-None-Match", etagA, "If-Modified-Since", after}, 304},

		{"IM equal", []string{"If-Match", etagA}, 200},
		{"IM list", []string{"If-Match", `"x", ` + etagA}, 200},
		{"IM star", []string{"If-Match", "*"}, 200},
		{"IM star in a list", []string{"If-Match", `*, "x"`}, 412},
		{"IM empty", []string{"If-Match", ""}, 412},
		{"IM other", []string{"If-Match", `"x"`}, 412},
		{"IM weak never matches", []string{"If-Match", "W/" + etagA}, 412},
		{"IM malformed", []string{"If-Match", `nonsense`}, 412},

		{"IUMS later", []string{"If-Unmodified-Since", after}, 200},
		{"IUMS equal", []string{"If-Unmodified-Since", fixedLastModified}, 200},
		{"IUMS earlier", []string{"If-Unmodified-Since", before}, 412},
		{"IUMS invalid fails", []string{"If-Unmodified-Since", badDate}, 412},

		// NGINX tests If-Unmodified-Since beside If-Match: either fails it.
		{"IUMS miss beside IM hit", []string{"If-Match", etagA, "If-Unmodified-Since", before}, 412},
		// 412 is decided before 304.
		{"IM miss beats INM hit", []string{"If-Match", `"x"`, "If-None-Match", etagA}, 412},
		{"IM hit then INM hit", []string{"If-Match", etagA, "If-None-Match", etagA}, 304},
		{"IUMS miss beats IMS hit", []string{"If-Unmodified-Since", before, "If-Modified-Since", after}, 412},
	}
	// With more fields than askedFor scans, the header is looked up
	// field by field: the same answers.
	for _, c := range cases {
		t.Run(c.name+" past scanFields", func(t *testing.T) {
			resp, _ := fx.do("GET", "/a.txt", append(padding(scanFields), c.header...)...)
			expect(t, resp, c.status)
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := fx.do("GET", "/a.txt", c.header...)
			expect(t, resp, c.status)
			switch c.status {
			case 200:
				if body != alphabet {
					t.Errorf("body %q", body)
				}
			case 304:
				// NGINX's 304: the validators, no representation headers.
				expect(t, resp, 304, "ETag", etagA, "Last-Modified", fixedLastModified,
					"Content-Type", "-", "Accept-Ranges", "-")
				if body != "" {
					t.Errorf("304 with body %q", body)
				}
			case 412:
				expect(t, resp, 412, "ETag", "-", "Last-Modified", "-", "Content-Type", "text/html")
			}
		})
	}
}

func TestConditionalHead(t *testing.T) {
	fx := serve(t, nil)
	resp, _ := fx.do("HEAD", "/a.txt", "If-None-Match", etagA)
	expect(t, resp, 304)
	resp, _ = fx.do("HEAD", "/a.txt", "If-Match", `"x"`)
	expect(t, resp, 412)
}

func TestIfModifiedSinceModes(t *testing.T) {
	for _, c := range []struct {
		mode              ModifiedSince
		equal, later, old int
	}{
		{ModifiedSinceBefore, 304, 304, 200},
		{ModifiedSinceExact, 304, 200, 200},
		{ModifiedSinceOff, 200, 200, 200},
	} {
		fx := serve(t, func(o *Options) { o.IfModifiedSince = c.mode })
		for date, want := range map[string]int{fixedLastModified: c.equal, after: c.later, before: c.old} {
			resp, _ := fx.do("GET", "/a.txt", "If-Modified-Since", date)
			if resp.StatusCode != want {
				t.Errorf("mode %d, If-Modified-Since %s: status %d, want %d", c.mode, date, resp.StatusCode, want)
			}
		}
	}
}

func TestAppendETag(t *testing.T) {
	if got := string(appendETag(nil, 0x5f5e1000, 0x1000)); got != `"5f5e1000-1000"` {
		t.Errorf("appendETag = %s", got)
	}
}

// padding returns n header fields that no condition reads, as do's
// name-value pairs.
func padding(n int) []string {
	var h []string
	for i := range n {
		h = append(h, fmt.Sprintf("X-Pad-%d", i), "1")
	}
	return h
}

// askedFor must see every field of the conditions and ranges among others,
// and report both possible past scanFields, where it does not look.
func TestAskedFor(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  asked
	}{
		{nil, asked{}},
		{[]string{"Accept", "User-Agent", "Accept-Encoding"}, asked{}},
		{[]string{"Accept", "If-None-Match"}, asked{conditions: true}},
		{[]string{"If-Modified-Since"}, asked{conditions: true}},
		{[]string{"If-Match", "Cookie"}, asked{conditions: true}},
		{[]string{"If-Unmodified-Since"}, asked{conditions: true}},
		{[]string{"Range", "Accept"}, asked{ranges: true}},
		{[]string{"Range", "If-Range"}, asked{conditions: true, ranges: true}},
		// Not canonical: no lookup would find it either.
		{[]string{"if-none-match", "range"}, asked{}},
		{[]string{"A", "B", "C", "D", "E", "F", "G", "H"}, asked{}},
		{[]string{"A", "B", "C", "D", "E", "F", "G", "H", "I"}, asked{true, true}},
	} {
		h := http.Header{}
		for _, n := range c.names {
			h[n] = []string{"x"}
		}
		if got := askedFor(h); got != c.want {
			t.Errorf("askedFor(%v) = %+v, want %+v", c.names, got, c.want)
		}
	}
}

// TestPreconditionsBefore1970: a file modified before 1970 has a
// negative time, after NGINX's -1 for a request date it cannot read: an
// invalid If-Unmodified-Since passes, and an invalid If-Modified-Since
// under "before" answers 304, as in NGINX (TestConditionalBefore1970AsNGINX
// in cmd/mosaic). A file of time -1 has no Last-Modified to NGINX.
func TestPreconditionsBefore1970(t *testing.T) {
	const mtime1962 = -252460800 // Mon, 01 Jan 1962 00:00:00 GMT
	for _, c := range []struct {
		field string
		mtime int64
		ims   ModifiedSince
		want  int
	}{
		{"If-Unmodified-Since", mtime1962, ModifiedSinceExact, 0},
		{"If-Modified-Since", mtime1962, ModifiedSinceBefore, 304},
		{"If-Modified-Since", mtime1962, ModifiedSinceExact, 0},
		{"If-Unmodified-Since", -1, ModifiedSinceExact, 412},
		{"If-Modified-Since", -1, ModifiedSinceBefore, 0},
	} {
		h := http.Header{c.field: {badDate}}
		if got := preconditions(h, nil, c.mtime, c.ims, false); got != c.want {
			t.Errorf("%s: %s, mtime %d, mode %d: %d, want %d", c.field, badDate, c.mtime, c.ims, got, c.want)
		}
	}
}
