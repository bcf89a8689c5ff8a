package useragent

import "testing"

func TestBrowsers(t *testing.T) {
	for _, c := range []struct {
		ua                          string
		msie, msie6, chrome, safari bool
	}{
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", true, true, false, false},
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)", true, false, false, false},
		{"Mozilla/4.0 (compatible; MSIE 5.5; Windows 98)", true, true, false, false},
		{"Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 6.0)", true, false, false, false},
		{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1) Opera 8.0", false, false, false, false},
		{"MSIE 6.", false, false, false, false}, // too short: NGINX wants two bytes after "MSIE "
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15", false, false, false, true},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", false, false, true, false},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 Edg/120.0", false, false, true, false},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:120.0) Gecko/20100101 Firefox/120.0", false, false, false, false},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", false, false, false, true},
		{"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36 OPR/106.0", false, false, true, false},
		{"Opera/9.80 (Windows NT 6.1) Presto/2.12 Chrome/1", false, false, false, false},
		{"curl/8.0", false, false, false, false},
	} {
		if got := MSIE(c.ua); got != c.msie {
			t.Errorf("MSIE(%q) = %v", c.ua, got)
		}
		if got := MSIE6(c.ua); got != c.msie6 {
			t.Errorf("MSIE6(%q) = %v", c.ua, got)
		}
		if got := Chrome(c.ua); got != c.chrome {
			t.Errorf("Chrome(%q) = %v", c.ua, got)
		}
		if got := Safari(c.ua); got != c.safari {
			t.Errorf("Safari(%q) = %v", c.ua, got)
		}
	}
}

func FuzzBrowsers(f *testing.F) {
	f.Add("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)")
	f.Add("MSIE 6.")
	f.Fuzz(func(t *testing.T, ua string) {
		MSIE(ua)
		MSIE6(ua)
		Chrome(ua)
		Safari(ua)
	})
}
