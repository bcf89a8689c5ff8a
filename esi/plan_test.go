package esi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	abrotli "github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/vars"
)

// planPage holds every construct: plans must reproduce each, with the
// branches and try blocks decided per request.
var planPage = strings.Repeat("<p>lead text, with a < b and <em>markup</em> that is not ESI</p>\n", 40) +
	`<!-- a comment with <esi:include src="/f/a"/> inside -->
<esi:include src="/f/a"/> after include
<esi:remove>removed <esi:include src="/f/b"/></esi:remove>
<!--esi <p>esi comment <esi:include src="/f/b"/> - -- </p> -->
<esi:vars>host=$(HTTP_HOST) x=$(QUERY_STRING{x}) $(HTTP_COOKIE{group}|'none')</esi:vars>
<esi:choose><esi:when test="$(HTTP_COOKIE{group})=='a'">group A <esi:include src="/f/a"/></esi:when><esi:otherwise>other <esi:include src="/f/b"/></esi:otherwise></esi:choose>
<esi:try><esi:attempt>try <esi:include src="/f/404"/></esi:attempt><esi:except>except <esi:include src="/f/b"/></esi:except></esi:try>
<esi:try><esi:attempt>ok <esi:include src="/f/a"/></esi:attempt><esi:except>unused <esi:include src="/f/b"/></esi:except></esi:try>
<esi:choose><esi:when test="$(QUERY_STRING{x})==2"/></esi:choose>
<esi:comment text="dropped"/><esi:unknown/>` + strings.Repeat("<div>tail text</div>\n", 30)

// bodyID is the identity a cache gives the stored entry of body under
// uri: one per URI and body here, never 0.
func bodyID(uri string, body []byte) uint64 {
	return uint64(crc32.ChecksumIEEE(body))<<32 | uint64(crc32.ChecksumIEEE([]byte(uri))) | 1<<63
}

// storedAs sets what a cache publishes when it serves a stored body:
// $upstream_cache_status and the body's identity.
func storedAs(r *http.Request, status string, id uint64) {
	st := vars.FromContext(r.Context())
	st.Set("upstream_cache_status", status)
	st.Set("cache_body_id", strconv.FormatUint(id, 16))
}

// storedPage serves body as a cache would serve a stored object: with its
// Date and Content-Length, $upstream_cache_status set to status and the
// body's identity, written in pieces of chunk bytes (or through io.Copy
// when copyFrom).
func storedPage(body []byte, status string, chunk int, copyFrom bool) http.HandlerFunc {
	return lyingPage(body, body, status, chunk, copyFrom)
}

// lyingPage is storedPage with the identity of idOf, which may be another
// body; none for nil.
func lyingPage(body, idOf []byte, status string, chunk int, copyFrom bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var id uint64
		if idOf != nil {
			id = bodyID(r.URL.RequestURI(), idOf)
		}
		storedAs(r, status, id)
		h := w.Header()
		h.Set("Content-Type", "text/html")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
		h.Set("Age", "3")
		if copyFrom {
			io.Copy(w, &pieceReader{b: body, n: chunk})
			return
		}
		for i := 0; i < len(body); i += chunk {
			w.Write(body[i:min(i+chunk, len(body))])
		}
	}
}

// pieceReader yields b n bytes at a time.
type pieceReader struct {
	b []byte
	n int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}

// planRequest is a request with the variables state the server gives one.
func planRequest(target, cookie, acceptEncoding string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r = r.WithContext(vars.NewContext(context.Background(), new(vars.State)))
	if cookie != "" {
		r.Header.Set("Cookie", cookie)
	}
	if acceptEncoding != "" {
		r.Header.Set("Accept-Encoding", acceptEncoding)
	}
	return r
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// decoded returns a response's body decoded from its Content-Encoding,
// checking that a gzip body is one member.
func decoded(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	body := w.Body.Bytes()
	switch enc := w.Header().Get("Content-Encoding"); enc {
	case "":
		return string(body)
	case "gzip":
		br := bytes.NewReader(body) // an io.ByteReader: gzip reads no further than the member
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		zr.Multistream(false)
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("gzip body: %v", err)
		}
		if br.Len() != 0 {
			t.Fatalf("%d bytes after the gzip member", br.Len())
		}
		return string(out)
	case "br":
		out, err := io.ReadAll(abrotli.NewReader(bytes.NewReader(body)))
		if err != nil {
			t.Fatalf("brotli body: %v", err)
		}
		return string(out)
	case "zstd":
		zr, err := zstd.NewReader(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		out, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("zstd body: %v", err)
		}
		return string(out)
	default:
		t.Fatalf("unexpected Content-Encoding %q", enc)
	}
	return ""
}

