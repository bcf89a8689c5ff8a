package compress

import (
	"strings"
	"testing"
)

var allCodings = NewOffer(Brotli, Zstd, Gzip)

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   string
	}{
		{"", "identity"},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "br, zstd, gzip"},
		{"GZIP, BR", "br, gzip"},                             // case-insensitive; equal weight: server order
		{"br;q=0.5, gzip", "gzip, br"},                       // weight beats server order
		{"  br  ;  q=0.8  ,gzip\t;Q=0.9", "gzip, br"},        // OWS and Q
		{"x-gzip", "gzip"},                                   // alias
		{"*", "br, zstd, gzip"},                              // any
		{"*;q=0", "identity"},                                // nothing
		{"gzip;q=0, *", "br, zstd"},                          // q=0 refuses; * covers the rest
		{"br;q=0, *;q=0.5, gzip", "gzip, zstd"},              // named codings keep their own weight
		{"identity;q=0", "identity"},                         // refuses identity, accepts no coding
		{"identity;q=0, gzip", "gzip"},                       // identity refused, gzip fine
		{"identity;q=0.5, gzip;q=0.4", "identity"},           // client prefers no coding to gzip
		{"identity;q=0.5, gzip;q=0.5", "gzip"},               // a tie with identity goes to the coding
		{"*;q=0.5, gzip;q=0.3", "br, zstd"},                  // * weighs identity too
		{"gzip;q=0.000", "identity"},                         // zero in any spelling
		{"gzip;q=0.001", "gzip"},                             // the smallest weight still accepts
		{"gzip;q=1.0001, br", "br"},                          // too many digits: entry ignored
		{"gzip;q=2, br", "br"},                               // out of range
		{"gzip;q=1.5, br", "br"},                             // above 1
		{"gzip;q=, br", "br"},                                // empty q
		{"br;q=abc, gzip", "gzip"},                           // garbage q
		{"garbage,,,;;;, zstd", "zstd"},                      // garbage entries and empty members
		{"br;level=5", "br"},                                 // other parameters are tolerated
		{`br;note="a,b"`, "identity"},                        // the comma splits the quoted string: malformed
		{"br, br;q=0", "br"},                                 // the first mention wins
		{"deflate, compress", "identity"},                    // nothing offered
		{"gzip deflate", "identity"},                         // not a list: one malformed entry
		{"br\x00, gzip", "gzip"},                             // control byte: malformed
		{"gzip, deflate, br, zstd, *;q=0", "br, zstd, gzip"}, // explicit entries beat *
		{"zstd;q=0.9, br;q=0.9, gzip;q=1", "gzip, br, zstd"}, // ties among lower weights keep server order
		{"zstd;q=0.91, br;q=0.9, gzip;q=0.9", "zstd, br, gzip"},
	} {
		if got := Negotiate(tc.header, allCodings).String(); got != tc.want {
			t.Errorf("Negotiate(%q) = %s, want %s", tc.header, got, tc.want)
		}
	}
}

func TestNegotiateRespectsOffer(t *testing.T) {
	for _, tc := range []struct {
		offer  Offer
		header string
		want   string
	}{
		{NewOffer(Gzip), "gzip, deflate, br, zstd", "gzip"},
		{NewOffer(Brotli), "gzip", "identity"},
		{PreferredOffer([]Encoding{Gzip}, Brotli, Gzip), "br, gzip", "gzip, br"},
		{PreferredOffer([]Encoding{Zstd, Gzip}, Brotli, Zstd, Gzip), "*", "zstd, gzip, br"},
		{PreferredOffer(nil, Gzip, Brotli), "*", "br, gzip"},
		{NewOffer(), "*", "identity"},
		{NewOffer(Gzip, Gzip, Identity, Brotli), "*", "gzip, br"},
	} {
		if got := Negotiate(tc.header, tc.offer).String(); got != tc.want {
			t.Errorf("offer %v: Negotiate(%q) = %s, want %s", tc.offer.list[:tc.offer.n], tc.header, got, tc.want)
		}
	}
}

