package esi

import "testing"

func TestUserAgent(t *testing.T) {
	for _, tc := range []struct{ ua, browser, os, version string }{
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", "MSIE", "WIN", "6.0"},
		{"Mozilla/5.0 (Windows NT 6.1; Trident/7.0; rv:11.0) like Gecko", "MSIE", "WIN", "11.0"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 Safari/605.1.15", "MOZILLA", "MAC", "5.0"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0", "MOZILLA", "UNIX", "5.0"},
		{"Mozilla/5.0 (Linux; Android 14; Pixel 8)", "MOZILLA", "UNIX", "5.0"},
		{"curl/8.5.0", "OTHER", "OTHER", "8.5.0"},
		{"Opera/9.80 (Windows NT 6.0) Presto/2.12", "OTHER", "WIN", "9.80"},
		{"bot", "OTHER", "OTHER", ""},
	} {
		got := [3]string{userAgent(tc.ua, "browser"), userAgent(tc.ua, "os"), userAgent(tc.ua, "version")}
		if want := [3]string{tc.browser, tc.os, tc.version}; got != want {
			t.Errorf("%q: got %v, want %v", tc.ua, got, want)
		}
	}
	if got := userAgent("Mozilla/5.0", "other"); got != "" {
		t.Errorf("unknown key: %q", got)
	}
}

func TestAcceptsLanguage(t *testing.T) {
	for _, tc := range []struct {
		header, lang string
		want         bool
	}{
		{"en-GB,en;q=0.9", "en", true},
		{"en-GB", "en-gb", true},
		{"en-GB", "en-US", false},
		{"eng", "en", false},
		{"de;q=0, en;q=0.000", "de", false},
		{"de;q=0, en;q=0.000", "en", false},
		{"de;q=0.001", "de", true},
		{"*", "fr", false},
		{" fr ; q=1 ", "FR", true},
	} {
		if got := acceptsLanguage(tc.header, tc.lang); got != tc.want {
			t.Errorf("%q accepts %q: got %v", tc.header, tc.lang, got)
		}
	}
}
