package ssi

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// argsPage serves page through SSI; $arg_NAME is the query's NAME, as
// the server's variables give it. The log goes to logs.
func argsPage(page string, logs *bytes.Buffer) http.Handler {
	return New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	}), Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), Variable: func(r *http.Request, name string) (string, bool) {
		arg, ok := strings.CutPrefix(name, "arg_")
		return r.URL.Query().Get(arg), ok
	}})
}

// TestClientPatternBounded: a pattern a client sends runs within a bound.
// "(a)?" a thousand times and "a" a thousand times against 2,000 bytes
// took 7 s a match on Go's regexp (a thousand groups copied at every
// step); PCRE answers it in a quarter of a second, and so must we. A
// runaway backtrack stops at the match limit, and a pattern past what
// PCRE compiles is refused, each with NGINX's answer: the error message
// in place of the if, whose else and endif are then out of context.
func TestClientPatternBounded(t *testing.T) {
	page := `A<!--# if expr="$arg_s = /$arg_p/" -->Y<!--# else -->N<!--# endif -->B`
	fail := "A" + DefaultErrorMessage + "Y" + DefaultErrorMessage + "N" + DefaultErrorMessage + "B"
	for _, c := range []struct {
		name, p, s, want, log string
	}{
		{"thousand groups", strings.Repeat("(a)?", 1000) + strings.Repeat("a", 1000), strings.Repeat("a", 2000), "AYB", ""},
		{"runaway", `(a+)+$`, strings.Repeat("a", 40) + "!", fail, `pcre2_match() failed: regular expression match limit exceeded`},
		{"too large", strings.Repeat("a", 40000), "a", fail, `pcre2_compile() failed: regular expression is too large`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			q := url.Values{"p": {c.p}, "s": {c.s}}.Encode()
			start := time.Now()
			rec := httptest.NewRecorder()
			argsPage(page, &logs).ServeHTTP(rec, httptest.NewRequest("GET", "/p.html?"+q, nil))
			// The match limit is 100 ms; the rest is room for a loaded machine.
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("answered in %v", d)
			}
			if got := rec.Body.String(); got != c.want {
				t.Errorf("got %.200q, want %.200q", got, c.want)
			}
			if !strings.Contains(logs.String(), c.log) {
				t.Errorf("log %.300q lacks %q", logs.String(), c.log)
			}
		})
	}
}
