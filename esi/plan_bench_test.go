package esi_test

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/mosaic-edge/mosaic/esi"
)

// cachedDoc serves doc as a cache hit, in 32 KB writes as the server's
// memory store and the proxy write it.
func cachedDoc(doc []byte) http.HandlerFunc {
	id := bodyID("/", doc)
	return func(w http.ResponseWriter, r *http.Request) {
		storedAs(r, "HIT", id)
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
		w.Header().Set("Date", "Tue, 01 Dec 2026 10:00:00 GMT")
		for rest := doc; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			w.Write(rest[:n])
			rest = rest[n:]
		}
	}
}

// BenchmarkPlanReplay is a stored 256 KB markup-dense page (a '<' every
// few bytes, none of it ESI) with 0 or 32 includes, parsed on every
// delivery ("parse") or replayed from its plan ("plan").
func BenchmarkPlanReplay(b *testing.B) {
	for _, n := range []int{0, 32} {
		doc := benchPage(n)
		for _, planned := range []bool{false, true} {
			name := fmt.Sprintf("includes=%d/parse", n)
			opts := esi.Options{Fetcher: esi.FetchFunc(memFetch), BufferSize: 32 << 10}
			if planned {
				name = fmt.Sprintf("includes=%d/plan", n)
				opts.Plans = newPlans(b, 64<<20)
			}
			b.Run(name, func(b *testing.B) {
				h := mustNew(b, cachedDoc(doc), opts)
				req := planRequest("/", "", "")
				h.ServeHTTP(&discardWriter{h: http.Header{}}, req) // records the plan
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				for b.Loop() {
					h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
				}
			})
		}
	}
}

// BenchmarkStitch is the one-fragment row of the server benchmark without
// the network, for a gzip (or zstd) client: a stored 256 KB article-like
// page with one include, assembled and gzipped at level 6 on every
// delivery as the compression filter does today ("esi+gzip6"), or
// replayed from its plan with its runs written from their stored forms
// ("stitch-gzip6", "stitch-zstd6", "stitch-br6", brotli at the quality
// level 6 stands for).
func BenchmarkStitch(b *testing.B) {
	doc := prosePage(1)
	b.Run("esi+gzip6", func(b *testing.B) {
		h := mustNew(b, cachedDoc(doc), esi.Options{Fetcher: esi.FetchFunc(memFetch)})
		zw, err := gzip.NewWriterLevel(io.Discard, 6)
		if err != nil {
			b.Fatal(err)
		}
		req := planRequest("/", "", "")
		b.SetBytes(int64(len(doc)))
		b.ReportAllocs()
		for b.Loop() {
			zw.Reset(io.Discard)
			h.ServeHTTP(&gzipDiscard{h: http.Header{}, zw: zw}, req)
			zw.Close()
		}
	})
	for _, c := range stitchCodings {
		b.Run("stitch-"+c.String()+"6", func(b *testing.B) {
			opts := stitchOpts(newPlans(b, 64<<20), c, false)
			opts.Fetcher = esi.FetchFunc(memFetch)
			h := mustNew(b, cachedDoc(doc), opts)
			req := planRequest("/", "", c.String())
			for range 2 { // records the plan, then stores the runs
				h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
			}
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(&discardWriter{h: http.Header{}}, req)
			}
		})
	}
}
