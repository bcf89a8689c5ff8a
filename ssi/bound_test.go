package ssi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingBody is an include's body of n bytes 'b', counting what the
// page has read of it.
type countingBody struct {
	left int
	read *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.left)
	for i := range p[:n] {
		p[i] = 'b'
	}
	c.left -= n
	c.read.Add(int64(n))
	return n, nil
}

func (c *countingBody) Close() error { return nil }

// gateBody answers "S" once open is closed.
type gateBody struct {
	open <-chan struct{}
	done bool
}

func (g *gateBody) Read(p []byte) (int, error) {
	if g.done {
		return 0, io.EOF
	}
	<-g.open
	g.done = true
	return copy(p, "S"), nil
}

func (g *gateBody) Close() error { return nil }

// settled waits until read stops growing and returns its value.
func settled(read *atomic.Int64) int64 {
	last := int64(-1)
	for last != read.Load() {
		last = read.Load()
		time.Sleep(50 * time.Millisecond)
	}
	return last
}

// TestIncludeBodyBounded: an include waiting behind a slow one holds at
// most IncludeBuffer bytes (and one read) of its body, and reads the rest
// once its turn comes; an include at the head of the page goes to a slow
// client as it arrives, not gathered first. NGINX stops reading such an
// upstream once its proxy buffers are full.
func TestIncludeBodyBounded(t *testing.T) {
	const big, buffer = 8 << 20, 64 << 10
	const bound = buffer + 16<<10 // the buffer and one read
	for _, tc := range []struct {
		name, page string
		slowClient bool
	}{
		{"behind a slow include", `<!--# include virtual="/slow" -->|<!--# include virtual="/big" -->|end`, false},
		{"at the head, slow client", `<!--# include virtual="/big" -->|end`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var read atomic.Int64
			open := make(chan struct{})
			fetch := func(parent *http.Request, uri string) (*http.Response, error) {
				resp := &http.Response{StatusCode: 200, Header: http.Header{}}
				switch uri {
				case "/big":
					resp.Body = &countingBody{left: big, read: &read}
				default:
					resp.Body = &gateBody{open: open}
				}
				return resp, nil
			}
			page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				io.WriteString(w, tc.page)
			})
			h := New(page, Options{Fetch: fetch, IncludeBuffer: buffer, Logger: slog.New(slog.DiscardHandler)})
			client := &gatedWriter{ResponseRecorder: httptest.NewRecorder(), open: open, gated: tc.slowClient}
			done := make(chan struct{})
			go func() {
				defer close(done)
				h.ServeHTTP(client, httptest.NewRequest("GET", "/p.html", nil))
			}()
			for read.Load() < buffer {
				time.Sleep(time.Millisecond)
			}
			// What the client took is out of the page's memory.
			if n := settled(&read) - int64(client.Body.Len()); n > bound {
				t.Errorf("%d bytes of the include held while they could not be written, want at most %d", n, bound)
			}
			close(open)
			<-done
			want := strings.Repeat("b", big) + "|end"
			if !tc.slowClient {
				want = "S|" + want
			}
			if got := client.Body.String(); got != want {
				t.Errorf("page of %d bytes, want %d (first difference at %d)", len(got), len(want), firstDifference(got, want))
			}
		})
	}
}

// gatedWriter is a client that, when gated, takes one write and then
// none until open is closed.
type gatedWriter struct {
	*httptest.ResponseRecorder
	open  <-chan struct{}
	gated bool
	n     int
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	if g.gated && g.n > 0 {
		<-g.open
	}
	g.n++
	return g.ResponseRecorder.Write(p)
}

func firstDifference(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// closingBody is a countingBody that tells when it is closed.
type closingBody struct {
	countingBody
	closed chan struct{}
}

func (c *closingBody) Close() error { close(c.closed); return nil }

// TestIncludeReleasedOnPanic: a page whose handler gives up (panics, as a
// proxy does when its upstream breaks off) leaves no include waiting for
// room in its buffer: the include stops reading and closes its body.
func TestIncludeReleasedOnPanic(t *testing.T) {
	var read atomic.Int64
	big := &closingBody{countingBody: countingBody{left: 8 << 20, read: &read}, closed: make(chan struct{})}
	open := make(chan struct{})
	defer close(open)
	fetch := func(parent *http.Request, uri string) (*http.Response, error) {
		resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: &gateBody{open: open}}
		if uri == "/big" {
			resp.Body = big
		}
		return resp, nil
	}
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!--# include virtual="/slow" --><!--# include virtual="/big" -->`)
		w.(http.Flusher).Flush()
		for read.Load() < 64<<10 {
			time.Sleep(time.Millisecond)
		}
		panic(http.ErrAbortHandler)
	})
	h := New(page, Options{Fetch: fetch, IncludeBuffer: 64 << 10, Logger: slog.New(slog.DiscardHandler)})
	func() {
		defer func() { recover() }()
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/p.html", nil))
	}()
	select {
	case <-big.closed:
	case <-time.After(5 * time.Second):
		t.Fatalf("the include still holds its body (%d bytes read)", read.Load())
	}
}

