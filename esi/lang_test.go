package esi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// langRequest is the request every langCases page is served for.
func langRequest() *http.Request {
	r := httptest.NewRequest("GET", "http://example.test/f/page?lang=fr&q=a%20b%3Cc&empty=&dots=..&slash=x/y", nil)
	r.Header.Set("Cookie", `group=gold; n=42; evil=<b>&'x'; inj=a?b=1&c#d`)
	r.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0")
	r.Header.Set("Accept-Language", "fr-CH, fr;q=0.9, en;q=0.8, de;q=0")
	r.Header.Set("Referer", "http://ref.example/from")
	return r
}

// langCases pin the ESI 1.0 language: choose, try, vars and variables,
// served for langRequest, with fragments() for includes.
var langCases = []struct {
	name, doc, want string
}{
	// esi:choose
	{"when taken", `<esi:choose><esi:when test="$(HTTP_COOKIE{group})=='gold'">G</esi:when><esi:otherwise>O</esi:otherwise></esi:choose>`, "G"},
	{"otherwise taken", `<esi:choose><esi:when test="$(HTTP_COOKIE{group})=='silver'">S</esi:when><esi:otherwise>O</esi:otherwise></esi:choose>`, "O"},
	{"first true when only", `<esi:choose><esi:when test="1==1">1</esi:when><esi:when test="2==2">2</esi:when><esi:otherwise>O</esi:otherwise></esi:choose>`, "1"},
	{"no branch", `a<esi:choose><esi:when test="1==2">x</esi:when></esi:choose>b`, "ab"},
	{"text between branches dropped", "<esi:choose> x <esi:when test=\"1==1\">W</esi:when>\n y </esi:choose>", "W"},
	{"includes in branches", `<esi:choose><esi:when test="1==2"><esi:include src="/f/a"/></esi:when><esi:otherwise>[<esi:include src="/f/b"/>]</esi:otherwise></esi:choose>`, "[B]"},
	{"numbers compare as numbers", `<esi:choose><esi:when test="$(HTTP_COOKIE{n}) > 9">num</esi:when></esi:choose>`, "num"},
	{"quoted strings compare as strings", `<esi:choose><esi:when test="'42' > '9' | $(HTTP_COOKIE{n}) > '9'">str</esi:when><esi:otherwise>not</esi:otherwise></esi:choose>`, "not"},
	{"a quoted string is true", `<esi:choose><esi:when test="'0'">t</esi:when></esi:choose>`, "t"},
	{"decimals", `<esi:choose><esi:when test="-1.5 &lt; 1 &amp; 2.50 == 2.5">d</esi:when></esi:choose>`, "d"},
	{"operators", `<esi:choose><esi:when test="1 != 2 &amp; 2 &lt;= 2 &amp; 3 >= 3 &amp; 'a' &lt; 'b' &amp; !('a' > 'b')">ops</esi:when></esi:choose>`, "ops"},
	{"raw & and |", `<esi:choose><esi:when test="1==2 | 3==3 & 'x'=='x'">or</esi:when></esi:choose>`, "or"},
	{"& binds tighter than |", `<esi:choose><esi:when test="1==1 | 1==2 & 1==2">t</esi:when></esi:choose>`, "t"},
	{"parentheses", `<esi:choose><esi:when test="(1==1 | 1==2) & 1==2">t</esi:when><esi:otherwise>f</esi:otherwise></esi:choose>`, "f"},
	{"! takes the comparison", `<esi:choose><esi:when test="!1==2">t</esi:when></esi:choose>`, "t"},
	{"!!", `<esi:choose><esi:when test="!!(1==1)">t</esi:when></esi:choose>`, "t"},
	{"truth of values", `<esi:choose><esi:when test="'false' | '' | 0 | 0.0 | $(HTTP_COOKIE{none}|'0')">t</esi:when><esi:when test="$(HTTP_COOKIE{group}) &amp; 'no' &amp; 1">v</esi:when></esi:choose>`, "v"},
	{"triple-quoted string", `<esi:choose><esi:when test="'''it's''' == '''it's'''">q</esi:when></esi:choose>`, "q"},
	{"accept-language", `<esi:choose><esi:when test="$(HTTP_ACCEPT_LANGUAGE{de})">de</esi:when><esi:when test="$(HTTP_ACCEPT_LANGUAGE{en}) &amp; $(HTTP_ACCEPT_LANGUAGE{FR})">en fr</esi:when></esi:choose>`, "en fr"},
	{"user agent", `<esi:choose><esi:when test="$(HTTP_USER_AGENT{browser})=='MOZILLA' &amp; $(HTTP_USER_AGENT{os})=='WIN' &amp; $(HTTP_USER_AGENT{version}) >= 5">ua</esi:when></esi:choose>`, "ua"},
	{"default in a test", `<esi:choose><esi:when test="$(HTTP_COOKIE{none}|'x')=='x' &amp; $(QUERY_STRING{lang})=='fr'">d</esi:when></esi:choose>`, "d"},
	{"malformed test is false", `<esi:choose><esi:when test="1 ==">x</esi:when><esi:when test="(1==1">y</esi:when><esi:when test="bare">z</esi:when><esi:otherwise>O</esi:otherwise></esi:choose>`, "O"},
	{"when without test is false", `<esi:choose><esi:when>x</esi:when><esi:otherwise>O</esi:otherwise></esi:choose>`, "O"},
	{"empty when taken", `<esi:choose><esi:when test="1==1"/><esi:otherwise>O</esi:otherwise></esi:choose>`, ""},
	{"otherwise first", `<esi:choose><esi:otherwise>O</esi:otherwise><esi:when test="1==1">W</esi:when></esi:choose>`, "O"},
	{"nested choose", `<esi:choose><esi:when test="1==1">a<esi:choose><esi:when test="1==2">x</esi:when><esi:otherwise>b</esi:otherwise></esi:choose>c</esi:when><esi:otherwise>y</esi:otherwise></esi:choose>`, "abc"},
	{"choose in a branch not taken", `<esi:choose><esi:when test="1==2"><esi:choose><esi:otherwise>x</esi:otherwise></esi:choose></esi:when></esi:choose>`, ""},
	{"when outside choose verbatim", `<esi:when test="1==1">x</esi:when>`, `<esi:when test="1==1">x</esi:when>`},
	{"stray end tags verbatim", `a</esi:choose></esi:try>b`, `a</esi:choose></esi:try>b`},
	{"end tag closes inner blocks", `<esi:choose><esi:when test="1==1">x</esi:choose>y`, "xy"},
	{"choose not closed", `<esi:choose><esi:when test="1==1">x<esi:include src="/f/a"/>`, "xA"},
	{"choose in esi comment", `<!--esi <esi:choose><esi:when test="1==1">x</esi:when></esi:choose>-->`, " x"},

	// esi:try
	{"attempt succeeds", `<esi:try><esi:attempt>a<esi:include src="/f/a"/></esi:attempt><esi:except>E</esi:except></esi:try>.`, "aA."},
	{"error status fails the attempt", `<esi:try><esi:attempt>a<esi:include src="/f/a"/><esi:include src="/f/404"/></esi:attempt><esi:except>E</esi:except></esi:try>.`, "E."},
	{"fetch failure fails the attempt", `<esi:try><esi:attempt><esi:include src="http://other.example/"/></esi:attempt><esi:except>E</esi:except></esi:try>`, "E"},
	{"alt saves the attempt", `<esi:try><esi:attempt><esi:include src="/f/404" alt="/f/b"/></esi:attempt><esi:except>E</esi:except></esi:try>`, "B"},
	{"onerror continue is no failure", `<esi:try><esi:attempt>a<esi:include src="/f/500" onerror="continue"/>b</esi:attempt><esi:except>E</esi:except></esi:try>`, "ab"},
	{"include in the except", `<esi:try><esi:attempt><esi:include src="/f/500"/></esi:attempt><esi:except>(<esi:include src="/f/b"/>)</esi:except></esi:try>`, "(B)"},
	{"except before attempt", `<esi:try><esi:except>E<esi:include src="/f/b"/></esi:except><esi:attempt><esi:include src="/f/500"/></esi:attempt></esi:try>`, "EB"},
	{"text of the try dropped", "<esi:try> t <esi:attempt>A</esi:attempt>\n<esi:except>E</esi:except> u </esi:try>", "A"},
	{"no except", `a<esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt></esi:try>b`, "ab"},
	{"inner try", `<esi:try><esi:attempt>1<esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt><esi:except>inner</esi:except></esi:try>2</esi:attempt><esi:except>outer</esi:except></esi:try>`, "1inner2"},
	{"inner except fails the outer attempt", `<esi:try><esi:attempt><esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt><esi:except><esi:include src="/f/500"/></esi:except></esi:try></esi:attempt><esi:except>outer</esi:except></esi:try>`, "outer"},
	{"try in an except not used", `<esi:try><esi:attempt>ok</esi:attempt><esi:except><esi:try><esi:attempt><esi:include src="/f/a"/></esi:attempt><esi:except>x</esi:except></esi:try></esi:except></esi:try>`, "ok"},
	{"try in an except used", `<esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt><esi:except><esi:try><esi:attempt><esi:include src="/f/a"/></esi:attempt><esi:except>x</esi:except></esi:try></esi:except></esi:try>`, "A"},
	{"choose in an attempt", `<esi:try><esi:attempt><esi:choose><esi:when test="1==2"><esi:include src="/f/404"/></esi:when><esi:otherwise><esi:include src="/f/a"/></esi:otherwise></esi:choose></esi:attempt><esi:except>E</esi:except></esi:try>`, "A"},
	{"try in a branch not taken", `<esi:choose><esi:when test="1==2"><esi:try><esi:attempt><esi:include src="/f/a"/></esi:attempt><esi:except>E</esi:except></esi:try></esi:when></esi:choose>`, ""},
	{"remove in an attempt", `<esi:try><esi:attempt>a<esi:remove>r</esi:remove>b</esi:attempt></esi:try>`, "ab"},
	{"a nested page's failures are its own", `<esi:try><esi:attempt><esi:include src="/f/esi404"/></esi:attempt><esi:except>E</esi:except></esi:try>`, "(not found body)"},
	{"try not closed", `<esi:try><esi:attempt>a<esi:include src="/f/404"/>`, ""},
	{"attempt outside try verbatim", `<esi:attempt>x</esi:attempt>`, `<esi:attempt>x</esi:attempt>`},

	// esi:vars and variables
	{"cookie", `<esi:vars>[$(HTTP_COOKIE{group})]</esi:vars>`, "[gold]"},
	{"values are HTML-escaped", `<esi:vars>$(HTTP_COOKIE{evil}) $(QUERY_STRING{q})</esi:vars>`, "&lt;b&gt;&amp;&#39;x&#39; a b&lt;c"},
	{"whole query string and cookie", `<esi:vars>$(QUERY_STRING)|$(HTTP_COOKIE)</esi:vars>`, "lang=fr&amp;q=a%20b%3Cc&amp;empty=&amp;dots=..&amp;slash=x/y|group=gold; n=42; evil=&lt;b&gt;&amp;&#39;x&#39;; inj=a?b=1&amp;c#d"},
	{"host and referer", `<esi:vars>$(HTTP_HOST) $(HTTP_REFERER)</esi:vars>`, "example.test http://ref.example/from"},
	{"user agent parts", `<esi:vars>$(HTTP_USER_AGENT{browser}) $(HTTP_USER_AGENT{os}) $(HTTP_USER_AGENT{version})</esi:vars>`, "MOZILLA WIN 5.0"},
	{"accept-language", `<esi:vars>$(HTTP_ACCEPT_LANGUAGE{en}) $(HTTP_ACCEPT_LANGUAGE{de}) $(HTTP_ACCEPT_LANGUAGE{es})</esi:vars>`, "true false false"},
	{"defaults", `<esi:vars>$(QUERY_STRING{empty}|'dflt') $(HTTP_COOKIE{none}|bare) $(HTTP_COOKIE{none}|'two words') $(HTTP_COOKIE{none}|'') $(HTTP_COOKIE{group}|'no')</esi:vars>`, "dflt bare two words  gold"},
	{"'<' ends a reference", `<esi:vars>$(HTTP_COOKIE{none}|'<')</esi:vars>`, "$(HTTP_COOKIE{none}|'<')"},
	{"unknown variable", `<esi:vars>[$(NOPE)][$(NOPE|'x')]</esi:vars>`, "[][x]"},
	{"no substitution outside vars", `$(HTTP_HOST)<esi:vars>$(HTTP_HOST)</esi:vars>$(HTTP_HOST)`, "$(HTTP_HOST)example.test$(HTTP_HOST)"},
	{"malformed references are text", `<esi:vars>$HTTP_HOST $(HTTP_HOST $(HTTP-HOST) $() $(HTTP_COOKIE{a b}) $$(HTTP_HOST) $</esi:vars>`, "$HTTP_HOST $(HTTP_HOST $(HTTP-HOST) $() $(HTTP_COOKIE{a b}) $example.test $"},
	{"a reference never hides a tag", `<esi:vars>$(HTTP_COOKIE{a<esi:include src="/f/a"/>)</esi:vars>`, "$(HTTP_COOKIE{aA)"},
	{"nested vars", `<esi:vars>1<esi:vars>$(HTTP_HOST)</esi:vars>$(HTTP_HOST)</esi:vars>$(HTTP_HOST)`, "1example.testexample.test$(HTTP_HOST)"},
	{"empty vars element", `<esi:vars/>$(HTTP_HOST)`, "$(HTTP_HOST)"},
	{"vars in esi comment", `<!--esi <esi:vars>$(HTTP_HOST)--></esi:vars>-->`, " example.test-->"},
	{"vars in a branch", `<esi:choose><esi:when test="1==1"><esi:vars>$(HTTP_COOKIE{n})</esi:vars></esi:when></esi:choose>`, "42"},
	{"variables of a fragment", `<esi:include src="/f/vars?x=1"/>`, "1|gold"},
	{"variables in src", `<esi:include src="/f/echo/$(HTTP_COOKIE{group})?q=$(QUERY_STRING{q})&amp;l=$(QUERY_STRING{lang})"/>`, "/f/echo/gold?q=a%20b%3Cc&l=fr"},
	{"no injection through src", `<esi:include src="/f/echo/$(HTTP_COOKIE{inj})?v=$(HTTP_COOKIE{inj})"/>`, "/f/echo/a?b=1&c#d?v=a%3Fb%3D1%26c%23d"},
	{"no climbing through src", `<esi:include src="/f/echo/x$(QUERY_STRING{dots})y$(QUERY_STRING{slash})z?d=$(QUERY_STRING{dots})&s=$(QUERY_STRING{slash})"/>`, "/f/echo/xyz?d=..&s=x%2Fy"},
	{"variables in alt", `<esi:include src="/f/404" alt="/f/$(QUERY_STRING{none}|b)"/>`, "B"},
	{"default in src", `<esi:include src="/f/$(HTTP_COOKIE{none}|'a')"/>`, "A"},
}

