package compress

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
)

// Options configures New. Each field carries one directive, named in its
// comment; the server builds an Options per location from the merged
// directives. Fields are used as given, so a Go program should start from
// DefaultOptions, which holds the directives' defaults, and change what it
// needs.
type Options struct {
	Brotli BrotliOptions
	Zstd   ZstdOptions
	Gzip   GzipOptions

	// Gunzip says that gzip bodies are decoded for clients that cannot
	// take gzip (gunzip on|off) by a gunzip filter inside this handler
	// (package gunzip, which decodes by GunzipTest). New's handler decodes
	// nothing itself, and may compress the decoded body with any coding
	// on; NewPrecompressed and GunzipTest take it into account.
	Gunzip bool

	// Vary adds "Vary: Accept-Encoding" to responses whose coding depends on
	// the request's Accept-Encoding (gzip_vary on|off).
	Vary bool

	// Prefer orders the codings a client accepts with equal weight, best
	// first (compress_prefer). Codings left out follow in the default order
	// br, zstd, gzip.
	Prefer []Encoding

	// SkipTypes lists media types that a "*" in a coding's types list does
	// not match (compress_skip_types; empty for off); a type the list names
	// itself is compressed anyway. They compare without parameters and
	// case-insensitively.
	SkipTypes []string

	// Cache keeps compressed bodies of fixed objects and serves later
	// clients a copy (compress_cache on, with compress_cache_size: one
	// store per configuration). Nil compresses every response anew.
	Cache *BodyCache

	// Dictionaries are raw dictionaries that responses may be compressed
	// against (compress_dictionary; RFC 9842): a client that names one by
	// its hash in Available-Dictionary and accepts dcb or dcz gets its
	// brotli or zstd response compressed against it, as dcb or dcz. The
	// brotli and zstd directives (on, types, length, level) still decide
	// whether the response is compressed at all. Nil: none.
	Dictionaries []*Dictionary

	// Logger receives debug messages: for each brotli response, whether
	// its encoder was reused or allocated (error_log ... debug shows them),
	// and an error for a response aborted because its encoder failed.
	// Nil logs nothing.
	Logger *slog.Logger
}

// BrotliOptions holds the brotli_* directives.
type BrotliOptions struct {
	Enable    bool     // brotli on|off
	Types     []string // brotli_types; text/html is always included, "*" matches any type
	Level     int      // brotli_comp_level, 0..11
	Window    int      // brotli_window in bytes, a power of two from 1k to 16m
	MinLength int64    // brotli_min_length, compared with Content-Length only
	Buffers   Buffers  // brotli_buffers

	ReuseMemory bool      // brotli_reuse_memory on|off
	Retention   Retention // brotli_retention_policy

	// Static serves .br copies of files (brotli_static). It is read by
	// NewPrecompressed, for a file server; the handler of New ignores it.
	Static StaticMode

	// Encoders keeps idle encoders between responses (brotli_idle_encoders,
	// an http-level directive: one pool serves every location). Nil uses a
	// process-wide pool of DefaultIdleEncoders.
	Encoders *EncoderPool

	// Parallel compresses long bodies in segments on a pool
	// (brotli_thread_pool, brotli_parallel_*): catable segments of
	// mosaic's own encoder at every level, each able to copy from the
	// input before it (256 KiB to a segment's length, at most 1 MiB and
	// the window).
	Parallel Parallel
}

// ZstdOptions holds the zstd_* directives.
type ZstdOptions struct {
	Enable    bool     // zstd on|off
	Types     []string // zstd_types
	Level     int      // zstd_comp_level, 1..22
	MinLength int64    // zstd_min_length
	Buffers   Buffers  // zstd_buffers

	// Static serves .zst copies of files (zstd_static); see
	// BrotliOptions.Static.
	Static StaticMode

	// Parallel compresses long bodies in segments on a pool
	// (zstd_thread_pool, zstd_parallel_*): one frame per segment.
	Parallel Parallel
}

