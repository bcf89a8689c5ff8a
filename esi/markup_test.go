package esi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

const marker = "<!-- ESI include error -->"

// markupCases pin every construct. {host} stands for the page's own Host.
// Pages are served at /f/page, so the relative src "a" is /f/a.
var markupCases = []struct {
	name, doc, want string
}{
	{"plain text", "hello <b>world</b> a<b", "hello <b>world</b> a<b"},
	{"empty page", "", ""},
	{"include self-closing", `x<esi:include src="/f/a"/>y`, "xAy"},
	{"include with closing tag", `x<esi:include src="/f/a"></esi:include>y`, "xAy"},
	{"include single quotes", `<esi:include src='/f/a'/>`, "A"},
	{"include whitespace and newlines", "<esi:include\n\tsrc =\r\n '/f/a'\n/>", "A"},
	{"include no space before />", `<esi:include src="/f/a"/><esi:include src="/f/b" />`, "AB"},
	{"relative src", `<esi:include src="a"/><esi:include src="../f/b"/>`, "AB"},
	{"root-relative src with dot segments", `<esi:include src="/x/../f/a"/>`, "A"},
	{"same-authority absolute", `<esi:include src="http://{host}/f/a"/>`, "A"},
	{"same-authority scheme-relative", `<esi:include src="//{host}/f/b"/>`, "B"},
	{"other authority refused", `x<esi:include src="http://other.example/f/a"/>y`, "x" + marker + "y"},
	{"other scheme refused", `<esi:include src="ftp://{host}/f/a"/>`, marker},
	{"entities in src", `<esi:include src="/f/echo/x?a=1&amp;b=2&lt;&#62;&#x26;&bogus;"/>`, "/f/echo/x?a=1&b=2<>&&bogus;"},
	{"numeric entities in path", `<esi:include src="&#47;f&#x2F;a"/>`, "A"},
	{"percent-encoded path decoded", `<esi:include src="/f/%61"/>`, "A"},
	{"percent-encoded path and raw query", `<esi:include src="/f/echo/a%20b?q=%20"/>`, "/f/echo/a b?q=%20"},
	{"> inside a quoted value", `<esi:include src="/f/echo/x?a=>"/>`, "/f/echo/x?a=>"},
	{"error status inlined", `x<esi:include src="/f/404"/>y`, "xnot found bodyy"},
	{"alt on error status", `<esi:include src="/f/404" alt="/f/b"/>`, "B"},
	{"alt on fetch failure", `<esi:include src="http://other.example/" alt="/f/b"/>`, "B"},
	{"alt fails too: its body inlined", `<esi:include src="/f/404" alt="/f/500"/>`, "oops"},
	{"alt not used on success", `<esi:include src="/f/a" alt="/f/b"/>`, "A"},
	{"onerror continue on error status", `x<esi:include src="/f/404" onerror="continue"/>y`, "xy"},
	{"onerror continue on fetch failure", `x<esi:include src="http://other.example/" onerror="continue"/>y`, "xy"},
	{"alt and onerror both failing", `<esi:include src="/f/404" alt="/f/500" onerror="continue"/>`, ""},
	{"other onerror values ignored", `<esi:include src="/f/404" onerror="stop"/>`, "not found body"},
	{"include without src", `x<esi:include/>y`, "x" + marker + "y"},
	{"204 fragment", `x<esi:include src="/f/204"/>y`, "xy"},
	{"empty fragment", `x<esi:include src="/f/empty"/>y`, "xy"},
	{"gzipped fragment inflated", `<esi:include src="/f/gz"/>`, "GZ"},
	{"br fragment refused", `<esi:include src="/f/br"/>`, marker},
	{"nested ESI fragment", `<esi:include src="/f/esi"/>`, "(A)"},
	{"remove", `a<esi:remove>b<esi:include src="/f/a"/></esi:remove>c`, "ac"},
	{"remove end tag with whitespace", "a<esi:remove>b</esi:remove \n>c", "ac"},
	{"remove with false end tags inside", `a<esi:remove>b</esi:rem</esi:removed></esi:remove>c`, "ac"},
	{"remove self-closing", `a<esi:remove/>c`, "ac"},
	{"remove not closed", `a<esi:remove>b<esi:include src="/f/a"/>`, `a<esi:remove>b<esi:include src="/f/a"/>`},
	{"stray remove end tag", `a</esi:remove>b`, `a</esi:remove>b`},
	{"comment", `a<esi:comment text="no"/>b`, "ab"},
	{"esi comment", `a<!--esi b<esi:include src="/f/a"/>c-->d`, "a bAcd"},
	{"esi comment with dashes", `<!--esi a--b--->`, " a--b-"},
	{"esi comment not closed", `a<!--esi b<esi:include src="/f/a"/>`, "a bA"},
	{"ordinary comment untouched", `<!-- <esi:include src="/f/a"/> -->x<esi:include src="/f/b"/>`, `<!-- <esi:include src="/f/a"/> -->xB`},
	{"comment with inner dashes", `<!-- a -- b --->x<esi:include src="/f/a"/>`, `<!-- a -- b --->xA`},
	{"comment opener dashes do not close it", `<!---><esi:include src="/f/a"/>-->`, `<!---><esi:include src="/f/a"/>-->`},
	{"comment not closed", `<!-- <esi:include src="/f/a"/>`, `<!-- <esi:include src="/f/a"/>`},
	{"--> outside comments is text", `a-->b<esi:include src="/f/a"/>`, "a-->bA"},
	{"vars", `<esi:vars>$(QUERY_STRING{x}|'none') <esi:include src="/f/a"/></esi:vars>`, "none A"},
	{"unknown elements verbatim", `<esi:inline name="/x" fetchable="no">x</esi:inline>`, `<esi:inline name="/x" fetchable="no">x</esi:inline>`},
	{"includes inside unknown elements", `<esi:inline name="/x"><esi:include src="/f/a"/></esi:inline>`, `<esi:inline name="/x">A</esi:inline>`},
	{"uppercase prefix is not ESI", `<ESI:include src="/f/a"/>`, `<ESI:include src="/f/a"/>`},
	{"uppercase name is not ESI", `<esi:Include src="/f/a"/>`, `<esi:Include src="/f/a"/>`},
	{"stray < does not swallow a tag", `if(a<b)<esi:include src="/f/a"/>`, "if(a<b)A"},
	{"< < and <esi", `<<<esi:include src="/f/a"/><`, "<<A<"},
	{"unquoted value: malformed", `<esi:include src=/f/a/>x`, `<esi:include src=/f/a/>x`},
	{"no space between attributes: malformed", `<esi:include src="/f/a"alt="/f/b"/>`, `<esi:include src="/f/a"alt="/f/b"/>`},
	{"tag broken by <", `<esi:include src="/f/a" <esi:include src="/f/b"/>`, `<esi:include src="/f/a" B`},
	{"unterminated quote broken by <", `<esi:include src="/f/a/>text<esi:include src="/f/b"/>`, `<esi:include src="/f/a/>textB`},
	{"unterminated tag at end", `x<esi:include src="/f/a"`, `x<esi:include src="/f/a"`},
	{"partial prefix at end", `x<esi:inc`, `x<esi:inc`},
	{"lone < at end", `x<`, `x<`},
	{"end tags of include and vars dropped", `a</esi:include></esi:vars >b`, "ab"},
	{"malformed end tag", `a</esi:include x>b`, `a</esi:include x>b`},
	{"several includes in order", `1<esi:include src="/f/a"/>2<esi:include src="/f/b"/>3<esi:include src="/f/404"/>4`, "1A2B3not found body4"},
}