// TestIncludeAuthorityFromVariables: a variable in the authority of an
// include's src keeps a port (and an IPv6 literal's brackets), so that
// "http://$(HTTP_HOST)/..." includes from a Host with a port, while a
// value that names another authority is still refused.
func TestIncludeAuthorityFromVariables(t *testing.T) {
	doc := `<esi:include src="http://$(HTTP_HOST)/f/a"/><esi:include src="//$(HTTP_HOST)/f/b"/>` +
		`<esi:include src="http://$(QUERY_STRING{h})/f/a"/><esi:include src="//$(QUERY_STRING{u})/f/a"/>`
	want := "AB" + marker + marker
	for _, host := range []string{"example.test:8080", "[::1]:8080", "[::1]"} {
		h := mustNew(t, htmlPage(doc), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
		r := httptest.NewRequest("GET", "/f/page?h=other.test:8080&u=example.test:8080@other.test", nil)
		r.Host = host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if got := rec.Body.String(); got != want {
			t.Errorf("Host %s: got %q, want %q", host, got, want)
		}
	}
}

// serveLang runs doc through a handler for langRequest, written by write.
func serveLang(t testing.TB, opts esi.Options, write func(w http.ResponseWriter)) string {
	t.Helper()
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		write(w)
	}), opts)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, langRequest())
	return rec.Body.String()
}

