package accesslog

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/vars"
)

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
	n  int // writes
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	return l.b.Write(p)
}

func (l *lockedBuf) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func TestEscaping(t *testing.T) {
	r := httptest.NewRequest("GET", "/p?q=1", nil)
	r.Header.Set("User-Agent", "a\"b\\c\x01d\xffe\n")
	st := &vars.State{Status: 200}
	for esc, want := range map[Escape]string{
		EscapeDefault: `[a\x22b\x5Cc\x01d\xFFe\x0A] [-]` + "\n",
		EscapeJSON:    `[a\"b\\c\u0001d` + "\xff" + `e\n] [-]` + "\n",
		EscapeNone:    "[a\"b\\c\x01d\xffe\n] [-]\n",
	} {
		f, err := NewFormat("t", "[$http_user_agent] [$http_referer]", esc)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(f.AppendLine(nil, r, st)); got != want {
			t.Errorf("escape %d: got %q want %q", esc, got, want)
		}
	}
}

func TestHandlerOutsideServer(t *testing.T) {
	buf := &lockedBuf{}
	f, _ := NewFormat("combined", Combined, EscapeDefault)
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(201)
		w.Write([]byte("hello"))
	}), []Target{{File: NewFile(buf, 0, 0), Format: f}})
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
	f, _ := NewFormat("s", "$status", EscapeDefault)
	file := NewFile(buf, 64, 50*time.Millisecond)
	cond := vars.MustCompile("$arg_log")
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), []Target{{File: file, Format: f, If: cond}})
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