// serveDoc serves a case's doc, {host} replaced, with one Write.
func serveDoc(doc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, strings.ReplaceAll(doc, "{host}", r.Host))
	}
}

func TestMarkup(t *testing.T) {
	log, _ := newLog()
	frags := fragments()
	for _, tc := range markupCases {
		t.Run(tc.name, func(t *testing.T) {
			srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(frags), Logger: log}, serveDoc(tc.doc))
			resp, body := testclient.Get(t, srv.URL+"/f/page")
			if resp.StatusCode != 200 || body != tc.want {
				t.Errorf("got %d %q, want %q", resp.StatusCode, body, tc.want)
			}
		})
	}
}

// TestSplitReads feeds every document in two reads split at every byte,
// through Write and through ReadFrom with tiny buffers, and expects the
// output of the unsplit document.
func TestSplitReads(t *testing.T) {
	log, _ := newLog()
	frags := fragments()
	run := func(h http.Handler) string {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://example.test/f/page", nil))
		return rec.Body.String()
	}
	for _, tc := range markupCases {
		doc := strings.ReplaceAll(tc.doc, "{host}", "example.test")
		for k := 0; k <= len(doc); k++ {
			writes := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, doc[:k])
				io.WriteString(w, doc[k:])
			}), esi.Options{Fetcher: esi.FetchHandler(frags), Logger: log})
			if got := run(writes); got != tc.want {
				t.Fatalf("%s: two writes split at %d: got %q, want %q", tc.name, k, got, tc.want)
			}
			reads := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.Copy(w, io.MultiReader(strings.NewReader(doc[:k]), strings.NewReader(doc[k:])))
			}), esi.Options{Fetcher: esi.FetchHandler(frags), Logger: log, BufferSize: 5})
			if got := run(reads); got != tc.want {
				t.Fatalf("%s: reads split at %d into 5-byte buffers: got %q, want %q", tc.name, k, got, tc.want)
			}
		}
	}
}

