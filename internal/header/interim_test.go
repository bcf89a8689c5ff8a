package header

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// recorder1xx keeps the header of each status written.
type recorder1xx struct {
	*httptest.ResponseRecorder
	sent []string
}

func (r *recorder1xx) WriteHeader(code int) {
	r.sent = append(r.sent, http.StatusText(code)+": "+Join(r.Header(), "Link")+"|"+Join(r.Header(), "X-Final"))
	if code >= 200 {
		r.ResponseRecorder.WriteHeader(code)
	}
}

func TestWriteInterim(t *testing.T) {
	w := &recorder1xx{ResponseRecorder: httptest.NewRecorder()}
	w.Header().Set("X-Final", "1")
	WriteInterim(w, http.StatusEarlyHints, http.Header{"Link": {"</a.css>; rel=preload"}})
	w.WriteHeader(http.StatusOK)
	want := []string{"Early Hints: </a.css>; rel=preload|", "OK: |1"}
	if len(w.sent) != 2 || w.sent[0] != want[0] || w.sent[1] != want[1] {
		t.Errorf("sent %q, want %q", w.sent, want)
	}
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"chunked": true, "x-gzip": true, "Content-Type": true, "!#$%&'*+-.^_`|~09aZ": true,
		"": false, "a b": false, "gz/ip": false, "a,b": false, "é": false, "a\x7f": false, `"q"`: false,
	} {
		if IsToken(s) != want {
			t.Errorf("IsToken(%q) = %v", s, !want)
		}
	}
}
