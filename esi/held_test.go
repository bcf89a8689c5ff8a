package esi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
)

// TestMaxHeldSize: page text behind a fragment not yet in is held up to
// MaxHeldSize bytes; then the page's writes wait (the page's upstream
// would stop being read) until the fragment is in, and the page comes
// out whole and in order.
func TestMaxHeldSize(t *testing.T) {
	const held, chunk, total = 64 << 10, 4 << 10, 4 << 20
	open := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/f/slow", func(w http.ResponseWriter, _ *http.Request) {
		<-open
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "S")
	})
	var written atomic.Int64
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `[<esi:include src="/f/slow"/>]`)
		b := []byte(strings.Repeat("t", chunk))
		for range total / chunk {
			if _, err := w.Write(b); err != nil {
				return
			}
			written.Add(chunk)
		}
	})
	h := mustNew(t, page, esi.Options{Fetcher: esi.FetchHandler(mux), MaxHeldSize: held})
	last, rec := stalledThenReleased(h, &written, func() { close(open) })
	if last > held {
		t.Errorf("the page wrote %d bytes behind a pending fragment, want at most %d held", last, held)
	}
	if want := "[S]" + strings.Repeat("t", total); rec.Body.String() != want {
		t.Errorf("page of %d bytes, want %d", rec.Body.Len(), len(want))
	}
}

// TestMaxHeldSizeCountsIncludes: includes queued behind a pending fragment
// count towards esi_max_held_size too (each costs several times its
// markup in memory): a page of them pauses like a page of text.
func TestMaxHeldSizeCountsIncludes(t *testing.T) {
	const held, n = 64 << 10, 100000
	open := make(chan struct{})
	mux := fragments()
	mux.HandleFunc("/f/slow", func(w http.ResponseWriter, _ *http.Request) {
		<-open
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "S")
	})
	include := []byte(`<esi:include src="/f/a"/>`)
	var written atomic.Int64
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `[<esi:include src="/f/slow"/>]`)
		for range n {
			if _, err := w.Write(include); err != nil {
				return
			}
			written.Add(int64(len(include)))
		}
	})
	// Past the first include, each is over esi_max_includes: it costs no
	// fetch, and stands in the queue all the same.
	h := mustNew(t, page, esi.Options{Fetcher: esi.FetchHandler(mux), MaxHeldSize: held, MaxIncludes: 1, SilentErrors: true, Logger: discardLog()})
	last, rec := stalledThenReleased(h, &written, func() { close(open) })
	if last > held {
		t.Errorf("the page wrote %d bytes of includes behind a pending fragment, want at most %d held", last, held)
	}
	if want := "[S]"; rec.Body.String() != want {
		t.Errorf("got %q, want %q", rec.Body.String(), want)
	}
}

// TestMaxHeldSizeBelowAnInclude: an esi_max_held_size smaller than what
// one include counts (1 to 1g is allowed) still lets a page of includes
// through: the include the parser has just queued is its own to settle,
// and waiting for it to be written would wait forever.
func TestMaxHeldSizeBelowAnInclude(t *testing.T) {
	h := mustNew(t, htmlPage(`a<esi:include src="/f/a"/>b<esi:include src="/f/none" onerror="continue"/>c`),
		esi.Options{Fetcher: esi.FetchHandler(fragments()), MaxHeldSize: 1, Logger: discardLog()})
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/f/page", nil))
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the page never ended")
	}
	if want := "aAbc"; rec.Body.String() != want {
		t.Errorf("got %q, want %q", rec.Body.String(), want)
	}
}

// stalledThenReleased serves h in the background until the page has
// stopped writing (written no longer grows), then calls release (the
// fragment held back comes in) and waits for the page to end. It returns
// what the page had written when it stalled, and the response.
func stalledThenReleased(h http.Handler, written *atomic.Int64, release func()) (int64, *httptest.ResponseRecorder) {
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	}()
	last := int64(-1)
	for last != written.Load() {
		last = written.Load()
		time.Sleep(50 * time.Millisecond)
	}
	release()
	<-done
	return last, rec
}

// TestMaxHeldSizeBoundsTry: an <esi:try> is held whole until it is
// settled, so its attempt and its except are bounded by esi_max_held_size
// as text behind a pending fragment is: an attempt that grows past it
// fails (the except is used), an except that does is dropped.
func TestMaxHeldSizeBoundsTry(t *testing.T) {
	const held = 64 << 10
	big := strings.Repeat("x", 4*held)
	for _, c := range []struct{ name, page, want string }{
		{"attempt over", `[<esi:try><esi:attempt>` + big + `<esi:include src="/f/a"/></esi:attempt><esi:except>E</esi:except></esi:try>]`, "[E]"},
		{"except over, used", `[<esi:try><esi:attempt><esi:include src="/f/404"/></esi:attempt><esi:except>` + big + `</esi:except></esi:try>]`, "[]"},
		{"except over, unused", `[<esi:try><esi:attempt>a<esi:include src="/f/a"/></esi:attempt><esi:except>` + big + `</esi:except></esi:try>]`, "[aA]"},
		{"inner try counted in the outer attempt", `[<esi:try><esi:attempt><esi:try><esi:attempt>` + big[:held*3/4] + `</esi:attempt></esi:try>` + big[:held*3/4] + `</esi:attempt><esi:except>E</esi:except></esi:try>]`, "[E]"},
		{"within the bound", `[<esi:try><esi:attempt>` + big[:held/2] + `</esi:attempt><esi:except>E</esi:except></esi:try>]`, "[" + big[:held/2] + "]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := mustNew(t, htmlPage(c.page), esi.Options{Fetcher: esi.FetchHandler(fragments()), MaxHeldSize: held, Logger: discardLog()})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/f/page", nil))
			if got := rec.Body.String(); got != c.want {
				t.Errorf("got %d bytes %.40q, want %d bytes %.40q", len(got), got, len(c.want), c.want)
			}
		})
	}
}

// TestMaxHeldSizeCountsTries: what a try keeps counts towards
// esi_max_held_size until written, as the text it stands for would: a
// page of tries behind a pending fragment pauses like a page of text.
func TestMaxHeldSizeCountsTries(t *testing.T) {
	const held, piece, n = 64 << 10, 8 << 10, 256
	open := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/f/slow", func(w http.ResponseWriter, _ *http.Request) {
		<-open
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "S")
	})
	try := []byte(`<esi:try><esi:attempt>` + strings.Repeat("t", piece) + `</esi:attempt></esi:try>`)
	var written atomic.Int64
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `[<esi:include src="/f/slow"/>]`)
		for range n {
			if _, err := w.Write(try); err != nil {
				return
			}
			written.Add(int64(len(try)))
		}
	})
	h := mustNew(t, page, esi.Options{Fetcher: esi.FetchHandler(mux), MaxHeldSize: held})
	last, rec := stalledThenReleased(h, &written, func() { close(open) })
	if last > held+2*int64(len(try)) {
		t.Errorf("the page wrote %d bytes of tries behind a pending fragment, want about %d held", last, held)
	}
	if want := "[S]" + strings.Repeat("t", n*piece); rec.Body.String() != want {
		t.Errorf("page of %d bytes, want %d", rec.Body.Len(), len(want))
	}
}
