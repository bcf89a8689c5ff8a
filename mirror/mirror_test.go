package mirror

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
)

// sent is what Start was given for one mirror.
type sent struct {
	uri, method, header, body string
	size                      int64
}

// recorder is a Start that reads each mirror's body in its own goroutine,
// as a subrequest does, and a Hold that keeps what it is given.
type recorder struct {
	mu   sync.Mutex
	got  []sent
	held []func()
}

func (rc *recorder) start(r *http.Request, uri, method string, header http.Header, body io.Reader, size int64) (func(), error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b []byte
		if body != nil {
			b, _ = io.ReadAll(body)
		}
		rc.mu.Lock()
		rc.got = append(rc.got, sent{uri, method, header.Get("X-Test"), string(b), size})
		rc.mu.Unlock()
	}()
	return func() { <-done }, nil
}

func (rc *recorder) hold(r *http.Request, f func()) bool {
	rc.held = append(rc.held, f)
	return true
}

func echo(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("content: %v", err)
		}
		io.WriteString(w, "content:"+string(b))
	})
}

func TestMirrors(t *testing.T) {
	for _, c := range []struct {
		name        string
		requestBody bool
		memory      int64
		body        string
		wantBody    string
	}{
		{"body in memory", true, 0, "hello", "hello"},
		{"body in a file", true, 4, "hello world", "hello world"},
		{"no body to the mirrors", false, 0, "hello", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := &recorder{}
			m := &Mirror{URIs: []string{"/m1", "/m2"}, RequestBody: c.requestBody, BodyMemory: c.memory,
				BodyTemp: func() (*os.File, error) { return os.CreateTemp(t.TempDir(), "b") },
				Start:    rc.start, Hold: rc.hold}
			r := httptest.NewRequest("POST", "/page?a=1", strings.NewReader(c.body))
			r.Header.Set("X-Test", "t")
			w := httptest.NewRecorder()
			m.Handler(echo(t)).ServeHTTP(w, r)
			if w.Body.String() != "content:"+c.body {
				t.Errorf("client got %q", w.Body.String())
			}
			if len(rc.held) != 1 {
				t.Fatalf("held %d functions", len(rc.held))
			}
			rc.held[0]()
			if len(rc.got) != 2 {
				t.Fatalf("sent %d mirrors", len(rc.got))
			}
			for _, s := range rc.got {
				if s.uri != "/m1?a=1" && s.uri != "/m2?a=1" || s.method != "POST" || s.header != "t" ||
					s.body != c.wantBody || s.size != int64(len(c.wantBody)) {
					t.Errorf("sent %+v", s)
				}
			}
		})
	}
}

// Without Hold, the handler waits for the mirrors after the content.
func TestWaitsWithoutHold(t *testing.T) {
	rc := &recorder{}
	m := &Mirror{URIs: []string{"/m"}, RequestBody: true, Start: rc.start}
	m.Handler(echo(t)).ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if len(rc.got) != 1 || rc.got[0].uri != "/m" || rc.got[0].method != "GET" || rc.got[0].body != "" {
		t.Fatalf("sent %+v", rc.got)
	}
}

type failingBody struct{ err error }

func (b failingBody) Read([]byte) (int, error) { return 0, b.err }
func (b failingBody) Close() error             { return nil }

func TestBodyErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		body io.ReadCloser
		want int
	}{
		{"broken", failingBody{errors.New("reset")}, http.StatusBadRequest},
		{"timeout", failingBody{os.ErrDeadlineExceeded}, http.StatusRequestTimeout},
		{"too large", http.MaxBytesReader(httptest.NewRecorder(), io.NopCloser(strings.NewReader("abcdef")), 3), http.StatusRequestEntityTooLarge},
	} {
		rc := &recorder{}
		m := &Mirror{URIs: []string{"/m"}, RequestBody: true, Start: rc.start, Hold: rc.hold}
		r := httptest.NewRequest("POST", "/", nil)
		r.Body = c.body
		w := httptest.NewRecorder()
		m.Handler(echo(t)).ServeHTTP(w, r)
		if w.Code != c.want || len(rc.got) != 0 || len(rc.held) != 0 {
			t.Errorf("%s: %d, %d mirrors sent", c.name, w.Code, len(rc.got))
		}
	}
}

// A mirror that cannot start fails the request, as NGINX's subrequest
// failure does; the mirrors already started are waited for.
func TestStartError(t *testing.T) {
	rc := &recorder{}
	calls := 0
	m := &Mirror{URIs: []string{"/ok", "/bad"}, RequestBody: true, Hold: rc.hold,
		Start: func(r *http.Request, uri, method string, h http.Header, body io.Reader, size int64) (func(), error) {
			calls++
			if calls == 2 {
				return nil, errors.New("no")
			}
			return rc.start(r, uri, method, h, body, size)
		}}
	w := httptest.NewRecorder()
	m.Handler(echo(t)).ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader("x")))
	if w.Code != http.StatusInternalServerError || len(rc.got) != 1 {
		t.Fatalf("%d, sent %+v", w.Code, rc.got)
	}
}