// TestPageTextBehindIncludeBounded: the page's own text that follows an
// include still being fetched waits in memory for its turn; the page is
// read no further once IncludeBuffer bytes of it wait, as NGINX stops
// reading a page whose output buffers the postponed include holds.
func TestPageTextBehindIncludeBounded(t *testing.T) {
	const big, buffer = 8 << 20, 64 << 10
	const chunk = 16 << 10
	const bound = buffer + 2*chunk // the buffer and the piece being parsed
	open := make(chan struct{})
	fetch := func(parent *http.Request, uri string) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: &gateBody{open: open}}, nil
	}
	var written atomic.Int64
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!--# include virtual="/slow" -->|`)
		text := []byte(strings.Repeat("t", chunk))
		for range big / chunk {
			written.Add(chunk)
			w.Write(text)
		}
	})
	h := New(page, Options{Fetch: fetch, IncludeBuffer: buffer, Logger: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/p.html", nil))
	}()
	for written.Load() < buffer {
		time.Sleep(time.Millisecond)
	}
	if n := settled(&written); n > bound {
		t.Errorf("%d bytes of the page held behind an include, want at most %d", n, bound)
	}
	close(open)
	<-done
	if want := "S|" + strings.Repeat("t", big); rec.Body.String() != want {
		t.Errorf("page of %d bytes, want %d (first difference at %d)", rec.Body.Len(), len(want), firstDifference(rec.Body.String(), want))
	}
}

// TestPageTextOneWriteBehindIncludeBounded: the bound on the page's text
// behind an include holds for a page written in one call too (a body in
// memory): it is parsed a piece at a time, not copied whole into the
// queue while a slow include at its head is fetched.
func TestPageTextOneWriteBehindIncludeBounded(t *testing.T) {
	const big, buffer = 8 << 20, 64 << 10
	open := make(chan struct{})
	fetch := func(parent *http.Request, uri string) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: &gateBody{open: open}}, nil
	}
	body := []byte(`<!--# include virtual="/slow" -->|` + strings.Repeat("t", big))
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(body)
	})
	h := New(page, Options{Fetch: fetch, IncludeBuffer: buffer, Logger: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	rec.Body.Grow(big + 2) // the client's side, allocated before the baseline
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	before := heap()
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/p.html", nil))
	}()
	time.Sleep(100 * time.Millisecond) // the page written as far as it goes
	if n := heap() - before; n > big/4 {
		t.Errorf("the heap grew by %d bytes behind an include, with at most %d of the page to hold", n, buffer)
	}
	close(open)
	<-done
	if want := "S|" + strings.Repeat("t", big); rec.Body.String() != want {
		t.Errorf("page of %d bytes, want %d", rec.Body.Len(), len(want))
	}
}

// TestIncludesBoundedPerRequest: a page that includes itself four times
// makes includes without end (FetchHandler has no depth limit; the
// server's ten levels make 4^10); the request as a whole begins at most
// MaxIncludes of them, the next ones failing with the error message in
// their place, and the page ends.
func TestIncludesBoundedPerRequest(t *testing.T) {
	const limit = 100
	const page = `A<!--# include virtual="/self" --><!--# include virtual="/self" -->` +
		`<!--# include virtual="/self" --><!--# include virtual="/self" -->Z`
	var fetched atomic.Int64
	var h http.Handler
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	})
	fetch := FetchHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	h = New(app, Options{MaxIncludes: limit, Logger: slog.New(slog.DiscardHandler),
		Fetch: func(parent *http.Request, uri string) (*http.Response, error) {
			fetched.Add(1)
			return fetch(parent, uri)
		}})
	done := make(chan string, 1)
	go func() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/self", nil))
		done <- rec.Body.String()
	}()
	var body string
	select {
	case body = <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("the page has not ended after %d includes", fetched.Load())
	}
	if n := fetched.Load(); n != limit {
		t.Errorf("%d includes made, want %d", n, limit)
	}
	// Every include that was made writes "A" and its own four pieces;
	// the ones refused write the error message.
	if a, e := strings.Count(body, "A"), strings.Count(body, DefaultErrorMessage); a != limit+1 || e != 4*(limit+1)-limit {
		t.Errorf("%d pages and %d errors in the body, want %d and %d", a, e, limit+1, 4*(limit+1)-limit)
	}
	if !strings.HasPrefix(body, "AA") || !strings.HasSuffix(body, "Z") {
		t.Errorf("body %.40q...%.40q", body, body[max(0, len(body)-40):])
	}
}
