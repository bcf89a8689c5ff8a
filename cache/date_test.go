package cache_test

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strconv"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/internal/testclient"
)

// dateAt is the origin's clock, off from the cache's by d: the runner
// sets Date to the cache's time before the rule's origin runs.
func dateAt(w http.ResponseWriter, d time.Duration) time.Time {
	now, _ := http.ParseTime(w.Header().Get("Date"))
	return now.Add(d)
}

func httpDate(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// TestDateRules: the origin's Date, Age and Expires as RFC 9111 reads
// them (sections 4.2.1, 4.2.3, 5.1 and 5.3), with strict HTTP-dates.
func TestDateRules(t *testing.T) {
	notReused := []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusMiss, originReqs: 2}}
	reused := []step{{cache: cache.StatusMiss, originReqs: 1}, {cache: cache.StatusHit, originReqs: 1}}
	rules := []rule{
		{
			name: "9111/4.2.3 a slow origin clock's Date counts in the age",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", httpDate(dateAt(w, -100*time.Second)))
				w.Header().Set("Cache-Control", "max-age=3600")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Age": "100"}},
			},
		},
		{
			name: "9111/4.2.3 an apparent age past max-age is stale on arrival",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", httpDate(dateAt(w, -2*time.Hour)))
				w.Header().Set("Cache-Control", "max-age=3600")
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/5.3 an Expires older than Date is stale, both fast",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", httpDate(dateAt(w, 300*time.Second)))
				w.Header().Set("Date", httpDate(dateAt(w, 400*time.Second)))
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2.3 Age past Expires minus Date is stale, Date fast",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", httpDate(dateAt(w, 20*time.Second)))
				w.Header().Set("Date", httpDate(dateAt(w, 10*time.Second)))
				w.Header().Set("Age", "15")
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2.3 Age past Expires minus Date is stale, Date slow",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", httpDate(dateAt(w, 10*time.Second)))
				w.Header().Set("Date", httpDate(dateAt(w, -10*time.Second)))
				w.Header().Set("Age", "25")
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2.3 Age within Expires minus Date is fresh, Date fast",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", httpDate(dateAt(w, 120*time.Second)))
				w.Header().Set("Date", httpDate(dateAt(w, 10*time.Second)))
				w.Header().Set("Age", "15")
				fmt.Fprint(w, body(n))
			},
			steps: []step{
				{cache: cache.StatusMiss, originReqs: 1},
				{cache: cache.StatusHit, originReqs: 1, want: map[string]string{"Age": "15"}},
			},
		},
		{
			name: "9110/6.6.1 an invalid Date is replaced by the time of arrival; Expires still counts",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", httpDate(dateAt(w, 10*time.Second)))
				w.Header().Set("Date", "foo")
				fmt.Fprint(w, body(n))
			},
			steps: reused,
		},
		{
			name: "9111/5.1 an Age list counts its first value: 7200, 0",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header().Set("Age", "7200, 0")
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/5.1 an Age list counts its first value: 0,7200",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header().Set("Age", "0,7200")
				fmt.Fprint(w, body(n))
			},
			steps: reused,
		},
		{
			name: "9111/5.1 several Age lines count the first",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header()["Age"] = []string{"7200", "0"}
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/5.3 several Expires lines are invalid: already expired",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				future := httpDate(dateAt(w, time.Hour))
				w.Header()["Expires"] = []string{future, future}
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2 the case of GMT, day and month is not significant",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", "THU, 18 AUG 2050 02:01:18 gMT")
				fmt.Fprint(w, body(n))
			},
			steps: reused,
		},
		{
			name: "9110/5.6.7 an RFC 850 and an asctime Expires are read",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				if n == 1 {
					w.Header().Set("Expires", "Thursday, 18-Aug-50 02:01:18 GMT")
				} else {
					w.Header().Set("Expires", "Thu Aug 18 02:01:18 2050")
				}
				fmt.Fprint(w, body(n))
			},
			steps: reused,
		},
	}
	// Invalid HTTP-dates that net/http's ParseTime reads as 2050: each
	// Expires means already expired.
	for _, v := range []string{
		"Thu, 18  Aug  2050 02:01:18 GMT",
		"Thu, 18 Aug 2050 2:01:18 GMT",
		"Thu, 18 Aug 2050 02:01:18 UTC",
		"Thu, 18 Aug 50 02:01:18 GMT",
		"Thu 18 Aug 2050 02:01:18 GMT",
		"Thu, 18-Aug-2050 02:01:18 GMT",
		"Thu, 18 Aug 2050 02.01.18 GMT",
	} {
		rules = append(rules, rule{
			name: "9111/5.3 invalid Expires " + v,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", v)
				fmt.Fprint(w, body(n))
			},
			steps: notReused,
		})
	}
	runRules(t, rules)
}

