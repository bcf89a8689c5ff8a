package esi_test

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
)

// TestStoredFormLargerThanZone: a page whose stored runs cannot fit the
// zone is stitched from live compression and evicts no other plan (it
// used to empty the zone on every delivery).
func TestStoredFormLargerThanZone(t *testing.T) {
	plans := newPlans(t, esi.MinPlanStoreSize)
	small := mustNew(t, storedPage([]byte(planPage), "HIT", 4096, false), stitchOpts(plans, esi.CodingGzip, false))
	for i := 0; i < 5; i++ {
		serve(small, planRequest("/small"+strconv.Itoa(i), "", ""))
	}
	before := plans.Stats()
	big := make([]byte, 64<<10)
	x := uint32(1)
	for i := range big {
		x = x*1664525 + 1013904223
		big[i] = 'a' + byte(x>>24)%26
	}
	bigH := mustNew(t, storedPage(big, "HIT", len(big), false), stitchOpts(plans, esi.CodingGzip, false))
	serve(bigH, planRequest("/big", "", ""))     // recorded: small plan, fits
	serve(bigH, planRequest("/big", "", "gzip")) // stored form 40+ KB: grow
	after := plans.Stats()
	t.Logf("before %+v\nafter  %+v", before, after)
	if after.Plans < before.Plans {
		t.Errorf("a stored form larger than the zone evicted %d plans, including itself", before.Plans+1-after.Plans)
	}
}

// TestStoredFormLargerThanZoneConcurrent: while deliveries of a page
// whose stored form cannot fit the zone make the form and give it up,
// concurrent deliveries never write a run from a form that is gone: it
// used to be dropped after another delivery had found it, which then
// wrote nothing for the run (a zstd or brotli page silently without
// it, a gzip page with a wrong trailer).
func TestStoredFormLargerThanZoneConcurrent(t *testing.T) {
	big := make([]byte, 64<<10)
	x := uint32(1)
	for i := range big {
		x = x*1664525 + 1013904223
		big[i] = 'a' + byte(x>>24)%26
	}
	body := append([]byte(`<esi:include src="/f/a"/>`), big...)
	want := "A" + string(big)
	for _, c := range stitchCodings {
		h := mustNew(t, storedPage(body, "HIT", 4096, false), stitchOpts(newPlans(t, esi.MinPlanStoreSize), c, false))
		serve(h, planRequest("/big", "", "")) // records the plan
		var wrong atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 20 {
					if decodedQuiet(serve(h, planRequest("/big", "", c.String()))) != want {
						wrong.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		if n := wrong.Load(); n > 0 {
			t.Errorf("%v: %d wrong bodies of 160", c, n)
		}
	}
}

// TestStitchEdgeBodies: stitched bodies decode to what the unstitched
// path delivers, for empty, markup-only and failing-include pages.
func TestStitchEdgeBodies(t *testing.T) {
	for _, body := range []string{"", `<esi:include src="/f/a"/>`, `x`, `<esi:remove>r</esi:remove>`, `<esi:include src="/f/404" onerror="continue"/>`, `<esi:include src="/f/404" alt="/f/b"/>t`} {
		for _, c := range stitchCodings {
			ref := mustNew(t, storedPage([]byte(body), "HIT", 1, false), esi.Options{Fetcher: esi.FetchHandler(fragments()), Logger: discardLog()})
			want := serve(ref, planRequest("/p", "", "")).Body.String()
			h := mustNew(t, storedPage([]byte(body), "HIT", 1, false), stitchOpts(newPlans(t, 1<<20), c, false))
			for i := 0; i < 3; i++ {
				if got := decoded(t, serve(h, planRequest("/p", "", c.String()))); got != want {
					t.Errorf("%v %q delivery %d: %q want %q", c, body, i, got, want)
				}
			}
		}
	}
}

// TestStitchNoVaryWhenNotStitched: a response that is not stitched (a
// 500) gets no Vary from stitching.
func TestStitchNoVaryWhenNotStitched(t *testing.T) {
	origin := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`err <esi:include src="/f/a"/>`))
	}
	h := mustNew(t, http.HandlerFunc(origin), stitchOpts(newPlans(t, 1<<20), esi.CodingGzip, true))
	w := serve(h, planRequest("/p", "", "gzip"))
	if w.Header().Get("Content-Encoding") == "" && w.Header().Get("Vary") != "" {
		t.Errorf("500, not compressed, but Vary %q", w.Header().Get("Vary"))
	}
}
