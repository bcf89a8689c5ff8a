package compress

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func modes(br, zstd, gz staticMode) [numCodings + 1]staticMode {
	var m [numCodings + 1]staticMode
	m[Brotli], m[Zstd], m[Gzip] = br, zstd, gz
	return m
}

func suffixes(t *testing.T, p *precompressed, accept, ua string) string {
	t.Helper()
	r := httptest.NewRequest("GET", "/x.js", nil)
	if accept != "-" {
		r.Header.Set("Accept-Encoding", accept)
	}
	if ua != "" {
		r.Header.Set("User-Agent", ua)
	}
	try, _ := p.variants(r)
	var out []string
	for _, v := range try {
		if "."+map[string]string{"br": "br", "zstd": "zst", "gzip": "gz"}[v.Encoding] != v.Suffix {
			t.Fatalf("variant %+v: suffix does not match the coding", v)
		}
		out = append(out, v.Suffix)
	}
	return strings.Join(out, " ")
}

func TestPrecompressedOrder(t *testing.T) {
	gate := DefaultOptions().Gzip
	gate.Disable.Patterns = []*regexp.Regexp{regexp.MustCompile("(?i)^curl")}
	for _, tc := range []struct {
		name   string
		modes  [numCodings + 1]staticMode
		prefer []Encoding
		accept string
		ua     string
		want   string
	}{
		{"all on, browser", modes(staticOn, staticOn, staticOn), nil, "gzip, deflate, br, zstd", "", ".br .zst .gz"},
		{"all on, gzip only", modes(staticOn, staticOn, staticOn), nil, "gzip", "", ".gz"},
		{"all on, no header", modes(staticOn, staticOn, staticOn), nil, "-", "", ""},
		{"client weights", modes(staticOn, staticOn, staticOn), nil, "br;q=0.5, gzip", "", ".gz .br"},
		{"refused by q=0", modes(staticOn, staticOff, staticOn), nil, "br;q=0, *", "", ".gz"},
		{"compress_prefer", modes(staticOn, staticOn, staticOn), []Encoding{Gzip}, "gzip, deflate, br, zstd", "", ".gz .br .zst"},
		{"always without header", modes(staticOff, staticOff, staticAlways), nil, "-", "", ".gz"},
		{"always after the client's choice", modes(staticOn, staticOff, staticAlways), nil, "br", "", ".br .gz"},
		{"always when the client refuses it", modes(staticOff, staticOff, staticAlways), nil, "gzip;q=0", "", ".gz"},
		{"gzip checks apply to on", modes(staticOn, staticOff, staticOn), nil, "gzip, br", "curl/8", ".br"},
		{"gzip checks pass", modes(staticOn, staticOff, staticOn), nil, "gzip, br", "Mozilla/5.0", ".br .gz"},
		{"gzip checks ignore always", modes(staticOff, staticOff, staticAlways), nil, "gzip", "curl/8", ".gz"},
	} {
		p := newPrecompressed(tc.modes, tc.prefer, gate, true, false)
		if got := suffixes(t, p, tc.accept, tc.ua); got != tc.want {
			t.Errorf("%s: tries %q, want %q", tc.name, got, tc.want)
		}
	}
	if p := newPrecompressed(modes(staticOff, staticOff, staticOff), nil, gate, true, false); p != nil {
		t.Error("every *_static off: want no chooser")
	}
}

func TestPrecompressedVary(t *testing.T) {
	gate := DefaultOptions().Gzip
	for _, tc := range []struct {
		name   string
		modes  [numCodings + 1]staticMode
		vary   bool
		gunzip bool
		want   bool
	}{
		{"on, gzip_vary on", modes(staticOff, staticOff, staticOn), true, false, true},
		{"on, gzip_vary off", modes(staticOff, staticOff, staticOn), false, false, false},
		{"one always", modes(staticOff, staticOff, staticAlways), true, false, false},
		{"two always: the client picks", modes(staticAlways, staticOff, staticAlways), true, false, true},
		{"always and on", modes(staticOn, staticOff, staticAlways), true, false, true},
		// gunzip decodes the .gz for clients without gzip: the filter
		// varies its 200, and the variant says so for its 304.
		{"gzip always, gunzip on", modes(staticOff, staticOff, staticAlways), true, true, true},
		{"gzip always, gunzip on, gzip_vary off", modes(staticOff, staticOff, staticAlways), false, true, false},
		{"br always, gunzip on", modes(staticAlways, staticOff, staticOff), true, true, false},
	} {
		p := newPrecompressed(tc.modes, nil, gate, tc.vary, tc.gunzip)
		if _, got := p.variants(httptest.NewRequest("GET", "/", nil)); got != tc.want {
			t.Errorf("%s: vary %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPrecompressedNoAllocation(t *testing.T) {
	p := newPrecompressed(modes(staticOn, staticOn, staticOn), nil, DefaultOptions().Gzip, true, false)
	r := httptest.NewRequest("GET", "/x.js", nil)
	r.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	if n := testing.AllocsPerRun(100, func() { p.variants(r) }); n != 0 {
		t.Errorf("variants allocates %v times per request", n)
	}
}
