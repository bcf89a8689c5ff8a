package ssi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// site serves the pages in files as text/html, through SSI.
func site(files map[string]string, fetch func(Fetcher) Fetcher) http.Handler {
	mux := http.NewServeMux()
	var h http.Handler
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Last-Modified", "Mon, 02 Jan 2006 15:04:05 GMT")
		io.WriteString(w, body)
	})
	f := FetchHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	if fetch != nil {
		f = fetch(f)
	}
	h = New(mux, Options{Fetch: f, Logger: slog.New(slog.DiscardHandler), Variable: func(r *http.Request, name string) (string, bool) {
		if name == "uri" {
			return r.URL.Path, true
		}
		return "", false
	}})
	return h
}

func get(t *testing.T, h http.Handler, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec
}

// TestNestedIncludesShareVariables: what a page sets its includes see, at
// any depth, and what they set the page sees once it has waited for them.
func TestNestedIncludesShareVariables(t *testing.T) {
	h := site(map[string]string{
		"/p.html":     `<!--# set var="v" value="page" -->[<!--# include virtual="a/one.html" wait="yes" -->]<!--# echo var="w" -->`,
		"/a/one.html": `1<!--# echo var="v" --><!--# include virtual="two.html" wait="yes" -->1`,
		"/a/two.html": `2<!--# echo var="uri" --><!--# set var="w" value="set deep" -->2`,
	}, nil)
	rec := get(t, h, "/p.html")
	if got, want := rec.Body.String(), "[1page2/a/two.html21]set deep"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if rec.Header().Get("Last-Modified") != "" {
		t.Error("Last-Modified kept without ssi_last_modified")
	}
}

// TestIncludesRunInParallel holds every include until all have started:
// includes without wait are fetched together, and the page still comes
// out in document order.
func TestIncludesRunInParallel(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	h := site(map[string]string{
		"/p.html": `<!--# include virtual="/f?1" -->,<!--# include virtual="/f?2" -->,<!--# include virtual="/f?3" -->,<!--# include virtual="/f?4" -->.`,
		"/f":      `F`,
	}, func(f Fetcher) Fetcher {
		return func(parent *http.Request, uri string) (*http.Response, error) {
			if strings.HasPrefix(uri, "/f?") {
				started.Done()
				select {
				case <-all:
				case <-time.After(5 * time.Second):
					t.Error("includes were fetched one after another")
				}
			}
			return f(parent, uri)
		}
	})
	if got := get(t, h, "/p.html").Body.String(); got != "F,F,F,F." {
		t.Errorf("got %q", got)
	}
}

// TestWaitWaitsForEarlierIncludes: a page that waits resumes once what it
// included before is done, so a variable set there is seen after.
func TestWaitWaitsForEarlierIncludes(t *testing.T) {
	h := site(map[string]string{
		"/p.html":    `<!--# include virtual="/slow.html" --><!--# include virtual="/x.html" wait="yes" --><!--# echo var="s" -->`,
		"/slow.html": `<!--# set var="s" value="slow done" -->S`,
		"/x.html":    `X`,
	}, func(f Fetcher) Fetcher {
		return func(parent *http.Request, uri string) (*http.Response, error) {
			if uri == "/slow.html" {
				time.Sleep(20 * time.Millisecond)
			}
			return f(parent, uri)
		}
	})
	if got := get(t, h, "/p.html").Body.String(); got != "SXslow done" {
		t.Errorf("got %q", got)
	}
}

func TestSilentErrorsAndErrmsg(t *testing.T) {
	files := map[string]string{"/p.html": `a<!--# nope -->b<!--# config errmsg="!" --><!--# echo -->c`}
	if got := get(t, site(files, nil), "/p.html").Body.String(); got != "a"+DefaultErrorMessage+"b!c" {
		t.Errorf("got %q", got)
	}
	quiet := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, files["/p.html"])
	}), Options{SilentErrors: true})
	if got := get(t, quiet, "/p.html").Body.String(); got != "abc" {
		t.Errorf("silent: got %q", got)
	}
}

func TestTypesAndPassThrough(t *testing.T) {
	page := `<!--# echo var="x" default="d" -->`
	serve := func(ct string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.Header().Set("Content-Length", "34")
			io.WriteString(w, page)
		})
	}
	for _, c := range []struct {
		ct    string
		types []string
		want  string
	}{
		{"text/html", nil, "d"},
		{"text/plain", nil, page},
		{"text/plain", []string{"text/plain"}, "d"},
		{"application/json", []string{"*"}, "d"},
	} {
		rec := get(t, New(serve(c.ct), Options{Types: c.types}), "/")
		if rec.Body.String() != c.want {
			t.Errorf("%s %v: got %q, want %q", c.ct, c.types, rec.Body.String(), c.want)
		}
		if processed := c.want == "d"; processed == (rec.Header().Get("Content-Length") != "") {
			t.Errorf("%s %v: Content-Length %q", c.ct, c.types, rec.Header().Get("Content-Length"))
		}
	}
}

// TestManyIncludesInOrder includes more documents than run at a time:
// all come, in document order.
func TestManyIncludesInOrder(t *testing.T) {
	var page, want strings.Builder
	files := map[string]string{}
	for i := range 3 * maxParallel {
		fmt.Fprintf(&page, `<!--# include virtual="/f%d" -->,`, i)
		files[fmt.Sprintf("/f%d", i)] = fmt.Sprint(i)
		fmt.Fprintf(&want, "%d,", i)
	}
	files["/p.html"] = page.String()
	if got := get(t, site(files, nil), "/p.html").Body.String(); got != want.String() {
		t.Errorf("got %q", got)
	}
}

// TestIncludeStartsAfterThePiece: an include without wait starts once the
// piece of page it stands in has been read, as in NGINX, so it sees what
// that piece sets after it. The fetch looks at the page's variables the
// moment it is called.
func TestIncludeStartsAfterThePiece(t *testing.T) {
	var seen string
	h := site(map[string]string{
		"/p.html":   `[<!--# include virtual="/inc.html" -->]<!--# set var="v" value="late" -->`,
		"/inc.html": `inc`,
	}, func(next Fetcher) Fetcher {
		return func(r *http.Request, uri string) (*http.Response, error) {
			if sh, ok := r.Context().Value(sharedKey{}).(*shared); ok {
				sh.mu.Lock()
				seen = sh.vars["v"]
				sh.mu.Unlock()
			}
			return next(r, uri)
		}
	})
	if got := get(t, h, "/p.html").Body.String(); got != "[inc]" {
		t.Fatalf("page %q", got)
	}
	if seen != "late" {
		t.Errorf("the include started before the rest of its piece was read: v = %q", seen)
	}
}
