package compress

import (
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// cacheScopes numbers the handlers New builds. A body cache is shared by
// every handler of a configuration, and two of them (servers on two
// ports, each with its own root or upstream) can answer the same Host and
// URI with different objects whose validators happen to agree (an
// origin's constant ETag, files of one size and mtime): the number keeps
// one's compressed bodies from answering the other.
var cacheScopes atomic.Uint64

// config is Options compiled once, when New builds a handler, so that no
// request parses a list or looks up a default.
type config struct {
	table     *Table // the enabled codings, for negotiation
	gzipTable *Table // gzip alone: does the client take gzip, for GunzipTest
	coding    [numCodings + 1]codingConfig
	anyCoding bool
	skip      typeSet
	vary      bool
	gzipGate  GzipOptions

	brotliBits  int
	brotliReuse bool
	retention   Retention
	pool        *EncoderPool
	cache       *BodyCache
	cacheScope  uint64 // this handler's share of cache's keys
	dicts       dictTable
	zstdLevel   zstd.EncoderLevel
	logger      *slog.Logger
}

// codingConfig is what one coding's directives say, indexed by Encoding.
type codingConfig struct {
	types     typeSet
	minLength int64
	level     int
	bufLimit  int             // all buffers together: output held before headers go out
	bufSize   int             // one buffer: the unit in which output is sent afterwards
	par       *parallelConfig // nil: serial
}

func newConfig(opts Options) (*config, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("compress: invalid options: %w", err)
	}
	c := &config{
		skip:        newTypeSet(opts.SkipTypes, false),
		vary:        opts.Vary,
		gzipGate:    opts.Gzip,
		brotliBits:  windowBits(opts.Brotli.Window),
		brotliReuse: opts.Brotli.ReuseMemory,
		retention:   opts.Brotli.Retention,
		pool:        opts.Brotli.Encoders,
		cache:       opts.Cache,
		cacheScope:  cacheScopes.Add(1),
		dicts:       newDictTable(opts.Dictionaries),
		zstdLevel:   zstd.EncoderLevelFromZstd(opts.Zstd.Level),
		logger:      opts.Logger,
	}
	if c.retention.Policy != RetainBounded {
		// Only bounded has a size; dropping it elsewhere keeps pool keys
		// of equal policies equal.
		c.retention.Bound = 0
	}
	if c.pool == nil {
		c.pool = defaultPool
	}
	var enabled []Encoding
	if opts.Brotli.Enable {
		enabled = append(enabled, Brotli)
	}
	if opts.Zstd.Enable {
		enabled = append(enabled, Zstd)
	}
	if opts.Gzip.Enable {
		enabled = append(enabled, Gzip)
	}
	c.coding[Brotli] = newCodingConfig(opts.Brotli.Types, opts.Brotli.MinLength, opts.Brotli.Level, opts.Brotli.Buffers)
	c.coding[Zstd] = newCodingConfig(opts.Zstd.Types, opts.Zstd.MinLength, opts.Zstd.Level, opts.Zstd.Buffers)
	c.coding[Gzip] = newCodingConfig(opts.Gzip.Types, opts.Gzip.MinLength, opts.Gzip.Level, opts.Gzip.Buffers)
	c.coding[Brotli].par = newParallelConfig(Brotli, opts.Brotli.Parallel)
	c.coding[Zstd].par = newParallelConfig(Zstd, opts.Zstd.Parallel)
	c.coding[Gzip].par = newParallelConfig(Gzip, opts.Gzip.Parallel)

	offer := PreferredOffer(opts.Prefer, enabled...)
	c.anyCoding = offer.Len() > 0
	c.table = NewTable(offer)
	c.gzipTable = NewTable(NewOffer(Gzip))
	return c, nil
}

func newCodingConfig(types []string, minLength int64, level int, buf Buffers) codingConfig {
	return codingConfig{
		types:     newTypeSet(types, true),
		minLength: minLength,
		level:     level,
		bufLimit:  buf.Number * buf.Size,
		bufSize:   buf.Size,
	}
}

// PreferredOffer returns an Offer of the enabled codings in compress_prefer
// order: those named in prefer first, in its order, then the rest in the
// default order br, zstd, gzip. The server uses it, for example, to offer
// the precompressed variants that *_static enables.
func PreferredOffer(prefer []Encoding, enabled ...Encoding) Offer {
	on := func(e Encoding) bool {
		for _, x := range enabled {
			if x == e {
				return true
			}
		}
		return false
	}
	var o Offer
	for _, list := range [][]Encoding{prefer, DefaultPrefer()} {
		for _, e := range list {
			if on(e) && e != Identity && e <= Gzip && !o.Contains(e) {
				o.list[o.n] = e
				o.n++
			}
		}
	}
	return o
}

// varies reports whether a 200 response gets Vary: Accept-Encoding here.
// compressible says its status and headers allow compression: its coding
// then depends on Accept-Encoding, and that holds as well when it is
// skipped for its size or type, since the same resource may be compressed
// at another size.
func (c *config) varies(compressible bool) bool {
	return c.vary && compressible && c.anyCoding
}

// addVary adds what a response varies on: Accept-Encoding, and with
// dictionaries Available-Dictionary, which the coding depends on too.
func (c *config) addVary(h http.Header) {
	header.VaryAcceptEncoding(h)
	if c.dicts != nil {
		header.AddVary(h, "Available-Dictionary")
	}
}

// VariesOnDictionary reports whether the handler New makes with o also
// names Available-Dictionary wherever it sends Vary: Accept-Encoding
// (VariesOnEncoding and Dictionaries set), for a file server's 304s as
// VaryTest is.
func (o Options) VariesOnDictionary() bool {
	return o.VariesOnEncoding() && len(o.Dictionaries) > 0
}

// VariesOnEncoding reports whether the handler New makes with o sends Vary:
// Accept-Encoding with some 200 responses: those an enabled coding takes
// by type and length (gzip_vary on and a coding on; see varies).
func (o Options) VariesOnEncoding() bool {
	return o.Vary && (o.Brotli.Enable || o.Zstd.Enable || o.Gzip.Enable)
}

// VaryTest returns whether the handler New makes with o sends Vary:
// Accept-Encoding with a 200 response of this Content-Type whose body is
// length bytes long (-1: unknown); nil when it never does
// (VariesOnEncoding). A file
// server behind the handler that answers a conditional request with 304
// must add that Vary itself, since the handler has no Content-Type to
// judge a 304 by (static.Options.VaryEncoding).
func (o Options) VaryTest() func(contentType string, length int64) bool {
	if !o.VariesOnEncoding() {
		return nil
	}
	// The handler's own test, compiled as New compiles it, so that a 304
	// and its 200 are judged by one piece of code. Options New refuses
	// make no handler, and so no Vary.
	c, err := newConfig(o)
	if err != nil {
		return nil
	}
	return func(contentType string, length int64) bool { return c.anyTakes(lowerMediaType(contentType), length) }
}

// active reports whether a handler has anything to do.
func (c *config) active() bool { return c.anyCoding }
