package esi_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/syncbuf"
)

// fragments serves the fragments the tests include.
func fragments() *http.ServeMux {
	mux := http.NewServeMux()
	text := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	mux.Handle("/f/a", text(200, "A"))
	mux.Handle("/f/b", text(200, "B"))
	mux.Handle("/f/404", text(404, "not found body"))
	mux.Handle("/f/500", text(500, "oops"))
	mux.Handle("/f/204", text(204, ""))
	mux.Handle("/f/empty", text(200, ""))
	mux.HandleFunc("/f/echo/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "%s?%s", r.URL.Path, r.URL.RawQuery)
	})
	mux.HandleFunc("/f/esi", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `(<esi:include src="/f/a"/>)`)
	})
	mux.HandleFunc("/f/esi404", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `(<esi:include src="/f/404"/>)`)
	})
	mux.HandleFunc("/f/vars", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<esi:vars>$(QUERY_STRING{x})|$(HTTP_COOKIE{group})</esi:vars>`)
	})
	mux.HandleFunc("/f/gz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped("GZ"))
	})
	mux.HandleFunc("/f/br", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "br")
		w.Write([]byte{0x0b, 0x00, 0x80, 0x42, 0x52, 0x03})
	})
	return mux
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	zw.Close()
	return b.Bytes()
}

// mustNew is New for options the test knows to be valid.
func mustNew(t testing.TB, next http.Handler, opts esi.Options) http.Handler {
	t.Helper()
	h, err := esi.New(next, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// pageServer serves pages from serve through New's handler on loopback.
func pageServer(t testing.TB, opts esi.Options, serve http.HandlerFunc) *httptest.Server {
	t.Helper()
	return httptestServer(t, mustNew(t, serve, opts))
}

// htmlPage serves body as text/html.
func htmlPage(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, body)
	}
}

// logSink collects log lines.
type logSink struct{ syncbuf.Buffer }

func (l *logSink) count(s string) int { return strings.Count(l.String(), s) }

func newLog() (*slog.Logger, *logSink) {
	sink := &logSink{}
	return slog.New(slog.NewTextHandler(sink, &slog.HandlerOptions{Level: slog.LevelDebug})), sink
}

func discardLog() *slog.Logger { return slog.New(slog.DiscardHandler) }

func httptestServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}
