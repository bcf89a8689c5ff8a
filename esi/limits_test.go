package esi_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

func TestMaxIncludes(t *testing.T) {
	log, sink := newLog()
	doc := strings.Repeat(`<esi:include src="/f/a"/>`, 5)
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), MaxIncludes: 3, Logger: log}, htmlPage(doc))
	if _, body := testclient.Get(t, srv.URL+"/"); body != "AAA"+marker+marker {
		t.Fatalf("got %q", body)
	}
	if n := sink.count("more than 3 includes for one request"); n != 1 {
		t.Fatalf("limit logged %d times:\n%s", n, sink)
	}
}

func TestMaxIncludesCountsNested(t *testing.T) {
	mux := fragments()
	mux.HandleFunc("/f/three", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `(`+strings.Repeat(`<esi:include src="/f/a"/>`, 3)+`)`)
	})
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(mux), MaxIncludes: 3, Logger: discardLog()}, htmlPage(`<esi:include src="/f/three"/>`))
	if _, body := testclient.Get(t, srv.URL+"/"); body != "(AA"+marker+")" {
		t.Fatalf("got %q", body)
	}
}

func TestDefaultMaxIncludes(t *testing.T) {
	doc := strings.Repeat(`<esi:include src="/f/a"/>`, esi.DefaultMaxIncludes+1)
	srv := pageServer(t, esi.Options{Fetcher: esi.FetchHandler(fragments()), SilentErrors: true, Logger: discardLog()}, htmlPage(doc))
	if _, body := testclient.Get(t, srv.URL+"/"); body != strings.Repeat("A", esi.DefaultMaxIncludes) {
		t.Fatalf("got %d bytes", len(body))
	}
}

// TestFragmentTimeout: fragments that answer late or stall mid-body are
// cut at FragmentTimeout (150 ms) and leave markers, without holding
// the page. /slow would answer after 30 s and /stall never: the page's
// request gives up at 10 s, which only a wait for them reaches (a bound
// of 1 s failed on a loaded machine).
func TestFragmentTimeout(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/slow", delay(30*time.Second))
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		// Headers and half a body, then nothing.
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.Handle("/fast", delay(0))
	_, fetch := origin(t, mux)
	log, sink := newLog()
	doc := `a<esi:include src="/slow"/>b<esi:include src="/stall"/>c<esi:include src="/fast"/>d`
	srv := pageServer(t, esi.Options{Fetcher: fetch, FragmentTimeout: 150 * time.Millisecond, Logger: log}, htmlPage(doc))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, body := testclient.Send(t, req)
	if want := "a" + marker + "b" + marker + "c/fastd"; body != want {
		t.Fatalf("got %q, want %q", body, want)
	}
	if n := sink.count("deadline exceeded"); n != 2 {
		t.Fatalf("%d timeouts logged:\n%s", n, sink)
	}
}

// cutBody yields text, then ends as a server's subrequest ends a body its
// cancelled request cut short: with io.EOF, once ctx is done.
type cutBody struct {
	ctx  context.Context
	text string
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.text != "" {
		n := copy(p, b.text)
		b.text = b.text[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, io.EOF
}

func (b *cutBody) Close() error { return nil }

// TestFragmentTimeoutCutsBody: a fragment whose body the timeout cut
// short fails, even when its Fetcher ends the body as if it were whole:
// the part that came is not spliced as the fragment.
func TestFragmentTimeoutCutsBody(t *testing.T) {
	fetch := esi.FetchFunc(func(_, req *http.Request) (*esi.Fragment, error) {
		return &esi.Fragment{Status: http.StatusOK, Header: http.Header{"Content-Type": {"text/plain"}},
			Body: &cutBody{ctx: req.Context(), text: "partial"}, Final: true}, nil
	})
	log, sink := newLog()
	doc := `a<esi:include src="/stall"/>b<esi:try><esi:attempt><esi:include src="/stall"/></esi:attempt><esi:except>except</esi:except></esi:try>`
	srv := pageServer(t, esi.Options{Fetcher: fetch, FragmentTimeout: 100 * time.Millisecond, Logger: log}, htmlPage(doc))
	if _, body := testclient.Get(t, srv.URL+"/"); body != "a"+marker+"bexcept" {
		t.Fatalf("got %q", body)
	}
	if n := sink.count("deadline exceeded"); n != 2 {
		t.Fatalf("%d timeouts logged:\n%s", n, sink)
	}
}

// sizeWriter records the largest write a handler makes.
type sizeWriter struct {
	h            http.Header
	largest, all int
}

func (w *sizeWriter) Header() http.Header { return w.h }
func (w *sizeWriter) WriteHeader(int)     {}
func (w *sizeWriter) Write(p []byte) (int, error) {
	w.largest, w.all = max(w.largest, len(p)), w.all+len(p)
	return len(p), nil
}

// A page without markup goes out in writes of esi_buffer_size.
func TestBufferSizeSetsWrites(t *testing.T) {
	text := strings.Repeat("0123456789abcdef", 8<<10) // 128 KB
	for _, size := range []int{4 << 10, 32 << 10} {
		h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			// Hide WriteTo, so that the page is read through ReadFrom as a
			// file would be.
			_, _ = io.Copy(w, struct{ io.Reader }{strings.NewReader(text)})
		}), esi.Options{Fetcher: esi.FetchFunc(memFetch), BufferSize: size})
		w := &sizeWriter{h: http.Header{}}
		h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
		if w.largest != size || w.all != len(text) {
			t.Errorf("BufferSize %d: largest write %d, %d of %d bytes", size, w.largest, w.all, len(text))
		}
	}
}
