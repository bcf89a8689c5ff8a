package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// FuzzApplyCharset feeds the charset filter Content-Type values as an
// upstream may send them: it must not panic, and a value it changes must
// become what it had before its charset parameter, with the configured
// charset (nothing of or after the input's charset survives).
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
		if got != charsetStem(ct)+"; charset=utf-8" {
			t.Fatalf("%q became %q", ct, got)
		}
	})
}

// TestCharsetMapLoads: a charset_map read after the levels that need it
// lets their charset and source_charset differ (NGINX checks once the
// whole configuration is read); it serves both ways and declares both
// names for X-Accel-Charset.
func TestCharsetMapLoads(t *testing.T) {
	cfg, err := LoadString("t.conf", `http {
		charset koi8-r;
		server { source_charset utf-8; location / { charset windows-1251; } }
		charset_map koi8-r utf-8 { C1 D0B0; }
		charset_map WINDOWS-1251 utf-8 { E0 D0B0; }
	}`)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Close()
	for _, n := range []string{"koi8-r", "utf-8", "windows-1251"} {
		if !cfg.charsets[n] {
			t.Errorf("%s not declared", n)
		}
	}
	if tb, reverse := cfg.charsetMaps.find("UTF-8", "windows-1251"); tb == nil || !reverse || tb.From != "WINDOWS-1251" {
		t.Errorf("utf-8 to windows-1251: %v %v", tb, reverse)
	}
	if tb, _ := cfg.charsetMaps.find("koi8-r", "windows-1251"); tb != nil {
		t.Error("a table between koi8-r and windows-1251")
	}
}

// TestCharsetRecodingNoAllocs: the charset filter's header decision costs
// no allocation for a response it leaves as it is, one that names its
// charset (the configured one, or another without override_charset) or
// one with other parameters.
func TestCharsetRecodingNoAllocs(t *testing.T) {
	cfg, err := LoadString("t.conf", `http { charset utf-8; charset_map koi8-r utf-8 { C1 D0B0; } }`)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.Close()
	ri := &reqInfo{cfg: cfg, st: &vars.State{}}
	r := httptest.NewRequest("GET", "/", nil)
	r = r.WithContext(context.WithValue(r.Context(), reqInfoKey{}, ri))
	for _, ct := range []string{"text/html; charset=utf-8", "text/html; charset=koi8-r", "text/html; q=1", "image/png"} {
		h := http.Header{"Content-Type": {ct}}
		if n := testing.AllocsPerRun(100, func() {
			if tb, _ := CharsetRecoding(r, cfg.HTTP(), h, http.StatusOK); tb != nil {
				t.Fatalf("%s recoded", ct)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations", ct, n)
		}
	}
}
