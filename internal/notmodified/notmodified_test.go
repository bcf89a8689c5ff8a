package notmodified

import (
	"net/http"
	"testing"
)

func TestMatch(t *testing.T) {
	etag := []byte(`"abc"`)
	for _, c := range []struct {
		values []string
		weak   bool
		match  bool
	}{
		{nil, true, false},
		{[]string{""}, true, false},
		{[]string{" , "}, true, false},
		{[]string{`"abc"`}, false, true},
		{[]string{`W/"abc"`}, false, false},
		{[]string{`W/"abc"`}, true, true},
		{[]string{` "x",W/"abc" `}, true, true},
		{[]string{`"ab`}, true, false},
		{[]string{`"a,c", "abc"`}, true, true},
		{[]string{`"abc"x`}, true, false},
		{[]string{`"abc" , "x"`}, true, true},
		{[]string{`*`}, false, true},
		{[]string{`*, "x"`}, false, false},
		{[]string{`"x"`, `"abc"`}, false, true},
	} {
		if m := Match(c.values, etag, c.weak); m != c.match {
			t.Errorf("Match(%q, weak=%v) = %v; want %v", c.values, c.weak, m, c.match)
		}
		if m := Match(c.values, string(etag), c.weak); m != c.match {
			t.Errorf("Match(%q, string, weak=%v) = %v; want %v", c.values, c.weak, m, c.match)
		}
	}
	weakTag := []byte(`W/"abc"`)
	if !Match([]string{`W/"abc"`}, weakTag, false) || !Match([]string{`"abc"`}, weakTag, true) {
		t.Error("a weak tag: If-Match compares the bytes, If-None-Match drops W/")
	}
}

// TestCheck: NGINX's order and its reading of each field, for a response
// with and without each validator.
func TestCheck(t *testing.T) {
	const lm = 1600000000 // Sun, 13 Sep 2020 12:26:40 GMT
	const at = "Sun, 13 Sep 2020 12:26:40 GMT"
	const before = "Sun, 13 Sep 2020 12:26:39 GMT"
	const after = "Sun, 13 Sep 2020 12:26:41 GMT"
	for _, c := range []struct {
		fields []string
		etag   string
		hasLM  bool
		since  Since
		want   int
	}{
		{nil, `"v"`, true, Exact, 0},
		{[]string{"If-None-Match", `"v"`}, `"v"`, true, Exact, 304},
		{[]string{"If-None-Match", `"v"`}, "", true, Exact, 0},
		{[]string{"If-None-Match", "*"}, "", false, Exact, 304},
		{[]string{"If-None-Match", `*, "x"`}, `"v"`, true, Exact, 0},
		{[]string{"If-None-Match", ""}, `"v"`, true, Exact, 0},
		// Both must hold: If-None-Match does not decide alone.
		{[]string{"If-None-Match", `"v"`, "If-Modified-Since", before}, `"v"`, true, Exact, 0},
		{[]string{"If-None-Match", `"v"`, "If-Modified-Since", at}, `"v"`, true, Exact, 304},
		{[]string{"If-Modified-Since", at}, "", true, Exact, 304},
		{[]string{"If-Modified-Since", at}, "", false, Exact, 0},
		{[]string{"If-Modified-Since", after}, "", true, Exact, 0},
		{[]string{"If-Modified-Since", after}, "", true, Before, 304},
		{[]string{"If-Modified-Since", before}, "", true, Before, 0},
		{[]string{"If-Modified-Since", at}, "", true, Off, 0},
		{[]string{"If-Modified-Since", "yesterday"}, "", true, Before, 0},
		// 412 comes first, and without Last-Modified or with a bad date
		// If-Unmodified-Since fails.
		{[]string{"If-Unmodified-Since", after}, "", true, Exact, 0},
		{[]string{"If-Unmodified-Since", at}, "", true, Exact, 0},
		{[]string{"If-Unmodified-Since", before}, "", true, Exact, 412},
		{[]string{"If-Unmodified-Since", after}, "", false, Exact, 412},
		{[]string{"If-Unmodified-Since", "yesterday"}, "", true, Exact, 412},
		{[]string{"If-Match", `"v"`}, `"v"`, true, Exact, 0},
		{[]string{"If-Match", `W/"v"`}, `"v"`, true, Exact, 412},
		{[]string{"If-Match", "*"}, "", false, Exact, 0},
		{[]string{"If-Match", `"x"`, "If-None-Match", `"v"`}, `"v"`, true, Exact, 412},
		{[]string{"If-Match", `"v"`, "If-None-Match", `"v"`}, `"v"`, true, Exact, 304},
	} {
		h := http.Header{}
		for i := 0; i < len(c.fields); i += 2 {
			h[c.fields[i]] = []string{c.fields[i+1]}
		}
		if got := Check(h, c.etag, lm, c.hasLM, c.since); got != c.want {
			t.Errorf("%q etag %q hasLM %v since %d: %d, want %d", c.fields, c.etag, c.hasLM, c.since, got, c.want)
		}
		resp := http.Header{}
		if c.etag != "" {
			resp["Etag"] = []string{c.etag}
		}
		if c.hasLM {
			resp["Last-Modified"] = []string{at}
		}
		if got := CheckResponse(h, resp, c.since); got != c.want {
			t.Errorf("CheckResponse %q etag %q hasLM %v since %d: %d, want %d", c.fields, c.etag, c.hasLM, c.since, got, c.want)
		}
	}
	// A Last-Modified that does not parse is none.
	h := http.Header{"If-Modified-Since": {at}}
	if got := CheckResponse(h, http.Header{"Last-Modified": {"13 Sep 2020"}}, Exact); got != 0 {
		t.Errorf("bad Last-Modified: %d, want 0", got)
	}
	// Nor is the second before 1970, NGINX's error time -1: an
	// If-Unmodified-Since without a Last-Modified fails.
	h = http.Header{"If-Unmodified-Since": {at}}
	if got := CheckResponse(h, http.Header{"Last-Modified": {"Wed, 31 Dec 1969 23:59:59 GMT"}}, Exact); got != 412 {
		t.Errorf("Last-Modified at -1: %d, want 412", got)
	}
}

