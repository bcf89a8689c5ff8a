package compress_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// precompressedCopy is a file server's description of a precompressed
// copy, as static.Variant is.
type precompressedCopy struct{ suffix, coding string }

func newCopy(e compress.Encoding, _ bool) precompressedCopy {
	return precompressedCopy{suffix: e.Extension(), coding: e.String()}
}

// staticModes returns opts with the brotli_static, zstd_static and
// gzip_static modes set.
func staticModes(opts compress.Options, br, zstd, gz compress.StaticMode) compress.Options {
	opts.Brotli.Static, opts.Zstd.Static, opts.Gzip.Static = br, zstd, gz
	return opts
}

func suffixes(t *testing.T, p *compress.Precompressed[precompressedCopy], accept, ua string) string {
	t.Helper()
	r := httptest.NewRequest("GET", "/x.js", nil)
	if accept != "-" {
		r.Header.Set("Accept-Encoding", accept)
	}
	if ua != "" {
		r.Header.Set("User-Agent", ua)
	}
	try, _ := p.Choose(r)
	var out []string
	for _, v := range try {
		if "."+map[string]string{"br": "br", "zstd": "zst", "gzip": "gz"}[v.coding] != v.suffix {
			t.Fatalf("copy %+v: suffix does not match the coding", v)
		}
		out = append(out, v.suffix)
	}
	return strings.Join(out, " ")
}

const (
	off    = compress.StaticOff
	on     = compress.StaticOn
	always = compress.StaticAlways
)

func TestPrecompressedOrder(t *testing.T) {
	base := compress.DefaultOptions()
	base.Vary = true
	base.Gzip.Disable.Patterns = []compress.UserAgentPattern{pcre.MustCompile("^curl", true)}
	for _, tc := range []struct {
		name   string
		opts   compress.Options
		prefer []compress.Encoding
		accept string
		ua     string
		want   string
	}{
		{"all on, browser", staticModes(base, on, on, on), nil, "gzip, deflate, br, zstd", "", ".br .zst .gz"},
		{"all on, gzip only", staticModes(base, on, on, on), nil, "gzip", "", ".gz"},
		{"all on, no header", staticModes(base, on, on, on), nil, "-", "", ""},
		{"client weights", staticModes(base, on, on, on), nil, "br;q=0.5, gzip", "", ".gz .br"},
		{"refused by q=0", staticModes(base, on, off, on), nil, "br;q=0, *", "", ".gz"},
		{"compress_prefer", staticModes(base, on, on, on), []compress.Encoding{compress.Gzip}, "gzip, deflate, br, zstd", "", ".gz .br .zst"},
		{"always without header", staticModes(base, off, off, always), nil, "-", "", ".gz"},
		{"always after the client's choice", staticModes(base, on, off, always), nil, "br", "", ".br .gz"},
		{"always when the client refuses it", staticModes(base, off, off, always), nil, "gzip;q=0", "", ".gz"},
		{"gzip checks apply to on", staticModes(base, on, off, on), nil, "gzip, br", "curl/8", ".br"},
		{"gzip checks pass", staticModes(base, on, off, on), nil, "gzip, br", "Mozilla/5.0", ".br .gz"},
		{"gzip checks ignore always", staticModes(base, off, off, always), nil, "gzip", "curl/8", ".gz"},
	} {
		tc.opts.Prefer = tc.prefer
		p := compress.NewPrecompressed(tc.opts, newCopy)
		if got := suffixes(t, p, tc.accept, tc.ua); got != tc.want {
			t.Errorf("%s: tries %q, want %q", tc.name, got, tc.want)
		}
	}
	if p := compress.NewPrecompressed(staticModes(base, off, off, off), newCopy); p != nil {
		t.Error("every *_static off: want no chooser")
	}
}

func TestPrecompressedVary(t *testing.T) {
	for _, tc := range []struct {
		name     string
		br, gz   compress.StaticMode
		vary     bool
		gunzip   bool
		wantVary bool
	}{
		{"on, gzip_vary on", off, on, true, false, true},
		{"on, gzip_vary off", off, on, false, false, false},
		{"one always", off, always, true, false, false},
		{"two always: the client picks", always, always, true, false, true},
		{"always and on", on, always, true, false, true},
		// gunzip decodes the .gz for clients without gzip: the filter
		// varies its 200, and the copy says so for its 304.
		{"gzip always, gunzip on", off, always, true, true, true},
		{"gzip always, gunzip on, gzip_vary off", off, always, false, true, false},
		{"br always, gunzip on", always, off, true, true, false},
	} {
		opts := staticModes(compress.DefaultOptions(), tc.br, off, tc.gz)
		opts.Vary, opts.Gunzip = tc.vary, tc.gunzip
		p := compress.NewPrecompressed(opts, newCopy)
		if _, got := p.Choose(httptest.NewRequest("GET", "/", nil)); got != tc.wantVary {
			t.Errorf("%s: vary %v, want %v", tc.name, got, tc.wantVary)
		}
	}
}

func TestPrecompressedNoAllocation(t *testing.T) {
	opts := staticModes(compress.DefaultOptions(), on, on, on)
	opts.Vary = true
	p := compress.NewPrecompressed(opts, newCopy)
	r := httptest.NewRequest("GET", "/x.js", nil)
	r.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
	if n := testing.AllocsPerRun(100, func() { p.Choose(r) }); n != 0 {
		t.Errorf("Choose allocates %v times per request", n)
	}
}
