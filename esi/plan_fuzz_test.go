package esi_test

import (
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/vars"
)

// FuzzPlanReplay records the plan of one body and delivers another under
// the same key, in pieces of a given size, plain and stitched: the output
// is always the full parse of the body delivered.
func FuzzPlanReplay(f *testing.F) {
	f.Add([]byte(planPage[:600]), []byte(planPage[:600]), uint8(15))
	f.Add([]byte(`a<esi:include src="/f/a"/>b<esi:vars>$(HTTP_HOST)</esi:vars>`), []byte(`a<esi:include src="/f/b"/>b<esi:vars>$(HTTP_HOST)</esi:vars>`), uint8(1))
	f.Add([]byte(`<esi:remove>x</esi:remove>y<!--esi z-->`), []byte(`<esi:remove>x</esi:remove><esi:include src="/f/a"/>`), uint8(3))
	f.Add([]byte(`<esi:try><esi:attempt>a</esi:attempt><esi:except>b</esi:except></esi:try>`), []byte(`<esi:try><esi:attempt>a</esi:attempt></esi:try><!--`), uint8(2))
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, recorded, delivered []byte, piece uint8) {
	if len(recorded) > 1024 || len(delivered) > 1024 {
		return
	}
	chunk := int(piece>>1) + 1
	serveBody := func(body []byte) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			vars.FromContext(r.Context()).Set("upstream_cache_status", "HIT")
			h := w.Header()
			h.Set("Content-Type", "text/html")
			h.Set("Content-Length", "1") // the same key for both bodies
			for i := 0; i < len(body); i += chunk {
				w.Write(body[i:min(i+chunk, len(body))])
			}
		}
	}
	ref := mustNew(t, serveBody(delivered), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
	wantBody := serve(ref, planRequest("/p", "group=a", "")).Body.String()
	// The low bit of piece picks plain or stitched delivery.
	c := esi.Coding(piece & 1)
	opts := stitchOpts(newPlans(t, 1<<20), c, false)
	if c == esi.CodingNone {
		opts.Stitch = nil
	}
	serve(mustNew(t, serveBody(recorded), opts), planRequest("/p", "group=a", c.String()))
	// Twice: the second stitched delivery writes stored runs.
	h := mustNew(t, serveBody(delivered), opts)
	for i := range 1 + int(c) {
		w := serve(h, planRequest("/p", "group=a", c.String()))
		if got := decodedQuiet(w); got != wantBody {
			t.Fatalf("%v, delivery %d, pieces of %d:\ngot  %q\nwant %q", c, i, chunk, got, wantBody)
		}
	}
}