var planCookies = []string{"group=a", "group=b", ""}

// want returns what a full parse makes of body for each cookie.
func want(t *testing.T, body []byte) []string {
	t.Helper()
	ref := mustNew(t, storedPage(body, "HIT", len(body), false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
	var out []string
	for i, c := range planCookies {
		out = append(out, serve(ref, planRequest("/page?x="+strconv.Itoa(i), c, "")).Body.String())
	}
	return out
}

func newPlans(t testing.TB, size int64) *esi.PlanStore {
	t.Helper()
	s, err := esi.NewPlanStore(size)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPlanReplaysEveryConstruct records the plan of a stored page and
// replays it, with the page written whole, in pieces of every size, and
// read through io.Copy: the output is the full parse's, branch by branch.
func TestPlanReplaysEveryConstruct(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	if !strings.Contains(wants[0], "group A A") || !strings.Contains(wants[1], "other B") ||
		!strings.Contains(wants[0], "except B") || strings.Contains(wants[0], "unused") {
		t.Fatalf("reference output lacks its branches:\n%s", wants[0])
	}
	for _, copyFrom := range []bool{false, true} {
		for _, chunk := range []int{len(body), 1, 2, 3, 7, 64, 500, 4096} {
			plans := newPlans(t, 1<<20)
			h := mustNew(t, storedPage(body, "HIT", chunk, copyFrom), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog(), BufferSize: 256})
			for round := 0; round < 2; round++ {
				for i, c := range planCookies {
					got := serve(h, planRequest("/page?x="+strconv.Itoa(i), c, "")).Body.String()
					if got != wants[i] {
						t.Fatalf("copyFrom %v, pieces of %d, round %d, cookie %q:\ngot  %q\nwant %q", copyFrom, chunk, round, c, got, wants[i])
					}
				}
			}
			st := plans.Stats()
			// One plan per URI: the query is part of the key.
			if st.Recorded != 3 || st.Replayed != 3 || st.Mismatch != 0 || st.Plans != 3 {
				t.Fatalf("copyFrom %v, pieces of %d: stats %+v, want 3 recorded, 3 replayed", copyFrom, chunk, st)
			}
		}
	}
}

// TestPlanSplitAtEveryByte replays a plan with the page written in two
// pieces split at every byte.
func TestPlanSplitAtEveryByte(t *testing.T) {
	body := []byte(planPage[len(planPage)-1200:])
	wants := want(t, body)
	plans := newPlans(t, 1<<20)
	rec := mustNew(t, storedPage(body, "HIT", len(body), false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
	serve(rec, planRequest("/page?x=0", "", ""))
	for k := 1; k < len(body); k++ {
		split := func(w http.ResponseWriter, r *http.Request) {
			storedAs(r, "HIT", bodyID(r.URL.RequestURI(), body))
			h := w.Header()
			h.Set("Content-Type", "text/html")
			h.Set("Content-Length", strconv.Itoa(len(body)))
			h.Set("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
			w.Write(body[:k])
			w.Write(body[k:])
		}
		h := mustNew(t, http.HandlerFunc(split), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
		i := k % len(planCookies)
		if got := serve(h, planRequest("/page?x="+strconv.Itoa(i), planCookies[i], "")).Body.String(); got != wants[i] {
			t.Fatalf("split at %d:\ngot  %q\nwant %q", k, got, wants[i])
		}
	}
	// Every split delivery but the few that recorded was a replay.
	if st := plans.Stats(); st.Mismatch != 0 || st.Recorded != 3 || st.Replayed < int64(len(body)-1-3) {
		t.Fatalf("stats %+v", st)
	}
}

// TestPlanCollision serves, under the identity of a recorded body, bodies
// that differ from it, which a cache never does (it draws a new identity
// for each body it stores): in a piece of markup, in the bytes after a
// verbatim run, and in length. Each is parsed from where it differs, never
// replayed wrong, and the plan is dropped.
func TestPlanCollision(t *testing.T) {
	orig := []byte(planPage)
	markup := bytes.Replace(orig, []byte(`<esi:include src="/f/a"/> after`), []byte(`<esi:include src="/f/b"/> after`), 1)
	// "-->" is markup, and the byte after it is in the guard of the run
	// before it, but in no markup.
	guard := bytes.Replace(orig, []byte("</p> -->\n<esi:vars>"), []byte("</p> -->X<esi:vars>"), 1)
	longer := append(bytes.Clone(orig), `<esi:include src="/f/a"/>`...)
	shorter := orig[:len(orig)-300]
	for name, body := range map[string][]byte{"markup": markup, "guard": guard, "longer": longer, "shorter": shorter} {
		if bytes.Equal(body, orig) {
			t.Fatalf("%s: the body is not changed", name)
		}
		for _, chunk := range []int{len(orig) + 100, 1, 13, 1000} {
			plans := newPlans(t, 1<<20)
			rec := mustNew(t, storedPage(orig, "HIT", len(orig), false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
			serve(rec, planRequest("/page?x=0", "", ""))
			lying := lyingPage(body, orig, "HIT", chunk, false)
			ref := mustNew(t, lying, esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
			wantBody := serve(ref, planRequest("/page?x=0", "group=a", "")).Body.String()
			h := mustNew(t, lying, esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
			if got := serve(h, planRequest("/page?x=0", "group=a", "")).Body.String(); got != wantBody {
				t.Fatalf("%s in pieces of %d:\ngot  %q\nwant %q", name, chunk, got, wantBody)
			}
			if st := plans.Stats(); st.Mismatch != 1 || st.Plans != 0 {
				t.Fatalf("%s in pieces of %d: stats %+v, want the plan dropped", name, chunk, st)
			}
		}
	}
}

// TestPlanKeyedOnBodyID: a refilled entry (same URI, header and length, a
// new body identity) never replays the plan of the body it replaced, and
// an entry without an identity has no plan.
func TestPlanKeyedOnBodyID(t *testing.T) {
	orig := []byte(planPage)
	refill := bytes.Replace(orig, []byte("lead text"), []byte("LEAD TEXT"), 1) // in a run: no check sees it
	plans := newPlans(t, 1<<20)
	opts := esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()}
	serve(mustNew(t, storedPage(orig, "HIT", 4096, false), opts), planRequest("/page", "", ""))
	h := mustNew(t, storedPage(refill, "HIT", 4096, false), opts)
	if got := serve(h, planRequest("/page", "", "")).Body.String(); !strings.Contains(got, "LEAD TEXT") {
		t.Fatalf("the refilled body replayed the old plan: %q", got[:200])
	}
	if st := plans.Stats(); st.Recorded != 2 || st.Replayed != 0 {
		t.Fatalf("stats %+v, want a plan per body", st)
	}
	anonymous := mustNew(t, lyingPage(orig, nil, "HIT", 4096, false), opts)
	serve(anonymous, planRequest("/page", "", ""))
	if st := plans.Stats(); st.Recorded != 2 || st.Replayed != 0 {
		t.Fatalf("stats %+v: a body without identity has a plan", st)
	}
}

// TestPlanOnlyForStoredObjects: a response that did not come from a
// cache's store records nothing.
func TestPlanOnlyForStoredObjects(t *testing.T) {
	for _, status := range []string{"MISS", "BYPASS", "EXPIRED", ""} {
		plans := newPlans(t, 1<<20)
		h := mustNew(t, storedPage([]byte(planPage), status, 4096, false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
		serve(h, planRequest("/page", "", ""))
		serve(h, planRequest("/page", "", ""))
		if st := plans.Stats(); st.Recorded != 0 || st.Plans != 0 {
			t.Fatalf("status %q: %+v, want nothing recorded", status, st)
		}
	}
}

// TestPlanStoreBounded: the store evicts the least recently used plans
// and stays within its size.
func TestPlanStoreBounded(t *testing.T) {
	plans := newPlans(t, esi.MinPlanStoreSize)
	h := mustNew(t, storedPage([]byte(planPage), "HIT", 4096, false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
	for i := 0; i < 200; i++ {
		serve(h, planRequest("/page"+strconv.Itoa(i), "", ""))
	}
	st := plans.Stats()
	if st.Evictions == 0 || st.Bytes > esi.MinPlanStoreSize || st.Plans == 0 || st.Recorded != 200 {
		t.Fatalf("stats %+v", st)
	}
	// The most recent page is still there.
	serve(h, planRequest("/page199", "", ""))
	if plans.Stats().Replayed != 1 {
		t.Fatalf("the last page's plan was not kept: %+v", plans.Stats())
	}
}

// stitchOpts stitches with coding c for every client that sends
// Accept-Encoding.
func stitchOpts(plans *esi.PlanStore, c esi.Coding, vary bool) esi.Options {
	return esi.Options{
		Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog(),
		Stitch: &esi.Stitch{Choose: func(r *http.Request) (esi.Coding, bool) {
			if r.Header.Get("Accept-Encoding") == "" {
				return esi.CodingNone, vary
			}
			return c, vary
		}},
	}
}

// stitchCodings are the codings stitching makes.
var stitchCodings = []esi.Coding{esi.CodingGzip, esi.CodingZstd, esi.CodingBrotli}

// TestStitch serves a stored page to gzip, zstd and brotli clients: the first
// delivery records the plan and is compressed live, the later ones write
// the page's runs from their stored forms; every body decodes, as one gzip
// member, to the full parse's output, whatever the pieces the page comes
// in. A client without the coding gets the plain page.
func TestStitch(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	for _, c := range stitchCodings {
		for _, chunk := range []int{len(body), 1, 7, 300} {
			plans := newPlans(t, 1<<20)
			h := mustNew(t, storedPage(body, "HIT", chunk, chunk == 300), stitchOpts(plans, c, true))
			for round := 0; round < 3; round++ {
				for i, cookie := range planCookies {
					w := serve(h, planRequest("/page?x="+strconv.Itoa(i), cookie, c.String()))
					if ce := w.Header().Get("Content-Encoding"); ce != c.String() {
						t.Fatalf("%v: Content-Encoding %q", c, ce)
					}
					if v := w.Header().Get("Vary"); v != "Accept-Encoding" {
						t.Fatalf("%v: Vary %q", c, v)
					}
					if got := decoded(t, w); got != wants[i] {
						t.Fatalf("%v in pieces of %d, round %d, cookie %q:\ngot  %q\nwant %q", c, chunk, round, cookie, got, wants[i])
					}
				}
			}
			plain := serve(h, planRequest("/page?x=0", planCookies[0], ""))
			if plain.Header().Get("Content-Encoding") != "" || plain.Body.String() != wants[0] {
				t.Fatalf("%v: a client without the coding got %q", c, plain.Header().Get("Content-Encoding"))
			}
			if st := plans.Stats(); st.Recorded != 3 || st.Mismatch != 0 {
				t.Fatalf("%v: stats %+v", c, st)
			}
		}
	}
}

// TestStitchUsesStoredRuns: after the first delivery a stitched response
// is made from stored runs, which grow the plan's bytes once, and the
// stitched body is what the gzip, zstd and brotli tools decode too.
func TestStitchUsesStoredRuns(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	for _, c := range stitchCodings {
		plans := newPlans(t, 1<<20)
		h := mustNew(t, storedPage(body, "HIT", 1000, false), stitchOpts(plans, c, false))
		serve(h, planRequest("/page?x=1", planCookies[1], c.String()))
		recorded := plans.Stats().Bytes
		w := serve(h, planRequest("/page?x=1", planCookies[1], c.String()))
		grown := plans.Stats().Bytes
		if grown <= recorded {
			t.Fatalf("%v: the plan did not take the stored runs: %d then %d bytes", c, recorded, grown)
		}
		w2 := serve(h, planRequest("/page?x=1", planCookies[1], c.String()))
		if plans.Stats().Bytes != grown {
			t.Fatalf("%v: runs compressed again", c)
		}
		if !bytes.Equal(w.Body.Bytes(), w2.Body.Bytes()) {
			t.Fatalf("%v: two stitched deliveries differ", c)
		}
		if w.Header().Get("Vary") != "" {
			t.Fatalf("Vary %q without vary", w.Header().Get("Vary"))
		}
		tool, args := map[esi.Coding]string{esi.CodingGzip: "gzip", esi.CodingZstd: "zstd", esi.CodingBrotli: "brotli"}[c], []string{"-dc"}
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("%s not installed: decoded with Go only", tool)
			continue
		}
		cmd := exec.Command(tool, args...)
		cmd.Stdin = bytes.NewReader(w.Body.Bytes())
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		if string(out) != wants[1] {
			t.Fatalf("%s decodes %q, want %q", tool, out, wants[1])
		}
	}
}

// TestStitchCollision: stitched deliveries of bodies that differ from
// the recorded one under its identity (which a cache never serves). A
// body that differs in markup first is parsed from there, and its answer
// is right. One that ends inside a run already sent from its stored form
// cannot be answered right: the response is cut (http.ErrAbortHandler),
// never completed wrong.
func TestStitchCollision(t *testing.T) {
	orig := []byte(planPage)
	markup := bytes.Replace(orig, []byte(`<esi:include src="/f/a"/> after`), []byte(`<esi:include src="/f/b"/> after`), 1)
	for _, c := range stitchCodings {
		plans := newPlans(t, 1<<20)
		h := mustNew(t, storedPage(orig, "HIT", 4096, false), stitchOpts(plans, c, false))
		serve(h, planRequest("/page", "", c.String()))
		serve(h, planRequest("/page", "", c.String())) // the runs are stored
		ref := mustNew(t, storedPage(markup, "HIT", 4096, false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
		wantBody := serve(ref, planRequest("/page", "", "")).Body.String()
		lying := mustNew(t, lyingPage(markup, orig, "HIT", 4096, false), stitchOpts(plans, c, false))
		if got := decoded(t, serve(lying, planRequest("/page", "", c.String()))); got != wantBody {
			t.Fatalf("%v, markup: got %q\nwant %q", c, got, wantBody)
		}
		if st := plans.Stats(); st.Mismatch != 1 {
			t.Fatalf("%v: stats %+v", c, st)
		}
		serve(h, planRequest("/page", "", c.String()))
		serve(h, planRequest("/page", "", c.String()))
		short := mustNew(t, lyingPage(orig[:len(orig)-300], orig, "HIT", 4096, false), stitchOpts(plans, c, false))
		func() {
			defer func() {
				if v := recover(); v != http.ErrAbortHandler {
					t.Fatalf("%v, shorter: recovered %v, want http.ErrAbortHandler", c, v)
				}
			}()
			serve(short, planRequest("/page", "", c.String()))
		}()
		if st := plans.Stats(); st.Mismatch != 2 || st.Plans != 0 {
			t.Fatalf("%v: stats %+v, want the plan dropped", c, st)
		}
	}
}

func TestStitchRequiresPlans(t *testing.T) {
	opts := stitchOpts(nil, esi.CodingGzip, false)
	if _, err := esi.New(http.NotFoundHandler(), opts); err == nil {
		t.Fatal("Stitch without Plans accepted")
	}
	opts = stitchOpts(newPlans(t, 1<<20), esi.CodingGzip, false)
	opts.Stitch.Level = 10
	if _, err := esi.New(http.NotFoundHandler(), opts); err == nil {
		t.Fatal("level 10 accepted")
	}
}

// TestStitchConcurrent delivers one stored page to many clients at once,
// gzip, zstd, brotli and plain, while its plan is recorded and its runs stored.
func TestStitchConcurrent(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	plans := newPlans(t, 1<<20)
	h := mustNew(t, storedPage(body, "HIT", 700, false), esi.Options{
		Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog(),
		Stitch: &esi.Stitch{Choose: func(r *http.Request) (esi.Coding, bool) {
			switch r.Header.Get("Accept-Encoding") {
			case "gzip":
				return esi.CodingGzip, false
			case "zstd":
				return esi.CodingZstd, false
			case "br":
				return esi.CodingBrotli, false
			}
			return esi.CodingNone, false
		}},
	})
	errs := make(chan string, 64)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 10 {
				ae := []string{"gzip", "zstd", "br", ""}[(g+i)%4]
				w := serve(h, planRequest("/page?x=0", planCookies[0], ae))
				if got := decodedQuiet(w); got != wants[0] {
					errs <- fmt.Sprintf("client %d, request %d (%q): wrong body", g, i, ae)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// decodedQuiet is decoded for goroutines: "" when the body does not decode.
func decodedQuiet(w *httptest.ResponseRecorder) string {
	var r io.Reader = w.Body
	switch w.Header().Get("Content-Encoding") {
	case "gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return ""
		}
		r = zr
	case "zstd":
		zr, err := zstd.NewReader(r)
		if err != nil {
			return ""
		}
		defer zr.Close()
		r = zr
	case "br":
		r = abrotli.NewReader(r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return ""
	}
	return string(b)
}

// TestStitchGzippedStoredPage: a page stored gzipped is inflated, its plan
// recorded over the inflated stream and replayed; a HEAD gets the headers
// of the stitched GET.
func TestStitchGzippedStoredPage(t *testing.T) {
	plain := []byte(planPage)
	zipped := gzipped(planPage)
	wants := want(t, plain)
	plans := newPlans(t, 1<<20)
	next := func(w http.ResponseWriter, r *http.Request) {
		storedPage(zipped, "HIT", 500, false)(w, r)
	}
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		next(w, r)
	}), stitchOpts(plans, esi.CodingGzip, true))
	for i := range 3 {
		w := serve(h, planRequest("/page?x=0", planCookies[0], "gzip"))
		if got := decoded(t, w); got != wants[0] {
			t.Fatalf("delivery %d:\ngot  %q\nwant %q", i, got, wants[0])
		}
	}
	if st := plans.Stats(); st.Recorded != 1 || st.Replayed != 2 || st.Mismatch != 0 {
		t.Fatalf("stats %+v", st)
	}
	r := planRequest("/page?x=0", "", "gzip")
	r.Method = http.MethodHead
	w := serve(h, r)
	if w.Header().Get("Content-Encoding") != "gzip" || w.Header().Get("Vary") != "Accept-Encoding" || w.Body.Len() != 0 {
		t.Fatalf("HEAD: %v, %d bytes", w.Header(), w.Body.Len())
	}
}

// TestPlanNotReplayable: a page whose parse ends inside a comment is not
// recorded, and its later deliveries parse it without trying again.
func TestPlanNotReplayable(t *testing.T) {
	body := []byte(`a<esi:include src="/f/a"/>b<!-- never closed <esi:include src="/f/b"/>`)
	wants := want(t, body)
	plans := newPlans(t, 1<<20)
	h := mustNew(t, storedPage(body, "HIT", 5, false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
	for range 3 {
		if got := serve(h, planRequest("/page?x=0", planCookies[0], "")).Body.String(); got != wants[0] {
			t.Fatalf("got %q, want %q", got, wants[0])
		}
	}
	if st := plans.Stats(); st.Recorded != 0 || st.Replayed != 0 || st.Plans != 1 {
		t.Fatalf("stats %+v, want one entry saying no plan", st)
	}
}

// TestPlanFromBuffers: a page handed over as a *net.Buffers (the server's
// memory store does so) is parsed in place, recorded and replayed, plain
// and stitched, in slices of any size.
func TestPlanFromBuffers(t *testing.T) {
	body := []byte(planPage)
	wants := want(t, body)
	for _, c := range append([]esi.Coding{esi.CodingNone}, stitchCodings...) {
		for _, chunk := range []int{1, 7, 1000, len(body)} {
			page := func(w http.ResponseWriter, r *http.Request) {
				storedAs(r, "HIT", bodyID(r.URL.RequestURI(), body))
				w.Header().Set("Content-Type", "text/html")
				var bufs net.Buffers
				for i := 0; i < len(body); i += chunk {
					bufs = append(bufs, body[i:min(i+chunk, len(body))])
				}
				if n, err := w.(io.ReaderFrom).ReadFrom(&bufs); n != int64(len(body)) || err != nil || len(bufs) != 0 {
					t.Errorf("ReadFrom: %d, %v, %d slices left", n, err, len(bufs))
				}
			}
			plans := newPlans(t, 1<<20)
			opts := stitchOpts(plans, c, false)
			if c == esi.CodingNone {
				opts.Stitch = nil
			}
			h := mustNew(t, http.HandlerFunc(page), opts)
			for round := range 3 {
				for i, cookie := range planCookies {
					if got := decoded(t, serve(h, planRequest("/page?x="+strconv.Itoa(i), cookie, c.String()))); got != wants[i] {
						t.Fatalf("%v in slices of %d, round %d: got %q\nwant %q", c, chunk, round, got, wants[i])
					}
				}
			}
			if st := plans.Stats(); st.Recorded != 3 || st.Replayed != 6 || st.Mismatch != 0 {
				t.Fatalf("%v in slices of %d: stats %+v", c, chunk, st)
			}
		}
	}
}

// TestPlanReplayWritesRunsEarly: a plain replay writes a run's bytes as
// they arrive, but for its last 8, which wait for the bytes after the run;
// it does not hold a run that straddles reads until its end. The page
// leads with a run of more than 2 KB, written in pieces of 500 bytes.
func TestPlanReplayWritesRunsEarly(t *testing.T) {
	body := []byte(planPage)
	run := strings.Index(planPage, "<!--") // the first run ends there
	if run < 1500 {
		t.Fatalf("the page's first run is %d bytes", run)
	}
	wants := want(t, body)
	plans := newPlans(t, 1<<20)
	var out countingWriter
	var sentAt []int // bytes the client had after each piece, in order
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		storedAs(r, "HIT", bodyID(r.URL.RequestURI(), body))
		w.Header().Set("Content-Type", "text/html")
		sentAt = sentAt[:0]
		for i := 0; i < len(body); i += 500 {
			w.Write(body[i:min(i+500, len(body))])
			sentAt = append(sentAt, out.written())
		}
	}), esi.Options{Fetcher: esi.FetchHandler(fragments()), Plans: plans, Logger: discardLog()})
	for round := range 2 { // records, then replays
		out = countingWriter{h: http.Header{}}
		h.ServeHTTP(&out, planRequest("/page?x=0", planCookies[0], ""))
		if got := out.body.String(); got != wants[0] {
			t.Fatalf("round %d: got %q\nwant %q", round, got, wants[0])
		}
	}
	if st := plans.Stats(); st.Replayed != 1 {
		t.Fatalf("stats %+v: the second delivery did not replay", st)
	}
	// Pieces 1 to 3 lie inside the run, more than 8 bytes before its end.
	for i, n := range sentAt[:3] {
		if want := 500 * (i + 1); n != want {
			t.Errorf("after piece %d the client had %d bytes, want %d", i+1, n, want)
		}
	}
}

// countingWriter is a ResponseWriter whose body the page's handler reads
// between its writes (fragments may be written from their own goroutines
// meanwhile).
type countingWriter struct {
	h    http.Header
	body syncbuf.Buffer
}

func (c *countingWriter) Header() http.Header         { return c.h }
func (c *countingWriter) WriteHeader(int)             {}
func (c *countingWriter) Write(b []byte) (int, error) { return c.body.Write(b) }
func (c *countingWriter) written() int                { return len(c.body.String()) }
