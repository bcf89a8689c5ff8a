package esi_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/mosaic-edge/mosaic/esi"
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
func memFetch(_, _ *http.Request) (*esi.Fragment, error) {
	return &esi.Fragment{Status: 200, Header: http.Header{"Content-Type": {"text/plain"}},
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
				h := mustNew(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					if mode == "write" {
						w.Write(doc)
					} else {
						// Hide WriteTo, which io.Copy would prefer to ReadFrom.
						io.Copy(w, struct{ io.Reader }{bytes.NewReader(doc)})
					}
				}), esi.Options{Fetcher: esi.FetchFunc(memFetch), BufferSize: 32 << 10})
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

// prosePage is a ~256 KB article-like HTML page with n includes spread
// evenly: paragraphs of words drawn pseudo-randomly from a few hundred, a
// link now and then. It compresses about as real pages do (gzip -6 leaves
// about a third), unlike benchPage's repeated line.
func prosePage(n int) []byte {
	const size = 256 << 10
	words := strings.Fields(proseWords)
	state := uint64(0x9E3779B97F4A7C15)
	rnd := func(k int) int {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return int(state % uint64(k))
	}
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><title>Article</title></head>\n<body><main>\n")
	next := 0
	for b.Len() < size {
		for ; next < n && b.Len() >= size*(next+1)/(n+1); next++ {
			fmt.Fprintf(&b, "<esi:include src=\"/frag/%d\"/>\n", next)
		}
		b.WriteString("<p>")
		for range 40 + rnd(60) {
			if rnd(25) == 0 {
				fmt.Fprintf(&b, `<a href="/articles/%d">%s</a> `, rnd(100000), words[rnd(len(words))])
				continue
			}
			b.WriteString(words[rnd(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("</p>\n")
	}
	for ; next < n; next++ {
		fmt.Fprintf(&b, "<esi:include src=\"/frag/%d\"/>\n", next)
	}
	b.WriteString("</main></body></html>\n")
	return b.Bytes()
}

const proseWords = `
page fragment include parse stream buffer order document response request header
origin cache server client browser gzip brotli deflate window level block token match
length offset literal huffman table encoder decoder writer reader slice chunk pool copy
text markup element attribute value entity comment remove vars choose when otherwise
alt onerror continue timeout depth limit bound nested subrequest location proxy upstream
keepalive connection socket address port listen name route prefix regex exact internal
error status body marker silent warning info debug notice log line field time date
the of and to in a is that for it as was with be by on not this are or from at which but
have an they you were there been one all we their has would when if so no will more about
up out who them some could into only then its other than these two may first any new like
our over such way even most made after also did many before must through back years where
much your well down should because each just those people how too little state good very
make world still see own work long here get both between life being under never day same
another know while last might great old year off come since against go came right used
take three himself few house use during without again place around however home small
found thought went say part once general high upon every does got left number course
until always away something fact though water less public put think almost hand enough
far took head yet system better set told nothing night end why called important point
side open form city library package market report data study policy service value model
design process review edge assemble deliver stitch plan replay store shell article news
`

// gzipDiscard is a response writer that gzips what it is given, as the
// compression filter does after ESI, and throws the result away.
type gzipDiscard struct {
	h  http.Header
	zw *gzip.Writer
}

func (g *gzipDiscard) Header() http.Header         { return g.h }
func (g *gzipDiscard) WriteHeader(int)             {}
func (g *gzipDiscard) Write(b []byte) (int, error) { return g.zw.Write(b) }

// BenchmarkOneFragment is the one-fragment row of the server benchmark
// without the network: a 256 KB page with one include, arriving in 32 KB
// writes as the proxy relays it, assembled ("esi"), and assembled then
// gzipped as the compression filter does, at gzip_comp_level 1 and 6
// ("esi+gzipN"). The difference is the price of compressing the page on
// every delivery.
func BenchmarkOneFragment(b *testing.B) {
	doc := prosePage(1)
	h := mustNew(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		for rest := doc; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			w.Write(rest[:n])
			rest = rest[n:]
		}
	}), esi.Options{Fetcher: esi.FetchFunc(memFetch)})
	req := httptest.NewRequest("GET", "/", nil)
	for _, level := range []int{0, 1, 6} {
		name := "esi"
		if level > 0 {
			name = fmt.Sprintf("esi+gzip%d", level)
		}
		b.Run(name, func(b *testing.B) {
			zw, err := gzip.NewWriterLevel(io.Discard, max(level, 1))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if level == 0 {
					h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
					continue
				}
				zw.Reset(io.Discard)
				h.ServeHTTP(&gzipDiscard{h: http.Header{}, zw: zw}, req)
				zw.Close()
			}
		})
	}
}