func TestLanguage(t *testing.T) {
	opts := esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()}
	for _, tc := range langCases {
		t.Run(tc.name, func(t *testing.T) {
			got := serveLang(t, opts, func(w http.ResponseWriter) { io.WriteString(w, tc.doc) })
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLanguageSplits serves every case split in two at every byte, through
// Write and through ReadFrom with 5-byte buffers, and checks the parser
// alone the same way and byte by byte.
func TestLanguageSplits(t *testing.T) {
	frags := fragments()
	for _, tc := range langCases {
		doc := tc.doc
		whole, _ := parse(t, []byte(doc))
		for k := 0; k <= len(doc); k++ {
			if got, _ := parse(t, []byte(doc[:k]), []byte(doc[k:])); got != whole {
				t.Fatalf("%s: parser split at %d: got %q, want %q", tc.name, k, got, whole)
			}
			opts := esi.Options{Fetcher: esi.FetchHandler(frags), Logger: discardLog()}
			if got := serveLang(t, opts, func(w http.ResponseWriter) {
				io.WriteString(w, doc[:k])
				io.WriteString(w, doc[k:])
			}); got != tc.want {
				t.Fatalf("%s: two writes split at %d: got %q, want %q", tc.name, k, got, tc.want)
			}
			opts.BufferSize = 5
			if got := serveLang(t, opts, func(w http.ResponseWriter) {
				io.Copy(w, io.MultiReader(strings.NewReader(doc[:k]), strings.NewReader(doc[k:])))
			}); got != tc.want {
				t.Fatalf("%s: reads split at %d into 5-byte buffers: got %q, want %q", tc.name, k, got, tc.want)
			}
		}
		var bytewise [][]byte
		for i := range len(doc) {
			bytewise = append(bytewise, []byte(doc[i:i+1]))
		}
		if got, _ := parse(t, bytewise...); got != whole {
			t.Fatalf("%s: parser byte by byte: got %q, want %q", tc.name, got, whole)
		}
	}
}

// countingFragments serves fragments() and counts the requests per path.
type countingFragments struct {
	mu   sync.Mutex
	hits map[string]int
	h    http.Handler
}

func (c *countingFragments) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.hits[r.URL.Path]++
	c.mu.Unlock()
	c.h.ServeHTTP(w, r)
}

// TestBranchesNotTakenFetchNothing: includes of a when not taken, of an
// except not used, of a try's own text are never requested.
func TestBranchesNotTakenFetchNothing(t *testing.T) {
	frags := &countingFragments{hits: map[string]int{}, h: fragments()}
	doc := `<esi:choose><esi:when test="1==2"><esi:include src="/f/a"/></esi:when>` +
		`<esi:include src="/f/a"/><esi:otherwise><esi:include src="/f/b"/></esi:otherwise></esi:choose>` +
		`<esi:try><esi:include src="/f/a"/><esi:attempt><esi:include src="/f/b"/></esi:attempt>` +
		`<esi:except><esi:include src="/f/a"/><esi:include src="/f/a" alt="/f/404"/></esi:except></esi:try>`
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(frags), Logger: discardLog()}, htmlPage(doc))
	if _, body := testclient.Get(t, srv.URL+"/"); body != "BB" {
		t.Fatalf("got %q", body)
	}
	frags.mu.Lock()
	defer frags.mu.Unlock()
	if frags.hits["/f/a"] != 0 || frags.hits["/f/b"] != 2 {
		t.Fatalf("fragments requested: %v", frags.hits)
	}
}

