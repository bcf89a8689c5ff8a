package main

import "testing"

// TestExplainClasses: answers from the seeds' reports land in the class
// that explains them, and one that no class explains is left unnamed.
func TestExplainClasses(t *testing.T) {
	both := loc{gzip: true, br: true}
	statics := loc{gzip: true, br: true, gzipStatic: "always", brStatic: "always"}
	gzipOnly := loc{gzip: true}
	for _, tc := range []struct {
		name string
		r    req
		l    loc
		n, m ans
		want string
	}{{
		// A 304's body is empty whatever its 200's: not an empty body's
		// class, but the origin's coding lost with the 304.
		name: "304 with the origin's coding",
		r:    req{method: "GET", path: "/p9/o?ce=0&n=0&st=304", proxied: true, hdr: [][2]string{{"Accept-Encoding", "Br;q=0.000"}}},
		l:    gzipOnly,
		n:    ans{"304", map[string]string{"Content-Encoding": "gzip", "Vary": "*"}},
		m:    ans{"304", map[string]string{"Vary": "*"}},
		want: "KEPT 304 without Content-Encoding: ",
	}, {
		name: "HEAD's 304 with the origin's coding",
		r:    req{method: "HEAD", path: "/p14/o?ce=1&n=3000&st=304", proxied: true, hdr: [][2]string{{"Accept-Encoding", "gzip"}}},
		l:    both,
		n:    ans{"304", map[string]string{"Content-Encoding": "identity"}},
		m:    ans{"304", map[string]string{}},
		want: "KEPT 304 without Content-Encoding: ",
	}, {
		// The readings differ (x-gzip), but NGINX's br is its brotli_static
		// always, which no reading gives.
		name: "static always under another reading",
		r:    req{method: "GET", path: "/l2/a0.html", hdr: [][2]string{{"Accept-Encoding", "x-gzip;q=0.5, gzipx;Q=0"}}},
		l:    statics,
		n:    ans{"200", map[string]string{"Content-Encoding": "br", "ETag": `"1"`}},
		m:    ans{"200", map[string]string{"Content-Encoding": "gzip", "ETag": `"2"`}},
		want: "KEPT static always beside another: ",
	}, {
		name: "weights against br first",
		r:    req{method: "GET", path: "/l1/a3000.html", hdr: [][2]string{{"Accept-Encoding", "gzip;q=1, br;q=0.5"}}},
		l:    both,
		n:    ans{"200", map[string]string{"Content-Encoding": "br"}},
		m:    ans{"200", map[string]string{"Content-Encoding": "gzip"}},
		want: "KEPT Accept-Encoding read by RFC 9110: ",
	}, {
		// mosaic's br where only gzip is on is no reading's doing.
		name: "a coding neither reading gives",
		r:    req{method: "GET", path: "/l1/a3000.html", hdr: [][2]string{{"Accept-Encoding", "x-gzip"}}},
		l:    gzipOnly,
		n:    ans{"200", map[string]string{}},
		m:    ans{"200", map[string]string{"Content-Encoding": "br"}},
		want: "",
	}} {
		if got := explain(tc.r, tc.l, tc.n, tc.m); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