// The table is a cache of the parser's answers: for each common value its
// answer must equal the parser's for the same value upper-cased and with a
// trailing space, two spellings the table does not know.
func TestTableEqualsParser(t *testing.T) {
	offers := []Offer{
		allCodings,
		NewOffer(Gzip),
		NewOffer(Brotli),
		NewOffer(Zstd, Gzip),
		PreferredOffer([]Encoding{Gzip, Zstd}, Brotli, Zstd, Gzip),
		NewOffer(),
	}
	for _, offer := range offers {
		table := NewTable(offer)
		for _, v := range commonAcceptEncodings {
			spelled := strings.ToUpper(v) + " "
			if commonIndex(spelled) >= 0 {
				t.Fatalf("%q should miss the table", spelled)
			}
			got, want := table.Negotiate(v), Negotiate(spelled, offer)
			if got != want {
				t.Errorf("offer %v, %q: table %s, parser %s", offer.list[:offer.n], v, got, want)
			}
		}
	}
}

func TestCommonIndex(t *testing.T) {
	for i, v := range commonAcceptEncodings {
		if got := commonIndex(v); got != i {
			t.Errorf("commonIndex(%q) = %d, want %d", v, got, i)
		}
	}
}

func TestTableAnswers(t *testing.T) {
	table := NewTable(allCodings)
	for v, want := range map[string]string{
		"gzip, deflate, br, zstd": "br, zstd, gzip",
		"gzip, deflate, br":       "br, gzip",
		"gzip, deflate":           "gzip",
		"deflate, gzip, br, zstd": "br, zstd, gzip",
		"gzip":                    "gzip",
		"br":                      "br",
		"br;q=0.1, gzip":          "gzip, br", // not in the table: parsed
	} {
		if got := table.Negotiate(v).String(); got != want {
			t.Errorf("table.Negotiate(%q) = %s, want %s", v, got, want)
		}
	}
}

func TestNegotiateDoesNotAllocate(t *testing.T) {
	table := NewTable(allCodings)
	for _, v := range append(commonAcceptEncodings[:], "gzip;q=0.8, deflate;q=0.5, br", "*;q=0.1, identity") {
		if n := testing.AllocsPerRun(100, func() { table.Negotiate(v) }); n != 0 {
			t.Errorf("Negotiate(%q): %v allocations", v, n)
		}
	}
}

// FuzzAcceptEncoding checks that the parser never panics, returns only
// offered codings once each, ignores ASCII case, and agrees with the table.
func FuzzAcceptEncoding(f *testing.F) {
	for _, v := range commonAcceptEncodings {
		f.Add(v)
	}
	for _, v := range []string{"", "*", "br;q=0.5, gzip;q=1.0", "identity;q=0, *;q=0", "x-gzip;q=0.001", `br;a="b\"c"`, "gzip;q=1.000"} {
		f.Add(v)
	}
	table := NewTable(allCodings)
	f.Fuzz(func(t *testing.T, header string) {
		r := Negotiate(header, allCodings)
		seen := map[Encoding]bool{}
		for i := 0; i < r.Len(); i++ {
			e := r.At(i)
			if !allCodings.Contains(e) || seen[e] {
				t.Fatalf("Negotiate(%q) = %s: unoffered or repeated coding", header, r)
			}
			seen[e] = true
		}
		if up := Negotiate(upperASCII(header), allCodings); up != r {
			t.Fatalf("Negotiate(%q) = %s but upper-cased %s", header, r, up)
		}
		if tr := table.Negotiate(header); tr != r {
			t.Fatalf("table %s, parser %s for %q", tr, r, header)
		}
	})
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func BenchmarkNegotiateTable(b *testing.B) {
	table := NewTable(allCodings)
	for _, v := range commonAcceptEncodings {
		b.Run(v, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				table.Negotiate(v)
			}
		})
	}
}

func BenchmarkNegotiateParser(b *testing.B) {
	for _, v := range append(commonAcceptEncodings[:], "gzip;q=0.8, deflate;q=0.5, br") {
		b.Run(v, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Negotiate(v, allCodings)
			}
		})
	}
}
