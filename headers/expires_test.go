package headers

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/http1"
)

// The expires forms at a fixed time, which the public API (time.Now)
// cannot give.
func TestSetExpires(t *testing.T) {
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		e       Expires
		expires string
		cc      string
	}{
		{Expires{Mode: ExpiresAccess, D: time.Hour}, "Fri, 02 Jan 2026 11:00:00 GMT", "max-age=3600"},
		{Expires{Mode: ExpiresAccess, D: -time.Second}, "Fri, 02 Jan 2026 09:59:59 GMT", "no-cache"},
		{Expires{Mode: ExpiresEpoch}, "Thu, 01 Jan 1970 00:00:01 GMT", "no-cache"},
		{Expires{Mode: ExpiresMax}, "Thu, 31 Dec 2037 23:55:55 GMT", "max-age=315360000"},
		{Expires{Mode: ExpiresDaily, D: 15*time.Hour + 30*time.Minute}, "Fri, 02 Jan 2026 15:30:00 GMT", "max-age=19800"},
		{Expires{Mode: ExpiresDaily, D: 9 * time.Hour}, "Sat, 03 Jan 2026 09:00:00 GMT", "max-age=82800"},
		// A zero time is now, in every mode but the daily one.
		{Expires{Mode: ExpiresModified}, "Fri, 02 Jan 2026 10:00:00 GMT", "max-age=0"},
		// Last-Modified plus a day is still in the past.
		{Expires{Mode: ExpiresModified, D: 24 * time.Hour}, "Thu, 01 Jan 2026 00:00:00 GMT", "no-cache"},
	} {
		h := http.Header{"Last-Modified": {"Wed, 31 Dec 2025 00:00:00 GMT"}}
		setExpires(h, c.e, now)
		if h.Get("Expires") != c.expires || h.Get("Cache-Control") != c.cc {
			t.Errorf("%+v: Expires %q Cache-Control %q, want %q %q", c.e, h.Get("Expires"), h.Get("Cache-Control"), c.expires, c.cc)
		}
	}
	// max-age counts from the current whole second, as NGINX's clock.
	for _, e := range []Expires{{Mode: ExpiresModified, D: 24*time.Hour + 10*time.Hour + 30*time.Minute}, {Mode: ExpiresDaily, D: 10*time.Hour + 30*time.Minute}} {
		h := http.Header{"Last-Modified": {"Thu, 01 Jan 2026 00:00:00 GMT"}}
		setExpires(h, e, now.Add(999*time.Millisecond))
		if h.Get("Expires") != "Fri, 02 Jan 2026 10:30:00 GMT" || h.Get("Cache-Control") != "max-age=1800" {
			t.Errorf("%+v a fraction of a second after %v: %v", e, now, h)
		}
	}
	// Without Last-Modified, "modified" counts from the request time.
	h := http.Header{}
	setExpires(h, Expires{Mode: ExpiresModified, D: time.Hour}, now)
	if h.Get("Cache-Control") != "max-age=3600" {
		t.Errorf("modified without Last-Modified: %v", h)
	}
}

// TestExpiresCarriesItsDate: Expires and Date come from one reading of
// the clock, as NGINX's, so that "expires 0" is the response's Date even
// when a second ends between the filter and the status line: a writer
// between them waits for the next second. Before, the filter and mosaic's
// HTTP/1 server each read the clock and Date came out a second later.
// The filter puts no Date in the header map ($sent_http_date is empty
// in NGINX; the server writes Date only on the wire).
func TestExpiresCarriesItsDate(t *testing.T) {
	filtered, err := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	}), Options{Expires: Expires{Mode: ExpiresAccess}})
	if err != nil {
		t.Fatal(err)
	}
	mapDate := make(chan []string, 1)
	srv := &http1.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		filtered.ServeHTTP(&nextSecondWriter{ResponseWriter: w, mapDate: mapDate}, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Close()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d := <-mapDate; d != nil {
		t.Errorf("the filter put Date %q in the header map", d)
	}
	if e, d := resp.Header.Get("Expires"), resp.Header.Get("Date"); e == "" || e != d {
		t.Errorf("expires 0 across a second's end: Expires %q, Date %q", e, d)
	}
}

// nextSecondWriter holds the status line until the next second, after
// the filter above it has set Expires, and tells of the Date field the
// header map has then.
type nextSecondWriter struct {
	http.ResponseWriter
	mapDate chan []string
}

func (w *nextSecondWriter) WriteHeader(code int) {
	w.mapDate <- w.Header()["Date"]
	now := time.Now()
	time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now) + time.Millisecond)
	w.ResponseWriter.WriteHeader(code)
}

func (w *nextSecondWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TestExpiresDailyAcrossDSTChange: NGINX's ngx_next_time sets the time of
// day in the struct tm that localtime gave for now and hands it to mktime
// with now's tm_isdst, so on the day the clock changes a time on the
// other side of the change counts in now's offset: at 01:00 CET on the
// day Paris goes to summer time, "@15h" is 15:00 CET (14:00 UTC, as
// glibc's mktime gives it), not 15:00 CEST.
func TestExpiresDailyAcrossDSTChange(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	for _, c := range []struct {
		now         time.Time
		expires, cc string
	}{
		// Today, after the change.
		{time.Date(2026, 3, 29, 1, 0, 0, 0, paris), "Sun, 29 Mar 2026 14:00:00 GMT", "max-age=50400"},
		// Tomorrow, the change between: tm_mday + 1 with today's tm_isdst.
		{time.Date(2026, 3, 28, 20, 0, 0, 0, paris), "Sun, 29 Mar 2026 14:00:00 GMT", "max-age=68400"},
	} {
		h := http.Header{}
		setExpires(h, Expires{Mode: ExpiresDaily, D: 15 * time.Hour}, c.now)
		if h.Get("Expires") != c.expires || h.Get("Cache-Control") != c.cc {
			t.Errorf("@15h at %v: Expires %q Cache-Control %q, want %q %q", c.now, h.Get("Expires"), h.Get("Cache-Control"), c.expires, c.cc)
		}
	}
}

// ExpiresFunc chooses per response, seeing the header the content set; it
// is asked only for the statuses expires applies to, and false or "off"
// sets nothing.
func TestExpiresFunc(t *testing.T) {
	calls := 0
	pick := func(_ *http.Request, h http.Header) (Expires, bool) {
		calls++
		switch h.Get("Content-Type") {
		case "text/css":
			return Expires{Mode: ExpiresMax}, true
		case "text/plain":
			return Expires{Mode: ExpiresOff}, true
		}
		return Expires{}, false
	}
	for _, c := range []struct {
		ct     string
		status int
		cc     string
		calls  int
	}{
		{"text/css", 200, "max-age=315360000", 1},
		{"text/plain", 200, "", 1},
		{"text/html", 200, "", 1},
		{"text/css", 404, "", 0},
	} {
		calls = 0
		h, err := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", c.ct)
			w.WriteHeader(c.status)
		}), Options{ExpiresFunc: pick})
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
		if got := rec.Header().Get("Cache-Control"); got != c.cc || calls != c.calls {
			t.Errorf("%s %d: Cache-Control %q after %d calls, want %q after %d", c.ct, c.status, got, calls, c.cc, c.calls)
		}
	}
}