// TestInvalidDateBefore1970: NGINX compares a request date it cannot read
// as its error time, -1, which comes after a Last-Modified before
// 1970: an invalid If-Unmodified-Since passes there, and an invalid
// If-Modified-Since under "before" is a 304. A Last-Modified of -1
// itself is NGINX's "none": If-Unmodified-Since fails, If-Modified-Since
// never matches.
func TestInvalidDateBefore1970(t *testing.T) {
	const lm1962 = -252460800 // Mon, 01 Jan 1962 00:00:00 GMT
	for _, c := range []struct {
		field string
		lm    int64
		since Since
		want  int
	}{
		{"If-Unmodified-Since", lm1962, Exact, 0},
		{"If-Modified-Since", lm1962, Before, 304},
		{"If-Modified-Since", lm1962, Exact, 0},
		{"If-Unmodified-Since", 1600000000, Exact, 412},
		{"If-Modified-Since", 1600000000, Before, 0},
		{"If-Unmodified-Since", -1, Exact, 412},
		{"If-Modified-Since", -1, Before, 0},
		{"If-Modified-Since", -1, Exact, 0},
	} {
		h := http.Header{c.field: {"yesterday"}}
		if got := Check(h, "", c.lm, true, c.since); got != c.want {
			t.Errorf("%s: yesterday, Last-Modified %d, since %d: %d, want %d", c.field, c.lm, c.since, got, c.want)
		}
	}
	// The same through CheckResponse, from an origin's 1962 date.
	resp := http.Header{"Last-Modified": {"Mon, 01 Jan 1962 00:00:00 GMT"}}
	if got := CheckResponse(http.Header{"If-Unmodified-Since": {"yesterday"}}, resp, Exact); got != 0 {
		t.Errorf("CheckResponse, 1962: %d, want 0", got)
	}
	if got := RequestTime("yesterday"); got != -1 {
		t.Errorf("RequestTime(yesterday) = %d, want -1", got)
	}
}
