package esi_test

import (
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
)

// FuzzPlanReplay records the plan of a body delivered in pieces of one
// size and replays it for the same stored body delivered in pieces of
// another, plain and stitched: the output is always the full parse of the
// body.
func FuzzPlanReplay(f *testing.F) {
	f.Add([]byte(planPage[:600]), uint8(200), uint8(15))
	f.Add([]byte(`a<esi:include src="/f/a"/>b<esi:vars>$(HTTP_HOST)</esi:vars>`), uint8(7), uint8(1))
	f.Add([]byte(`<esi:remove>x</esi:remove>y<!--esi z-->`), uint8(1), uint8(3))
	f.Add([]byte(`<esi:try><esi:attempt>a</esi:attempt><esi:except>b</esi:except></esi:try><!--`), uint8(9), uint8(2))
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, body []byte, recPiece, piece uint8) {
	if len(body) > 1024 {
		return
	}
	chunk := int(piece>>1) + 1
	serveBody := func(n int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			storedAs(r, "HIT", 1)
			h := w.Header()
			h.Set("Content-Type", "text/html")
			h.Set("Content-Length", "1")
			for i := 0; i < len(body); i += n {
				w.Write(body[i:min(i+n, len(body))])
			}
		}
	}
	ref := mustNew(t, serveBody(chunk), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
	wantBody := serve(ref, planRequest("/p", "group=a", "")).Body.String()
	// The low bit of piece picks plain or stitched delivery.
	c := esi.Coding(piece & 1)
	opts := stitchOpts(newPlans(t, 1<<20), c, false)
	if c == esi.CodingNone {
		opts.Stitch = nil
	}
	serve(mustNew(t, serveBody(int(recPiece)+1), opts), planRequest("/p", "group=a", c.String()))
	// Three times: the second stitched delivery stores the runs, the
	// third sends them.
	h := mustNew(t, serveBody(chunk), opts)
	for i := range 3 {
		w := serve(h, planRequest("/p", "group=a", c.String()))
		if got := decodedQuiet(w); got != wantBody {
			t.Fatalf("%v, delivery %d, pieces of %d:\ngot  %q\nwant %q", c, i, chunk, got, wantBody)
		}
	}
}
