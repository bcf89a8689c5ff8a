package esi_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

func TestFetchErrors(t *testing.T) {
	fetch := func(_, req *http.Request) (*esi.Fragment, error) {
		switch req.URL.Path {
		case "/panic":
			panic("boom")
		case "/nil":
			return nil, nil
		}
		return nil, errors.New("origin down")
	}
	for _, silent := range []bool{false, true} {
		log, sink := newLog()
		doc := `1<esi:include src="/panic"/>2<esi:include src="/nil"/>3<esi:include src="/down"/>4`
		srv := pageServer(t, esi.Options{Fetcher: esi.FetchFunc(fetch), SilentErrors: silent, Logger: log}, htmlPage(doc))
		want := "1" + marker + "2" + marker + "3" + marker + "4"
		if silent {
			want = "1234"
		}
		if _, body := testclient.Get(t, srv.URL+"/"); body != want {
			t.Errorf("silent %v: got %q", silent, body)
		}
		for _, msg := range []string{"fetch panicked: boom", "no fragment returned", "origin down"} {
			if !strings.Contains(sink.String(), msg) {
				t.Errorf("silent %v: log lacks %q:\n%s", silent, msg, sink)
			}
		}
	}
}

// TestClientGoneCancelsFragments: when the client goes away, pending
// fragment requests are cancelled and the handler returns.
func TestClientGoneCancelsFragments(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	_, fetch := origin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		close(cancelled)
	}))
	returned := make(chan struct{})
	page := mustNew(t, htmlPage(`head<esi:include src="/slow"/>`), esi.Options{Fetcher: fetch, Logger: discardLog()})
	srv := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(returned)
		page.ServeHTTP(w, r)
	}))
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "head" {
		t.Fatalf("%q %v", buf, err)
	}
	<-started
	resp.Body.Close()
	for _, ch := range []chan struct{}{cancelled, returned} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("fragment not cancelled or handler still running")
		}
	}
}

// TestHandlerPanicStopsFragments: a panic in the page's handler cancels the
// fragments and waits for them before it goes on up.
func TestHandlerPanicStopsFragments(t *testing.T) {
	var sawCancel bool
	fetch := func(_, req *http.Request) (*esi.Fragment, error) {
		<-req.Context().Done()
		sawCancel = true
		return nil, req.Context().Err()
	}
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<esi:include src="/x"/>`)
		panic(http.ErrAbortHandler)
	}), esi.Options{Fetcher: esi.FetchFunc(fetch), Logger: discardLog()})
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Fatalf("recovered %v", v)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	}()
	if !sawCancel {
		t.Fatal("the fragment was still running when the panic went up")
	}
}

type failingWriter struct{ h http.Header }

func (f failingWriter) Header() http.Header     { return f.h }
func (failingWriter) WriteHeader(int)           {}
func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }

func TestWriteErrorReachesHandler(t *testing.T) {
	var writeErr error
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, writeErr = io.WriteString(w, `text<esi:include src="/f/a"/>`)
	}), esi.Options{Fetcher: esi.FetchHandler(fragments())})
	h.ServeHTTP(failingWriter{http.Header{}}, httptest.NewRequest("GET", "/", nil))
	if writeErr == nil || !strings.Contains(writeErr.Error(), "client gone") {
		t.Fatalf("handler saw %v", writeErr)
	}
}

// New refuses a missing Fetcher, and a nil function passed as one, when
// the handler is built rather than failing every include.
func TestNewRefusesNilFetcher(t *testing.T) {
	var nilFunc esi.FetchFunc
	for name, f := range map[string]esi.Fetcher{"none": nil, "nil FetchFunc": nilFunc} {
		if h, err := esi.New(http.NotFoundHandler(), esi.Options{Fetcher: f}); err == nil || h != nil {
			t.Errorf("%s: New returned %v, %v; want an error", name, h, err)
		}
	}
}
