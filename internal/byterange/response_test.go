package byterange

import (
	"net/http"
	"testing"
)

// TestIfRangeMatches: a proxied or cached response's If-Range, both dates
// read as NGINX's ngx_parse_http_time reads them, the tag compared
// strongly, and a Last-Modified less than a second before Date too weak
// to match (RFC 9110 section 13.1.5).
func TestIfRangeMatches(t *testing.T) {
	const lm = "Sun, 13 Sep 2020 12:26:40 GMT"
	const date = "Mon, 14 Sep 2020 12:26:40 GMT"
	for _, c := range []struct {
		ifRange string
		header  http.Header
		want    bool
	}{
		{lm, http.Header{"Last-Modified": {lm}, "Date": {date}}, true},
		{"Sun, 13 Sep 2020 12:26:40", http.Header{"Last-Modified": {lm}}, true},
		{lm, http.Header{"Last-Modified": {"Sun, 13 Sep 2020 12:26:40"}}, true},
		{"Sun, 13 Sep 2020 12:26:41 GMT", http.Header{"Last-Modified": {lm}}, false},
		{lm, http.Header{}, false},
		{lm, http.Header{"Last-Modified": {lm, lm}}, false},
		// Less than a second before Date: weak.
		{lm, http.Header{"Last-Modified": {lm}, "Date": {lm}}, false},
		// The second before 1970 is NGINX's error: no Last-Modified.
		{"Wed, 31 Dec 1969 23:59:59 GMT", http.Header{"Last-Modified": {"Wed, 31 Dec 1969 23:59:59 GMT"}}, false},
		{`"a"`, http.Header{"Etag": {`"a"`}}, true},
		{`W/"a"`, http.Header{"Etag": {`W/"a"`}}, false},
		{`"a"`, http.Header{"Etag": {`"b"`}}, false},
	} {
		if got := IfRangeMatches(c.ifRange, c.header); got != c.want {
			t.Errorf("If-Range %q, %v: %v, want %v", c.ifRange, c.header, got, c.want)
		}
	}
}