// GzipOptions holds the gzip_* directives other than gzip_vary.
type GzipOptions struct {
	Enable    bool     // gzip on|off
	Types     []string // gzip_types
	Level     int      // gzip_comp_level, 1..9
	MinLength int64    // gzip_min_length
	Buffers   Buffers  // gzip_buffers

	// Proxied decides compression for requests that came through a proxy,
	// which NGINX recognises by a Via header (gzip_proxied).
	Proxied Proxied
	// HTTPVersion is the lowest request version that gets gzip
	// (gzip_http_version 1.0|1.1). The zero value, like 1.0, lets every
	// version through.
	HTTPVersion ProtoVersion
	// Disable refuses gzip to some User-Agents (gzip_disable).
	Disable GzipDisable

	// Static serves .gz copies of files (gzip_static); see
	// BrotliOptions.Static. With StaticOn, the checks above apply to the
	// copies as well, as NGINX applies them.
	Static StaticMode

	// Parallel compresses long bodies in segments on a pool
	// (gzip_thread_pool, gzip_parallel_*): one gzip member whose deflate
	// segments each start with the previous 32 KiB as their dictionary.
	Parallel Parallel
}

// StaticMode is a brotli_static, zstd_static or gzip_static value: whether
// a file server sends a precompressed copy of a file in its place.
type StaticMode uint8

// The *_static values.
const (
	StaticOff    StaticMode = iota // off
	StaticOn                       // on: to clients that accept the coding
	StaticAlways                   // always: whatever the client sent
)

// Buffers is the number and size of the buffers that hold compressed output
// (brotli_buffers, gzip_buffers, zstd_buffers). A response whose compressed
// form fits in all of them together goes out with a Content-Length; a longer
// one is sent as it is produced, one buffer's size at a time.
type Buffers struct {
	Number int
	Size   int
}

// DefaultBuffers returns NGINX's default: one memory page per buffer, 128k in
// total (32 4k, or 16 8k on systems with 8k pages).
func DefaultBuffers() Buffers {
	page := os.Getpagesize()
	return Buffers{Number: (128 << 10) / page, Size: page}
}

// RetentionPolicy says how much working memory an idle brotli encoder keeps.
type RetentionPolicy uint8

// The brotli_retention_policy values.
const (
	RetainAggressive    RetentionPolicy = iota // aggressive
	RetainCurrentConfig                        // current_config
	RetainReleaseAll                           // release_all
	RetainBounded                              // bounded SIZE
)

func (p RetentionPolicy) String() string {
	switch p {
	case RetainAggressive:
		return "aggressive"
	case RetainCurrentConfig:
		return "current_config"
	case RetainReleaseAll:
		return "release_all"
	case RetainBounded:
		return "bounded"
	}
	return fmt.Sprintf("RetentionPolicy(%d)", uint8(p))
}

// Retention is a brotli_retention_policy value; Bound is the SIZE of
// "bounded SIZE" in bytes and is ignored by the other policies.
type Retention struct {
	Policy RetentionPolicy
	Bound  int64
}

// Proxied is a set of gzip_proxied values. The zero value is "off": no
// compression for proxied requests.
type Proxied uint16

// The gzip_proxied values other than off.
const (
	ProxiedExpired        Proxied = 1 << iota // expired
	ProxiedNoCache                            // no-cache
	ProxiedNoStore                            // no-store
	ProxiedPrivate                            // private
	ProxiedNoLastModified                     // no_last_modified
	ProxiedNoETag                             // no_etag
	ProxiedAuth                               // auth
	ProxiedAny                                // any
)

// ProtoVersion is an HTTP version such as 1.1.
type ProtoVersion struct {
	Major, Minor int
}

// GzipDisable is the gzip_disable directive: User-Agents matching any of the
// patterns get no gzip, and MSIE6 stands for the special value "msie6" (MSIE
// 4 to 6 without SV1). NGINX matches these regular expressions with PCRE,
// case-insensitively, and so does the server.
type GzipDisable struct {
	MSIE6    bool
	Patterns []UserAgentPattern
}

// UserAgentPattern is one regular expression of gzip_disable. A match that
// could not be completed (err not nil: a backtracking engine's limit)
// counts as a match, as in NGINX: the client gets no gzip.
type UserAgentPattern interface {
	MatchString(userAgent string) (bool, error)
}

// Defaults of the directives.
const (
	DefaultBrotliLevel  = 6
	DefaultBrotliWindow = 512 << 10
	DefaultZstdLevel    = 3
	DefaultGzipLevel    = 1
	DefaultMinLength    = 20
	DefaultIdleEncoders = 4

	DefaultSegmentSize = 1 << 20 // *_parallel_segment_size
	MinSegmentSize     = 64 << 10
	MaxSegmentSize     = 16 << 20
	DefaultTasks       = 4 // *_parallel_tasks
	MaxTasks           = 1024
	DefaultCompressors = 4 // *_parallel_compressors
	MaxCompressors     = 1024
)

// DefaultPrefer is compress_prefer's default: br, then zstd, then gzip.
func DefaultPrefer() []Encoding { return []Encoding{Brotli, Zstd, Gzip} }