func TestMarkupWarnings(t *testing.T) {
	log, sink := newLog()
	doc := `<esi:inline>x</esi:inline><esi:include src=/f/a/><esi:remove>open`
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, serveDoc(doc))
	if _, body := testclient.Get(t, srv.URL+"/f/page"); body != doc {
		t.Fatalf("got %q", body)
	}
	for _, want := range []string{
		`unknown ESI element passed through: \"<esi:inline>\"`,
		`unknown ESI element passed through: \"</esi:inline>\"`,
		"malformed ESI tag passed through as text",
		"<esi:remove> not closed at end of body",
	} {
		if !strings.Contains(sink.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, sink)
		}
	}
}

func TestLongRemoveGivenUp(t *testing.T) {
	log, sink := newLog()
	long := strings.Repeat("r", esi.MaxRemove+10)
	// The limit is checked per piece: past it, the next piece is parsed as
	// ordinary text again.
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "a<esi:remove>"+long)
		io.WriteString(w, `<esi:include src="/f/a"/></esi:remove>b`)
	})
	_, body := testclient.Get(t, srv.URL+"/f/page")
	if want := "a<esi:remove>" + long + "A</esi:remove>b"; body != want {
		t.Fatalf("got %d bytes %q..., want %d bytes", len(body), body[:40], len(want))
	}
	if !strings.Contains(sink.String(), "longer than 1 MiB") {
		t.Errorf("no warning:\n%s", sink)
	}
}

func TestLongTagPassedThrough(t *testing.T) {
	log, _ := newLog()
	long := `<esi:include src="/f/a" x="` + strings.Repeat("v", esi.MaxTag) + `"/>`
	doc := long + `<esi:include src="/f/b"/>`
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, serveDoc(doc))
	if _, body := testclient.Get(t, srv.URL+"/f/page"); body != long+"B" {
		t.Fatalf("got %d bytes, want %d", len(body), len(long)+1)
	}
}

func TestTypes(t *testing.T) {
	doc := `<esi:include src="/f/a"/>`
	frags := fragments()
	cases := []struct {
		types []string
		ctype string
		want  string
	}{
		{nil, "text/html; charset=utf-8", "A"},
		{nil, "TEXT/HTML", "A"},
		{nil, "text/plain", doc},
		{[]string{"application/xhtml+xml"}, "application/xhtml+xml", "A"},
		{[]string{"application/xhtml+xml"}, "text/html", "A"},
		{[]string{"*"}, "application/json", "A"},
		{nil, "", "A"}, // sniffed as text/html
	}
	for _, tc := range cases {
		srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(frags), Types: tc.types}, func(w http.ResponseWriter, _ *http.Request) {
			if tc.ctype != "" {
				w.Header().Set("Content-Type", tc.ctype)
			}
			io.WriteString(w, "<html>"+doc)
		})
		if _, body := testclient.Get(t, srv.URL+"/p"); body != "<html>"+tc.want {
			t.Errorf("types %v, Content-Type %q: got %q", tc.types, tc.ctype, body)
		}
	}
}
