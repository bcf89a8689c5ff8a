package cache_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/mosaic-edge/mosaic/cache"
)

// TestConditionsRFCAndNGINX: the same stored 200 and the same requests,
// on a miss (the fill) and on a hit, answered by RFC 9111's rules (the
// zero Options) and by NGINX's not-modified filter (ConditionsNGINX), where
// they differ. The cmd/mosaic test TestConditionalCachedAsNGINX compares
// the server with /usr/sbin/nginx.
func TestConditionsRFCAndNGINX(t *testing.T) {
	const lm = "Sun, 13 Sep 2020 12:26:40 GMT"
	const after = "Sun, 13 Sep 2020 12:26:41 GMT"
	const before = "Sun, 13 Sep 2020 12:26:39 GMT"
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e1"`)
		w.Header().Set("Last-Modified", lm)
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "hello")
	})
	errorPage := func(w http.ResponseWriter, r *http.Request, status int) {
		w.Header().Set("X-Page", "yes")
		w.WriteHeader(status)
	}
	rfc := newFront(t, o, cache.Options{})
	nginx := newFront(t, o, cache.Options{Conditions: cache.ConditionsNGINX, Error: errorPage})
	before2 := newFront(t, o, cache.Options{Conditions: cache.ConditionsNGINXBefore})
	off := newFront(t, o, cache.Options{Conditions: cache.ConditionsNGINXOff})
	n := 0
	for _, c := range []struct {
		fields                []string
		rfc, nginx, bef, ioff int
	}{
		{[]string{"If-None-Match", `"e1"`}, 304, 304, 304, 304},
		{[]string{"If-None-Match", `*, "x"`}, 304, 200, 200, 200},
		{[]string{"If-None-Match", `"e1"`, "If-Modified-Since", before}, 304, 200, 200, 200},
		{[]string{"If-Modified-Since", lm}, 304, 304, 304, 200},
		{[]string{"If-Modified-Since", after}, 304, 200, 304, 200},
		{[]string{"If-Match", `"x"`}, 200, 412, 412, 412},
		{[]string{"If-Match", `"x"`, "If-None-Match", `"e1"`}, 304, 412, 412, 412},
		{[]string{"If-Unmodified-Since", before}, 200, 412, 412, 412},
		{[]string{"If-Unmodified-Since", after}, 200, 200, 200, 200},
	} {
		path := fmt.Sprintf("/c%d", n) // a key of its own: the first request fills it
		n++
		for i, pass := range []string{"miss", "hit"} {
			for j, f := range []struct {
				front *front
				want  int
			}{{rfc, c.rfc}, {nginx, c.nginx}, {before2, c.bef}, {off, c.ioff}} {
				got := f.front.get(t, path, c.fields...)
				if got.status != f.want {
					t.Errorf("%s %q front %d: %d, want %d", pass, c.fields, j, got.status, f.want)
				}
				want := []string{cache.StatusMiss, cache.StatusHit}[i]
				if f.want == 412 {
					// As NGINX's, a fill that fails the precondition
					// stores nothing: the next request is a miss too.
					want = cache.StatusMiss
				}
				if got.cacheStatus() != want {
					t.Errorf("%s %q: cache status %q", pass, c.fields, got.cacheStatus())
				}
				switch got.status {
				case 304:
					// The validators stay, the length goes.
					if got.header.Get("ETag") != `"e1"` || got.header.Get("Content-Length") != "" {
						t.Errorf("%s %q: 304 header %v", pass, c.fields, got.header)
					}
				case 412:
					if got.header.Get("ETag") != "" || (f.front == nginx) != (got.header.Get("X-Page") == "yes") {
						t.Errorf("%s %q: 412 header %v", pass, c.fields, got.header)
					}
				}
			}
		}
	}
}

// TestConditionsNotForSubrequests: NGINX's filter answers the main
// request only; Options.Subrequest names the others.
func TestConditionsNotForSubrequests(t *testing.T) {
	o := newOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"e1"`)
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, "hello")
	})
	f := newFront(t, o, cache.Options{
		Conditions: cache.ConditionsNGINX,
		Subrequest: func(r *http.Request) bool { return r.Header.Get("X-Sub") != "" },
	})
	for _, pass := range []string{"miss", "hit"} {
		for _, c := range [][]string{{"If-Match", `"x"`}, {"If-None-Match", `"e1"`}} {
			if got := f.get(t, "/", append(c, "X-Sub", "1")...); got.status != 200 || got.body != "hello" {
				t.Errorf("%s, subrequest %q: %d %q", pass, c, got.status, got.body)
			}
			if got := f.get(t, "/", c...); got.status == 200 {
				t.Errorf("%s, main request %q: 200", pass, c)
			}
		}
	}
}