// TestTryWaitsForTheAttempt: the except block is used when a slow include
// of the attempt fails, and the text after the try waits for the decision.
func TestTryWaitsForTheAttempt(t *testing.T) {
	gate := make(chan struct{})
	_, fetch := origin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			<-gate
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		io.WriteString(w, strings.TrimPrefix(r.URL.Path, "/"))
	}))
	doc := `head<esi:try><esi:attempt>[<esi:include src="/slow"/>]</esi:attempt><esi:except>(<esi:include src="/fallback"/>)</esi:except></esi:try>tail`
	srv := pageServer(t, esi.Options{Fetcher: fetch, Logger: discardLog()}, htmlPage(doc))
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAsync(resp.Body)
	body.waitFor(t, "head")
	close(gate)
	body.waitFor(t, "head(fallback)tail")
	<-body.done
}

// TestExceptWaitsWithoutGoroutines: while an attempt waits for a slow
// fragment, the includes of its except, and the tries in it, wait for the
// decision without a goroutine each: a page cannot make the server hold
// goroutines by the thousand, beyond what esi_max_includes lets run.
func TestExceptWaitsWithoutGoroutines(t *testing.T) {
	gate := make(chan struct{})
	frags := fragments()
	frags.HandleFunc("/f/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusBadGateway)
	})
	const n = 1000
	doc := `<esi:try><esi:attempt><esi:include src="/f/slow"/></esi:attempt><esi:except>` +
		strings.Repeat(`<esi:include src="/f/a"/>`, n) +
		strings.Repeat(`<esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt><esi:except><esi:include src="/f/b"/></esi:except></esi:try>`, n) +
		`</esi:except></esi:try>`
	h := mustNew(t, htmlPage(doc), esi.Options{Fetcher: esi.FetchHandler(frags), MaxIncludes: 4 * n, Logger: discardLog()})
	before := runtime.NumGoroutine()
	done := make(chan string)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/f/page", nil))
		done <- rec.Body.String()
	}()
	// The page is parsed and waits for /f/slow when its goroutines stop
	// growing; a goroutine per waiting include or try would be thousands.
	var during int
	for i := 0; i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
		during = runtime.NumGoroutine()
	}
	close(gate)
	if body, want := <-done, strings.Repeat("A", n)+strings.Repeat("B", n); body != want {
		t.Errorf("got %d bytes %.40q..., want %d bytes", len(body), body, len(want))
	}
	if during-before > 50 {
		t.Errorf("%d goroutines while the except waited", during-before)
	}
}

func TestLanguageWarnings(t *testing.T) {
	log, sink := newLog()
	doc := `<esi:choose><esi:when test="1 ==">x</esi:when></esi:choose><esi:when test="1">y</esi:when>` +
		`<esi:vars>$(NOPE)</esi:vars><esi:try><esi:attempt>a`
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: log}, htmlPage(doc))
	if _, body := testclient.Get(t, srv.URL+"/"); body != `<esi:when test="1">y</esi:when>a` {
		t.Fatalf("got %q", body)
	}
	for _, want := range []string{
		"malformed test of <esi:when>, taken as false",
		"<esi:when> outside <esi:choose> passed through",
		"unknown variable",
		"<esi:attempt> not closed at end of body",
		"<esi:try> not closed at end of body",
	} {
		if !strings.Contains(sink.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, sink)
		}
	}
}
