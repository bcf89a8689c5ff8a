package esi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// origin starts a loopback server for fragments and returns a Fetcher of it.
func origin(t testing.TB, h http.Handler) (*httptest.Server, esi.Fetcher) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return srv, esi.HTTPFetch(srv.Client(), u)
}

// delay answers with the path after d, or gives up when the request does.
func delay(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.URL.Path)
	}
}

// TestHTTPFetchFollowsNoRedirect: a fragment origin's redirect is
// spliced as its answer, as Varnish splices it, and not followed: it
// could lead to any host, which src itself cannot name.
func TestHTTPFetchFollowsNoRedirect(t *testing.T) {
	other := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "other host")
	}))
	for i, client := range []*http.Client{nil, other.Client()} {
		frag := httptestServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Location", other.URL+"/private")
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(http.StatusFound)
			io.WriteString(w, "moved")
		}))
		u, _ := url.Parse(frag.URL)
		srv := pageServer(t, esi.Options{Fetcher: esi.HTTPFetch(client, u), Logger: discardLog()}, htmlPage(`a<esi:include src="/f"/>b`))
		if _, body := testclient.Get(t, srv.URL+"/"); body != "amovedb" {
			t.Errorf("client %d: got %q", i, body)
		}
	}
}

// TestFragmentsInParallel: the fragments of a page are fetched at once.
// Each fragment's answer waits until all eight requests are in, which
// only fetches in parallel let happen (one after another, the first
// would wait alone, 10 s, and be counted). A bound on the page's time was
// a bet on the machine's load, and so was a wait of 2 s for the others
// to arrive.
func TestFragmentsInParallel(t *testing.T) {
	const n = 8
	var arrived, alone atomic.Int32
	all := make(chan struct{})
	_, fetch := origin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			alone.Add(1)
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.URL.Path)
	}))
	var doc, want strings.Builder
	for i := range n {
		fmt.Fprintf(&doc, `<p><esi:include src="/frag/%d"/>`, i)
		fmt.Fprintf(&want, `<p>/frag/%d`, i)
	}
	srv := pageServer(t, esi.Options{Fetcher: fetch}, htmlPage(doc.String()))
	_, body := testclient.Get(t, srv.URL+"/")
	if body != want.String() {
		t.Fatalf("got %q", body)
	}
	if a := alone.Load(); a > 0 {
		t.Errorf("%d of %d fragment requests waited 10 s for the others: not fetched in parallel", a, n)
	}
}

// reader collects a response body as it arrives.
type reader struct {
	mu   sync.Mutex
	got  strings.Builder
	done chan struct{}
}

func readAsync(body io.ReadCloser) *reader {
	r := &reader{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		defer body.Close()
		buf := make([]byte, 1024)
		for {
			n, err := body.Read(buf)
			r.mu.Lock()
			r.got.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *reader) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.got.String()
}

// waitFor waits until the body read so far is want.
func (r *reader) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.String() != want {
		if time.Now().After(deadline) {
			t.Fatalf("body so far %q, want %q", r.String(), want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStreamsInDocumentOrder(t *testing.T) {
	gates := map[string]chan struct{}{"/s1": make(chan struct{}), "/s2": make(chan struct{})}
	_, fetch := origin(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gate := gates[r.URL.Path]; gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		io.WriteString(w, strings.ToUpper(r.URL.Path[1:]))
	}))
	doc := `head<esi:include src="/s1"/>mid<esi:include src="/f"/><esi:include src="/s2"/>tail`
	srv := pageServer(t, esi.Options{Fetcher: fetch}, htmlPage(doc))
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAsync(resp.Body)

	// Text before the first pending fragment is sent at once.
	body.waitFor(t, "head")
	// A fragment that is done waits for the ones before it.
	close(gates["/s2"])
	time.Sleep(100 * time.Millisecond)
	if got := body.String(); got != "head" {
		t.Fatalf("wrote %q past a pending fragment", got)
	}
	// Once the first is done, everything up to the next pending part goes.
	close(gates["/s1"])
	body.waitFor(t, "headS1midFS2tail")
	<-body.done
}

func TestFlushFromHandler(t *testing.T) {
	gate := make(chan struct{})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments())}, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `one <esi:include src="/f/a"/>`)
		w.(http.Flusher).Flush()
		<-gate
		io.WriteString(w, " two")
	})
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body := readAsync(resp.Body)
	body.waitFor(t, "one A")
	close(gate)
	body.waitFor(t, "one A two")
	<-body.done
}
