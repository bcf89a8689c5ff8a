package esi

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// benchPage is a ~256 KB page with n includes spread evenly through
// markup-dense text (a '<' every few bytes, none of it ESI).
func benchPage(n int) []byte {
	const size = 256 << 10
	filler := `<div class="item"><a href="/p?id=1&amp;x=2">Item</a> <span>a<b</span></div>` + "\n"
	var b bytes.Buffer
	for i := range n {
		for b.Len() < size*(i+1)/(n+1) {
			b.WriteString(filler)
		}
		fmt.Fprintf(&b, `<esi:include src="/frag/%d"/>`, i)
	}
	for b.Len() < size {
		b.WriteString(filler)
	}
	return b.Bytes()
}

type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) WriteHeader(int)             {}
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }

// memFetch answers every fragment from memory.
func memFetch(_, _ *http.Request) (*Fragment, error) {
	return &Fragment{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}},
		Body: io.NopCloser(strings.NewReader(`<nav>fragment body of a typical size, a hundred bytes or so ...........</nav>`))}, nil
}

// BenchmarkPage processes a 256 KB page with 32 includes, written in one
// Write (text behind a pending fragment is copied once) or copied in with
// io.Copy (read into owned buffers, never copied).
func BenchmarkPage(b *testing.B) {
	page := benchPage(32)
	for _, mode := range []string{"write", "readfrom"} {
		for _, n := range []int{0, 32} {
			doc := page
			if n == 0 {
				doc = bytes.ReplaceAll(page, []byte("<esi:include"), []byte("<esi-include"))
			}
			b.Run(fmt.Sprintf("%s/includes=%d", mode, n), func(b *testing.B) {
				h := Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					if mode == "write" {
						w.Write(doc)
					} else {
						// Hide WriteTo, which io.Copy would prefer to ReadFrom.
						io.Copy(w, struct{ io.Reader }{bytes.NewReader(doc)})
					}
				}), Options{Fetch: memFetch, BufferSize: 32 << 10})
				req := httptest.NewRequest("GET", "/", nil)
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
				}
			})
		}
	}
}
