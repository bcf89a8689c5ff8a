package accesslog_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/accesslog"
	"github.com/mosaic-edge/mosaic/vars"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func mustFormat(t *testing.T, name, text string, esc accesslog.Escape) *accesslog.Format {
	t.Helper()
	f, err := accesslog.NewFormat(name, text, esc)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func mustNew(t *testing.T, next http.Handler, targets ...accesslog.Target) http.Handler {
	t.Helper()
	h, err := accesslog.New(next, accesslog.Options{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestEmptyValueIsNothing: a field or argument sent empty is written as
// nothing in every escaping, one not sent as "-" with the default
// escaping only, as NGINX's ngx_http_log_variable does.
func TestEmptyValueIsNothing(t *testing.T) {
	r := httptest.NewRequest("GET", "/p?a=", nil)
	r.Header["X-E"] = []string{""}
	for esc, want := range map[accesslog.Escape]string{
		accesslog.EscapeDefault: "[] [-] [] [-]\n",
		accesslog.EscapeJSON:    "[] [] [] []\n",
		accesslog.EscapeNone:    "[] [] [] []\n",
	} {
		f := mustFormat(t, "t", "[$http_x_e] [$http_x_none] [$arg_a] [$arg_none]", esc)
		if got := string(f.AppendLine(nil, r, &vars.State{})); got != want {
			t.Errorf("escape %d: got %q want %q", esc, got, want)
		}
	}
}

func TestEscaping(t *testing.T) {
	r := httptest.NewRequest("GET", "/p?q=1", nil)
	r.Header.Set("User-Agent", "a\"b\\c\x01d\xffe\n")
	st := &vars.State{Status: 200}
	for esc, want := range map[accesslog.Escape]string{
		accesslog.EscapeDefault: `[a\x22b\x5Cc\x01d\xFFe\x0A] [-]` + "\n",
		accesslog.EscapeJSON:    `[a\"b\\c\u0001d` + "\xff" + `e\n] []` + "\n",
		accesslog.EscapeNone:    "[a\"b\\c\x01d\xffe\n] []\n",
	} {
		f := mustFormat(t, "t", "[$http_user_agent] [$http_referer]", esc)
		if got := string(f.AppendLine(nil, r, st)); got != want {
			t.Errorf("escape %d: got %q want %q", esc, got, want)
		}
	}
}

func TestHandlerOutsideServer(t *testing.T) {
	buf := &lockedBuf{}
	f := mustFormat(t, "combined", accesslog.Combined, accesslog.EscapeDefault)
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		w.Write([]byte("hello"))
	}), accesslog.Target{File: accesslog.NewFile(buf, 0, 0), Format: f})
	srv := httptest.NewServer(h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/x", nil)
	req.Header.Set("Referer", "http://ref/")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	line := buf.String()
	if !strings.Contains(line, `"GET /x HTTP/1.1" 201 5 "http://ref/" "Go-http-client/1.1"`) || !strings.HasPrefix(line, "127.0.0.1 - - [") {
		t.Fatalf("line %q", line)
	}
}

func TestConditionAndBuffer(t *testing.T) {
	buf := &lockedBuf{}
	f := mustFormat(t, "s", "$status", accesslog.EscapeDefault)
	file := accesslog.NewFile(buf, 64, 50*time.Millisecond)
	cond := vars.MustCompile("$arg_log")
	h := mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), accesslog.Target{File: file, Format: f, If: cond})
	for _, q := range []string{"?log=1", "?log=0", "", "?log=yes"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/"+q, nil))
	}
	if buf.String() != "" {
		t.Fatalf("buffered lines written early: %q", buf.String())
	}
	time.Sleep(150 * time.Millisecond)
	if got := buf.String(); got != "200\n200\n" {
		t.Fatalf("after flush time: %q", got)
	}
	// A full buffer is written at once.
	for i := 0; i < 30; i++ {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/?log=1", nil))
	}
	if n := strings.Count(buf.String(), "\n"); n != 18 {
		t.Fatalf("%d lines after filling the buffer", n)
	}
	if err := file.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 32 {
		t.Fatalf("%d lines after flush", n)
	}
}

// New keeps a copy of the targets: a caller that reuses its slice does not
// change where an existing logger writes.
func TestNewCopiesTargets(t *testing.T) {
	first, second := &lockedBuf{}, &lockedBuf{}
	f := mustFormat(t, "s", "$status", accesslog.EscapeDefault)
	targets := []accesslog.Target{{File: accesslog.NewFile(first, 0, 0), Format: f}}
	h := mustNew(t, http.NotFoundHandler(), targets...)
	targets[0].File = accesslog.NewFile(second, 0, 0)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	if first.String() != "404\n" || second.String() != "" {
		t.Fatalf("first %q second %q, want the line in first", first.String(), second.String())
	}
}

func TestNewNoTargets(t *testing.T) {
	next := http.NewServeMux()
	h, err := accesslog.New(next, accesslog.Options{})
	if err != nil || h != http.Handler(next) {
		t.Fatalf("New without targets: %v, %v; want next itself", h, err)
	}
}

func TestNewRefuses(t *testing.T) {
	f := mustFormat(t, "s", "$status", accesslog.EscapeDefault)
	file := accesslog.NewFile(&lockedBuf{}, 0, 0)
	for name, c := range map[string]struct {
		next   http.Handler
		target accesslog.Target
	}{
		"nil next":  {nil, accesslog.Target{File: file, Format: f}},
		"no file":   {http.NotFoundHandler(), accesslog.Target{Format: f}},
		"no format": {http.NotFoundHandler(), accesslog.Target{File: file}},
	} {
		if h, err := accesslog.New(c.next, accesslog.Options{Targets: []accesslog.Target{c.target}}); err == nil || h != nil {
			t.Errorf("%s: accepted (%v, %v)", name, h, err)
		}
	}
	if _, err := accesslog.NewFormat("x", "$status", accesslog.EscapeNone+1); err == nil {
		t.Error("unknown escaping accepted")
	}
	if _, err := accesslog.NewFormat("x", "$nonesuch", accesslog.EscapeDefault); err == nil || err.Error() != `unknown "nonesuch" variable` {
		t.Errorf("unknown variable: %v", err)
	}
}
