package server

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// FuzzApplyCharset feeds the charset filter Content-Type values as an
// upstream may send them: it must not panic, and a value it changes must
// become the media type it had with the configured charset and nothing
// else (no byte of the input's parameters survives).
func FuzzApplyCharset(f *testing.F) {
	for _, s := range []string{"text/html", "text/html; charset=UTF-8", "text/css;charset=\"utf-8\"", "TEXT/PLAIN ;a=b",
		";", "text/html;charset=", "text/html; charset=koi8-r; q=1", "\x00;charset=utf-8", ""} {
		f.Add(s, true)
		f.Add(s, false)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, ct string, override bool) {
		cl := &coreLoc{}
		cl.charset.Put("utf-8")
		cl.overrideCharset.Put(override)
		cl.charsetTypes.Put(charsetTypes{any: true})
		h := http.Header{"Content-Type": {ct}}
		cl.applyCharset(h, 200, log)
		got := h.Get("Content-Type")
		if got == ct {
			return
		}
		base, _, _ := strings.Cut(ct, ";")
		if got != strings.TrimRight(base, " \t")+"; charset=utf-8" {
			t.Fatalf("%q became %q", ct, got)
		}
	})
}
