package static

import "testing"

// TestStrictConditionalDates: the dates of If-Modified-Since,
// If-Unmodified-Since and If-Range are read as NGINX reads them
// (httpdate.Conditional): a value net/http's lenient parser would accept,
// with doubled spaces or a one-digit hour, is invalid: it voids
// If-Modified-Since and fails If-Unmodified-Since, as in NGINX; the case
// of the names is not significant (NGINX's months are capitalised).
func TestStrictConditionalDates(t *testing.T) {
	fx := serve(t, nil)
	const (
		doubled   = "Sun, 13  Sep  2020 12:26:40 GMT" // fixedLastModified, badly spaced
		earlier   = "Sun, 13  Sep  2020 12:26:39 GMT"
		oneDigit  = "Sun, 13 Sep 2020 2:26:40 GMT"
		lowerCase = "sun, 13 sep 2020 12:26:40 gmt"
	)
	for _, c := range []struct {
		name   string
		header []string
		status int
	}{
		{"IMS with doubled spaces is ignored", []string{"If-Modified-Since", doubled}, 200},
		{"IMS with a one-digit hour is ignored", []string{"If-Modified-Since", oneDigit}, 200},
		{"IMS in lower case", []string{"If-Modified-Since", lowerCase}, 304},
		{"IMS in the RFC 850 form", []string{"If-Modified-Since", "Sunday, 13-Sep-20 12:26:40 GMT"}, 304},
		{"IMS in the asctime form", []string{"If-Modified-Since", "Sun Sep 13 12:26:40 2020"}, 304},
		{"IUMS with doubled spaces fails", []string{"If-Unmodified-Since", earlier}, 412},
		{"If-Range with doubled spaces is false", []string{"Range", "bytes=0-1", "If-Range", doubled}, 200},
		{"If-Range in lower case", []string{"Range", "bytes=0-1", "If-Range", lowerCase}, 206},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, _ := fx.do("GET", "/a.txt", c.header...)
			expect(t, resp, c.status)
		})
	}
}
