package compress

// commonAcceptEncodings lists the values a Table answers without parsing.
// It is not exported: a Table's answers and commonIndex are built from it,
// and a caller that changed it would make them disagree.
var commonAcceptEncodings = [...]string{
	"gzip, deflate, br, zstd", // Chrome, Edge, Firefox over https
	"gzip, deflate, br",       // Safari over https
	"gzip, deflate",           // browsers over plain http, Python requests
	"deflate, gzip, br, zstd", // curl --compressed
	"gzip",                    // Go net/http, OkHttp
	// What a cache in front sends once a brotli-aware rule has normalized
	// the header to the one best coding (custom VCL on Fastly or Varnish;
	// their stock normalization gives "gzip", listed above), and what
	// this repository's benchmarks send: parsed, 350 instructions a
	// response (compress README, "Around the encoder, a fourth look").
	"br",
}

// Table negotiates for one Offer. The common Accept-Encoding values (those
// of current browsers, curl --compressed, Go's client and a normalizing
// cache in front) resolve through answers computed once by the parser,
// with no parsing and no allocation; any other value, including a common
// one spelled with other case or spacing, goes through Negotiate. The
// table is therefore a cache of the parser's answers, never a second set
// of rules.
type Table struct {
	offer  Offer
	common [len(commonAcceptEncodings)]Ranked
}

// NewTable computes the answers for offer. A Table is immutable and safe
// for concurrent use.
func NewTable(offer Offer) *Table {
	t := &Table{offer: offer}
	for i, v := range commonAcceptEncodings {
		t.common[i] = Negotiate(v, offer)
	}
	return t
}

// Offer returns the Offer the table was built for.
func (t *Table) Offer() Offer { return t.offer }

// Negotiate ranks the offered codings the client accepts, as the package
// function Negotiate does.
func (t *Table) Negotiate(header string) Ranked {
	if i := commonIndex(header); i >= 0 {
		return t.common[i]
	}
	return Negotiate(header, t.offer)
}

// commonIndex finds header among commonAcceptEncodings, which it must list
// in the same order (a test holds them together). A switch over constant
// strings compiles to a length dispatch and at most a couple of
// comparisons, cheaper than hashing the value for a map.
func commonIndex(header string) int {
	switch header {
	case "gzip, deflate, br, zstd":
		return 0
	case "gzip, deflate, br":
		return 1
	case "gzip, deflate":
		return 2
	case "deflate, gzip, br, zstd":
		return 3
	case "gzip":
		return 4
	case "br":
		return 5
	}
	return -1
}