// TestAgeOverflowSaturates: an Age near the largest Duration plus the time
// the exchange took, and then plus the time in the store, is the greatest
// age the cache can represent (RFC 9111 section 1.2.2), not a sum that
// wrapped negative and was taken as no age at all.
func TestAgeOverflowSaturates(t *testing.T) {
	clk := newClock()
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Age", "99999999999")
		// X-Accel-Expires counts from arrival: stored whatever the Age.
		w.Header().Set("X-Accel-Expires", "60")
		clk.Advance(time.Second) // the exchange takes a second
		fmt.Fprint(w, "old")
	})
	f := newFrontClock(t, o, cache.Options{}, clk)
	f.get(t, "/a")
	clk.Advance(time.Second)
	r := f.get(t, "/a")
	want := strconv.FormatInt(math.MaxInt64/int64(time.Second), 10)
	if r.cacheStatus() != cache.StatusHit || r.header.Get("Age") != want {
		t.Fatalf("hit: %s, Age %q, want %s", r.cacheStatus(), r.header.Get("Age"), want)
	}
}

// TestDateKeptOnHits: a hit carries the origin's Date as stored, not the
// time it is served; a response without Date gets the time it arrived.
func TestDateKeptOnHits(t *testing.T) {
	clk := newClock()
	originDate := httpDate(clk.Now().Add(-time.Minute))
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/none" {
			w.Header()["Date"] = nil // net/http adds none
		} else {
			w.Header().Set("Date", originDate)
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "x")
	})
	f := newFrontClock(t, o, cache.Options{}, clk)
	if got := f.get(t, "/dated"); got.header.Get("Date") != originDate {
		t.Errorf("miss: Date %q, want the origin's %q", got.header.Get("Date"), originDate)
	}
	arrived := httpDate(clk.Now())
	if got := f.get(t, "/none"); got.header.Get("Date") != arrived {
		t.Errorf("miss without Date: Date %q, want the time of arrival %q", got.header.Get("Date"), arrived)
	}
	clk.Advance(10 * time.Minute)
	time.Sleep(1100 * time.Millisecond) // the server's own clock moves on too
	for path, want := range map[string]string{"/dated": originDate, "/none": arrived} {
		got := f.get(t, path)
		if got.cacheStatus() != cache.StatusHit || got.header.Get("Date") != want {
			t.Errorf("%s: %s with Date %q, want a HIT with %q", path, got.cacheStatus(), got.header.Get("Date"), want)
		}
	}
}

// TestStrictIfModifiedSince: a conditional whose date is not a valid
// HTTP-date is ignored (RFC 9110 section 13.1.3), not read leniently.
func TestStrictIfModifiedSince(t *testing.T) {
	const lm = "Sun, 06 Nov 1994 08:49:37 GMT"
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Last-Modified", lm)
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "x")
	})
	f := newFront(t, o, cache.Options{})
	f.get(t, "/")
	if got := f.get(t, "/", "If-Modified-Since", lm); got.status != http.StatusNotModified {
		t.Errorf("valid If-Modified-Since: %d, want 304", got.status)
	}
	if got := f.get(t, "/", "If-Modified-Since", "Sun, 06  Nov  1994 08:49:37 GMT"); got.status != http.StatusOK {
		t.Errorf("If-Modified-Since with doubled spaces: %d, want 200", got.status)
	}
}

// TestInterimThroughCache: a 103 on a fill reaches the client with its
// fields, and the final response is stored without them.
func TestInterimThroughCache(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "x")
	})
	f := newFront(t, o, cache.Options{})
	var links []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		links = append(links, fmt.Sprint(code, " ", h.Get("Link")))
		return nil
	}}
	req, _ := http.NewRequest(http.MethodGet, f.URL+"/", nil)
	resp, _ := testclient.Send(t, req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	if len(links) != 1 || links[0] != "103 </style.css>; rel=preload; as=style" {
		t.Errorf("interim responses %q, want the 103 with its Link", links)
	}
	if resp.Header.Get("Link") != "" {
		t.Errorf("the 103's Link is in the final response")
	}
	if got := f.get(t, "/"); got.cacheStatus() != cache.StatusHit || got.header.Get("Link") != "" {
		t.Errorf("second request: %s, Link %q; want a HIT without the 103's fields", got.cacheStatus(), got.header.Get("Link"))
	}
}