// DefaultOptions returns every directive at its default: all codings off,
// each ready to be switched on with its default level, text/html only, and
// the default skip list.
func DefaultOptions() Options {
	buf := DefaultBuffers()
	return Options{
		Brotli: BrotliOptions{
			Parallel:    DefaultParallel(),
			Level:       DefaultBrotliLevel,
			Window:      DefaultBrotliWindow,
			MinLength:   DefaultMinLength,
			Buffers:     buf,
			ReuseMemory: true,
			Retention:   Retention{Policy: RetainAggressive},
		},
		Zstd: ZstdOptions{
			Parallel:  DefaultParallel(),
			Level:     DefaultZstdLevel,
			MinLength: DefaultMinLength,
			Buffers:   buf,
		},
		Gzip: GzipOptions{
			Parallel:    DefaultParallel(),
			Level:       DefaultGzipLevel,
			MinLength:   DefaultMinLength,
			Buffers:     buf,
			HTTPVersion: ProtoVersion{Major: 1, Minor: 1},
		},
		Prefer:    DefaultPrefer(),
		SkipTypes: DefaultSkipTypes(),
	}
}

// Validate reports the values out of their directive's range. The settings
// of a coding that is off are not checked, so that Options{Gunzip: true}
// is complete as it stands.
func (o Options) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	buffers := func(name string, buf Buffers) {
		check(buf.Number >= 1 && buf.Size >= 1, "%s %d %d: number and size must be positive", name, buf.Number, buf.Size)
	}
	types := func(name string, list []string) {
		for _, t := range list {
			check(t != "", "%s: empty media type", name)
		}
	}
	if b := &o.Brotli; b.Enable {
		check(b.Level >= 0 && b.Level <= 11, "brotli_comp_level %d: must be 0..11", b.Level)
		check(windowBits(b.Window) > 0, "brotli_window %d: must be a power of two from 1k to 16m", b.Window)
		check(b.MinLength >= 0, "brotli_min_length %d: must not be negative", b.MinLength)
		check(b.Retention.Policy <= RetainBounded, "brotli_retention_policy: unknown policy %d", b.Retention.Policy)
		check(b.Retention.Bound >= 0, "brotli_retention_policy bounded %d: must not be negative", b.Retention.Bound)
		buffers("brotli_buffers", b.Buffers)
		types("brotli_types", b.Types)
		b.Parallel.validate("brotli", check)
	}
	if z := &o.Zstd; z.Enable {
		check(z.Level >= 1 && z.Level <= 22, "zstd_comp_level %d: must be 1..22", z.Level)
		check(z.MinLength >= 0, "zstd_min_length %d: must not be negative", z.MinLength)
		buffers("zstd_buffers", z.Buffers)
		types("zstd_types", z.Types)
		z.Parallel.validate("zstd", check)
	}
	if g := &o.Gzip; g.Enable {
		check(g.Level >= 1 && g.Level <= 9, "gzip_comp_level %d: must be 1..9", g.Level)
		check(g.MinLength >= 0, "gzip_min_length %d: must not be negative", g.MinLength)
		buffers("gzip_buffers", g.Buffers)
		types("gzip_types", g.Types)
		g.Parallel.validate("gzip", check)
	}
	if v := o.Gzip.HTTPVersion; v != (ProtoVersion{}) {
		check(v.Major >= 1 && v.Minor >= 0, "gzip_http_version %d.%d: must be 1.0 or 1.1", v.Major, v.Minor)
	}
	// The *_static modes concern a file server, on whether or not the
	// coding is: gzip_static on serves .gz files with gzip off.
	for _, s := range []struct {
		name string
		mode StaticMode
	}{{"brotli_static", o.Brotli.Static}, {"zstd_static", o.Zstd.Static}, {"gzip_static", o.Gzip.Static}} {
		check(s.mode <= StaticAlways, "%s: unknown mode %d", s.name, s.mode)
	}
	seen := map[Encoding]bool{}
	for _, e := range o.Prefer {
		check(e >= Brotli && e <= Gzip, "compress_prefer: %v is not br, zstd or gzip", e)
		check(!seen[e], "compress_prefer: %v named twice", e)
		seen[e] = true
	}
	types("compress_skip_types", o.SkipTypes)
	return errors.Join(errs...)
}

// windowBits returns log2 of a valid brotli_window size, or 0.
func windowBits(size int) int {
	for bits := 10; bits <= 24; bits++ {
		if size == 1<<bits {
			return bits
		}
	}
	return 0
}
