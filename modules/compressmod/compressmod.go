// Package compressmod makes package compress a module of the mosaic
// server: it declares the brotli*, zstd*, gzip*, gunzip and compress_*
// directives, merges them http -> server -> location, and wraps each
// location's chain in a compress handler built once when the configuration
// loads. Variants and VaryEncoding tell the static module's wiring what
// the directives mean for a location's files.
package compressmod

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

// codingConf holds the directives that brotli, zstd and gzip share
// (brotli_types, zstd_types, gzip_types, ...) at one level.
type codingConf struct {
	enable    server.Setting[bool]
	types     server.Setting[[]string]
	level     server.Setting[int]
	minLength server.Setting[int64]
	buffers   server.Setting[compress.Buffers]
	static    server.Setting[compress.StaticMode]

	threadPool server.Setting[poolRef] // PREFIX_thread_pool
	segment    server.Setting[int]     // PREFIX_parallel_segment_size
	tasks      server.Setting[int]     // PREFIX_parallel_tasks
}

// poolRef is a *_thread_pool value: a pool's name ("" for off) and where
// it was named, since the pool may be declared after it and is looked up
// only once the configuration is read, as NGINX does.
type poolRef struct {
	name string
	at   *conf.Directive
}

// namedPool is a thread pool that says its name in the debug log.
type namedPool struct{ *server.ThreadPool }

func (p namedPool) String() string { return p.Name }

func (c *codingConf) merge(p *codingConf) {
	c.enable.Merge(p.enable)
	c.types.Merge(p.types)
	c.level.Merge(p.level)
	c.minLength.Merge(p.minLength)
	c.buffers.Merge(p.buffers)
	c.static.Merge(p.static)
	c.threadPool.Merge(p.threadPool)
	c.segment.Merge(p.segment)
	c.tasks.Merge(p.tasks)
}

// locConf holds the module's directives at one level (http, server or
// location). Lists (the types lists, gzip_disable, compress_prefer,
// compress_skip_types) are inherited only by levels that set none, as NGINX
// inherits its array directives.
type locConf struct {
	coding [compress.Gzip + 1]codingConf // indexed by compress.Encoding; Identity unused

	brotliWindow    server.Setting[int]
	brotliReuse     server.Setting[bool]
	brotliRetention server.Setting[compress.Retention]

	gzipVary        server.Setting[bool]
	gzipProxied     server.Setting[proxiedSetting]
	gzipHTTPVersion server.Setting[compress.ProtoVersion]
	gzipDisable     server.Setting[compress.GzipDisable]
	gunzip          server.Setting[bool]

	prefer    server.Setting[[]compress.Encoding]
	skipTypes server.Setting[[]string]
	cache     server.Setting[bool]
	dicts     server.Setting[[]*compress.Dictionary] // compress_dictionary
}

// proxiedSetting is gzip_proxied as written: NGINX ORs the values of all
// its lines at a level, and "off" among them wins over the others.
type proxiedSetting struct {
	mask compress.Proxied
	off  bool
}

// mainConf is per configuration: brotli_idle_encoders and the one encoder
// pool that every location of the configuration shares.
type mainConf struct {
	idleEncoders server.Setting[int]
	pool         *compress.EncoderPool
	cacheSize    server.Setting[int64]
	cache        *compress.BodyCache // made when a location first turns compress_cache on

	// *_parallel_compressors, and the compressor pool of each coding that
	// every location of the configuration shares; indexed by
	// compress.Encoding.
	compressors     [compress.Gzip + 1]server.Setting[int]
	compressorPools [compress.Gzip + 1]*compress.CompressorPool

	// dicts holds the dictionaries compress_dictionary read, by path, so
	// that a file named at several levels is read and kept once.
	dicts map[string]*compress.Dictionary
}

var module = &server.Module{
	Name:    "compress",
	NewLoc:  func() any { return &locConf{} },
	NewMain: func() any { return &mainConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		for e := range child.coding {
			child.coding[e].merge(&parent.coding[e])
		}
		child.brotliWindow.Merge(parent.brotliWindow)
		child.brotliReuse.Merge(parent.brotliReuse)
		child.brotliRetention.Merge(parent.brotliRetention)
		child.gzipVary.Merge(parent.gzipVary)
		child.gzipProxied.Merge(parent.gzipProxied)
		child.gzipHTTPVersion.Merge(parent.gzipHTTPVersion)
		child.gzipDisable.Merge(parent.gzipDisable)
		child.gunzip.Merge(parent.gunzip)
		child.prefer.Merge(parent.prefer)
		child.skipTypes.Merge(parent.skipTypes)
		child.cache.Merge(parent.cache)
		child.dicts.Merge(parent.dicts)
		return nil
	},
}

func init() {
	module.Directives = append(module.Directives,
		codingDirectives(compress.Brotli, "brotli", 0, maxBrotliLevel)...)
	module.Directives = append(module.Directives,
		codingDirectives(compress.Zstd, "zstd", 1, 22)...)
	module.Directives = append(module.Directives,
		codingDirectives(compress.Gzip, "gzip", 1, 9)...)
	module.Directives = append(module.Directives, []server.Directive{
		{Name: "brotli_window", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setBrotliWindow},
		{Name: "brotli_reuse_memory", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).brotliReuse)
		}},
		{Name: "brotli_retention_policy", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setRetention},
		{Name: "brotli_idle_encoders", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: setIdleEncoders},
		{Name: "gzip_vary", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).gzipVary)
		}},
		{Name: "gzip_proxied", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setProxied},
		{Name: "gzip_http_version", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setHTTPVersion},
		{Name: "gzip_disable", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setGzipDisable},
		{Name: "gunzip", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).gunzip)
		}},
		{Name: "compress_prefer", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 3 /* br, zstd, gzip */, Set: setPrefer},
		{Name: "compress_skip_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setSkipTypes},
		{Name: "compress_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).cache)
		}},
		{Name: "compress_cache_size", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: setCacheSize},
		{Name: "compress_dictionary", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setDictionary},
	}...)
	module.InitMain = func(cfg *server.Config) error {
		// One pool per configuration, shared by all its locations, so
		// that an encoder freed by one location serves the next response
		// of any location with the same settings.
		mc := server.MainConf[*mainConf](cfg, module)
		mc.pool = compress.NewEncoderPool(mc.idleEncoders.Or(compress.DefaultIdleEncoders))
		for e := compress.Brotli; e <= compress.Gzip; e++ {
			mc.compressorPools[e] = compress.NewCompressorPool(mc.compressors[e].Or(compress.DefaultCompressors))
		}
		return nil
	}
	module.Filter = &server.Filter{
		// Subrequests (ESI fragments) are assembled into a page that is
		// compressed once, as a whole.
		InSubrequest: false,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			opts := locationOptions(l)
			if err := locationCache(l, &opts); err != nil {
				return nil, err
			}
			if err := locationParallel(l, &opts); err != nil {
				return nil, err
			}
			return compress.New(next, opts)
		},
	}
	server.Register(module)
	for e := compress.Brotli; e <= compress.Gzip; e++ {
		vars.RegisterState(e.RatioVariable())
	}
	vars.RegisterState(compress.CacheStatusVariable)
}

// codingDirectives declares PREFIX, PREFIX_types, PREFIX_comp_level,
// PREFIX_min_length, PREFIX_buffers, PREFIX_static and the thread pool
// directives (PREFIX_thread_pool, PREFIX_parallel_*) for one coding.
func codingDirectives(e compress.Encoding, prefix string, minLevel, maxLevel int) []server.Directive {
	conf := func(c *server.Cmd) *codingConf { return &c.Loc().(*locConf).coding[e] }
	return append([]server.Directive{
		{Name: prefix, Context: server.CtxHTTPAll | server.CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &conf(c).enable)
		}},
		{Name: prefix + "_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			return appendTypes(c, &conf(c).types)
		}},
		{Name: prefix + "_comp_level", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], minLevel, maxLevel)
			if err != nil {
				return err
			}
			return server.Put(c, &conf(c).level, n)
		}},
		{Name: prefix + "_min_length", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			return server.Put(c, &conf(c).minLength, n)
		}},
		{Name: prefix + "_buffers", Context: server.CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: func(c *server.Cmd) error {
			return setBuffers(c, &conf(c).buffers)
		}},
		{Name: prefix + "_static", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			var m compress.StaticMode
			switch strings.ToLower(c.Args[0]) {
			case "off":
				m = compress.StaticOff
			case "on":
				m = compress.StaticOn
			case "always":
				m = compress.StaticAlways
			default:
				return c.Invalid(c.Args[0], `it must be "on", "off" or "always"`)
			}
			return server.Put(c, &conf(c).static, m)
		}},
	}, parallelDirectives(e, prefix, conf)...)
}

// parallelDirectives declares PREFIX_thread_pool, PREFIX_parallel_segment_size,
// PREFIX_parallel_tasks and PREFIX_parallel_compressors.
func parallelDirectives(e compress.Encoding, prefix string, coding func(*server.Cmd) *codingConf) []server.Directive {
	return []server.Directive{
		{Name: prefix + "_thread_pool", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			ref := poolRef{at: c.Directive}
			if c.Args[0] != "off" {
				ref.name = c.Args[0]
			}
			return server.Put(c, &coding(c).threadPool, ref)
		}},
		{Name: prefix + "_parallel_segment_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n < compress.MinSegmentSize || n > compress.MaxSegmentSize {
				return c.Invalid(c.Args[0], "it must be 64k..16m")
			}
			return server.Put(c, &coding(c).segment, int(n))
		}},
		{Name: prefix + "_parallel_tasks", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 1, compress.MaxTasks)
			if err != nil {
				return err
			}
			return server.Put(c, &coding(c).tasks, n)
		}},
		{Name: prefix + "_parallel_compressors", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 0, compress.MaxCompressors)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Main().(*mainConf).compressors[e], n)
		}},
	}
}

// maxBrotliLevel is brotli_comp_level's largest value.
const maxBrotliLevel = 11

// locationParallel gives each coding of a location the thread pool its
// *_thread_pool names, or an error naming the directive when no
// thread_pool declares it ("default" always exists).
func locationParallel(l *server.Location, opts *compress.Options) error {
	srv := l.Server()
	if srv == nil {
		return nil
	}
	lc := server.LocConf[*locConf](l, module)
	mc := server.MainConf[*mainConf](srv.Config(), module)
	for _, c := range []struct {
		e compress.Encoding
		p *compress.Parallel
	}{{compress.Brotli, &opts.Brotli.Parallel}, {compress.Zstd, &opts.Zstd.Parallel}, {compress.Gzip, &opts.Gzip.Parallel}} {
		e, p := c.e, c.p
		cc := &lc.coding[e]
		ref := cc.threadPool.V
		if ref.name == "" {
			continue
		}
		tp, ok := srv.Config().ThreadPool(ref.name)
		if !ok {
			return conf.Errorf(ref.at, "unknown thread pool %q", ref.name)
		}
		p.Pool = namedPool{tp}
		p.SegmentSize = cc.segment.Or(p.SegmentSize)
		p.Tasks = cc.tasks.Or(p.Tasks)
		p.Compressors = mc.compressorPools[e]
	}
	return nil
}

// appendTypes reads a types list. Several lines at one level add up, as
// NGINX's types lists do. An entry with a parameter or a blank ("text/css;
// charset=utf-8"), or an empty one, is taken and left out with a notice:
// NGINX keys its list by the whole entry and looks a response up by its
// bare type (a response without one by none), so such an entry matches no
// response there, while compress would read it as its bare type.
func appendTypes(c *server.Cmd, s *server.Setting[[]string]) error {
	if !s.Set {
		s.Put(nil)
	}
	for _, t := range c.Args {
		if t == "" || strings.ContainsAny(t, " \t;") {
			c.Notice(fmt.Sprintf("%s entry %q matches no response (a list holds bare media types)", c.Name, t))
			continue
		}
		s.V = append(s.V, t)
	}
	return nil
}

// maxBufferSize bounds one *_buffers buffer: NGINX's pages are 4k or 8k,
// and a buffer larger than this only delays the first bytes.
const maxBufferSize = 64 << 20

func setBuffers(c *server.Cmd, s *server.Setting[compress.Buffers]) error {
	n, err := c.Int(c.Args[0], 1, 1<<16)
	if err != nil {
		return err
	}
	size, err := c.Size(c.Args[1])
	if err != nil {
		return err
	}
	if size < 1 || size > maxBufferSize {
		return c.Invalid(c.Args[1], "it must be 1..64m")
	}
	return server.Put(c, s, compress.Buffers{Number: n, Size: int(size)})
}

func setBrotliWindow(c *server.Cmd) error {
	n, err := c.Size(c.Args[0])
	if err != nil {
		return err
	}
	// The sizes brotli has a window for: the powers of two from 1k to 16m.
	if n < 1<<10 || n > 1<<24 || n&(n-1) != 0 {
		return c.Invalid(c.Args[0], "it must be 1k, 2k, 4k, 8k, 16k, 32k, 64k, 128k, 256k, 512k, 1m, 2m, 4m, 8m or 16m")
	}
	return server.Put(c, &c.Loc().(*locConf).brotliWindow, int(n))
}

func setRetention(c *server.Cmd) error {
	var r compress.Retention
	switch c.Args[0] {
	case "aggressive":
		r.Policy = compress.RetainAggressive
	case "current_config":
		r.Policy = compress.RetainCurrentConfig
	case "release_all":
		r.Policy = compress.RetainReleaseAll
	case "bounded":
		r.Policy = compress.RetainBounded
		if len(c.Args) != 2 {
			return c.Errorf("invalid number of arguments in %q directive, \"bounded\" needs a size", c.Name)
		}
		n, err := c.Size(c.Args[1])
		if err != nil {
			return err
		}
		r.Bound = n
	default:
		return c.Invalid(c.Args[0], `it must be "aggressive", "current_config", "release_all" or "bounded"`)
	}
	if r.Policy != compress.RetainBounded && len(c.Args) != 1 {
		return c.Errorf("invalid number of arguments in %q directive", c.Name)
	}
	return server.Put(c, &c.Loc().(*locConf).brotliRetention, r)
}

func setCacheSize(c *server.Cmd) error {
	n, err := c.Size(c.Args[0])
	if err != nil {
		return err
	}
	if n < 1 {
		return c.Invalid(c.Args[0], "it must be a positive size")
	}
	return server.Put(c, &c.Main().(*mainConf).cacheSize, n)
}

// locationCache gives a location with compress_cache on its
// configuration's body cache, made on first use so that a configuration
// without compress_cache holds none.
func locationCache(l *server.Location, opts *compress.Options) error {
	srv := l.Server()
	if !server.LocConf[*locConf](l, module).cache.V || srv == nil {
		return nil
	}
	mc := server.MainConf[*mainConf](srv.Config(), module)
	if mc.cache == nil {
		bc, err := compress.NewBodyCache(mc.cacheSize.Or(compress.DefaultBodyCacheSize))
		if err != nil {
			return err
		}
		mc.cache = bc
	}
	opts.Cache = mc.cache
	return nil
}

func setIdleEncoders(c *server.Cmd) error {
	n, err := c.Int(c.Args[0], 0, compress.MaxIdleEncoders)
	if err != nil {
		return err
	}
	return server.Put(c, &c.Main().(*mainConf).idleEncoders, n)
}

var proxiedValues = map[string]compress.Proxied{
	"expired":          compress.ProxiedExpired,
	"no-cache":         compress.ProxiedNoCache,
	"no-store":         compress.ProxiedNoStore,
	"private":          compress.ProxiedPrivate,
	"no_last_modified": compress.ProxiedNoLastModified,
	"no_etag":          compress.ProxiedNoETag,
	"auth":             compress.ProxiedAuth,
	"any":              compress.ProxiedAny,
}

func setProxied(c *server.Cmd) error {
	s := &c.Loc().(*locConf).gzipProxied
	if !s.Set {
		s.Put(proxiedSetting{})
	}
	for _, a := range c.Args {
		// NGINX's bitmask values ignore case.
		if strings.EqualFold(a, "off") {
			s.V.off = true
			continue
		}
		p, ok := proxiedValues[strings.ToLower(a)]
		if !ok {
			return c.Invalid(a, `it must be "off", "expired", "no-cache", "no-store", "private", "no_last_modified", "no_etag", "auth" or "any"`)
		}
		s.V.mask |= p
	}
	return nil
}

func setHTTPVersion(c *server.Cmd) error {
	var v compress.ProtoVersion
	switch c.Args[0] {
	case "1.0":
		v = compress.ProtoVersion{Major: 1, Minor: 0}
	case "1.1":
		v = compress.ProtoVersion{Major: 1, Minor: 1}
	default:
		return c.Invalid(c.Args[0], `it must be "1.0" or "1.1"`)
	}
	return server.Put(c, &c.Loc().(*locConf).gzipHTTPVersion, v)
}

// setGzipDisable reads gzip_disable. Several lines at one level add up.
func setGzipDisable(c *server.Cmd) error {
	s := &c.Loc().(*locConf).gzipDisable
	if !s.Set {
		s.Put(compress.GzipDisable{})
	}
	for _, a := range c.Args {
		if a == "msie6" {
			s.V.MSIE6 = true
			continue
		}
		// NGINX matches these case-insensitively.
		re, err := pcre.Compile(a, true)
		if err != nil {
			return c.Errorf("%v", err)
		}
		s.V.Patterns = append(s.V.Patterns, re)
	}
	return nil
}

func setPrefer(c *server.Cmd) error {
	var list []compress.Encoding
	for _, a := range c.Args {
		e, ok := compress.ParseEncoding(a)
		if !ok || e == compress.Identity {
			return c.Invalid(a, `it must be "br", "zstd" or "gzip"`)
		}
		for _, x := range list {
			if x == e {
				return c.Invalid(a, "it is named twice")
			}
		}
		list = append(list, e)
	}
	return server.Put(c, &c.Loc().(*locConf).prefer, list)
}

// setSkipTypes reads compress_skip_types. "off" empties the list; several
// lines at one level add up.
func setSkipTypes(c *server.Cmd) error {
	s := &c.Loc().(*locConf).skipTypes
	if len(c.Args) == 1 && c.Args[0] == "off" {
		s.Put([]string{})
		return nil
	}
	for _, t := range c.Args {
		if t == "off" || t == "*" {
			return c.Invalid(t, "it must be a media type, or \"off\" alone")
		}
	}
	return appendTypes(c, s)
}

// setDictionary reads compress_dictionary FILE: a raw dictionary that
// brotli and zstd responses may be compressed against for clients that
// hold it (dcb, dcz). Several lines at one level add up; a level with none
// inherits its parent's, and "off" inherits none.
func setDictionary(c *server.Cmd) error {
	s := &c.Loc().(*locConf).dicts
	if c.Args[0] == "off" || (s.Set && len(s.V) == 0) {
		if s.Set {
			return c.Invalid(c.Args[0], `"off" must be alone at its level`)
		}
		s.Put([]*compress.Dictionary{})
		return nil
	}
	mc := c.Main().(*mainConf)
	path := c.Args[0]
	d := mc.dicts[path]
	if d == nil {
		data, err := readBounded(path, compress.MaxDictionary)
		if err != nil {
			reason := err
			if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
				reason = pe.Err // the message names the path already
			}
			return c.Errorf("cannot read %q: %v", path, reason)
		}
		if d, err = compress.NewDictionary(path, data); err != nil {
			return c.Errorf("%v", err)
		}
		if mc.dicts == nil {
			mc.dicts = make(map[string]*compress.Dictionary)
		}
		mc.dicts[path] = d
	}
	if !s.Set {
		s.Put(nil)
	}
	for _, x := range s.V {
		if x.Hash() == d.Hash() {
			return c.Invalid(path, "the same dictionary is named twice at this level")
		}
	}
	s.V = append(s.V, d)
	return nil
}

// readBounded reads the file at path, or its first max+1 bytes when it is
// longer, which is enough to refuse it: a mistyped path to a large file
// costs no more memory than the largest file taken.
func readBounded(path string, max int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, int64(max)+1))
}

// locationOptions turns a location's merged directives into compress.Options.
func locationOptions(l *server.Location) compress.Options {
	lc := server.LocConf[*locConf](l, module)
	o := compress.DefaultOptions()

	cb := &lc.coding[compress.Brotli]
	b := &o.Brotli
	b.Enable, b.Types = cb.enable.V, cb.types.V
	b.Level, b.MinLength, b.Buffers = cb.level.Or(b.Level), cb.minLength.Or(b.MinLength), cb.buffers.Or(b.Buffers)
	b.Window = lc.brotliWindow.Or(b.Window)
	b.ReuseMemory = lc.brotliReuse.Or(b.ReuseMemory)
	b.Retention = lc.brotliRetention.Or(b.Retention)
	b.Static = cb.static.V
	if srv := l.Server(); srv != nil {
		b.Encoders = server.MainConf[*mainConf](srv.Config(), module).pool
	}

	cz := &lc.coding[compress.Zstd]
	z := &o.Zstd
	z.Enable, z.Types = cz.enable.V, cz.types.V
	z.Level, z.MinLength, z.Buffers = cz.level.Or(z.Level), cz.minLength.Or(z.MinLength), cz.buffers.Or(z.Buffers)
	z.Static = cz.static.V

	cg := &lc.coding[compress.Gzip]
	g := &o.Gzip
	g.Enable, g.Types = cg.enable.V, cg.types.V
	g.Level, g.MinLength, g.Buffers = cg.level.Or(g.Level), cg.minLength.Or(g.MinLength), cg.buffers.Or(g.Buffers)
	if p := lc.gzipProxied.V; !p.off {
		g.Proxied = p.mask
	}
	g.HTTPVersion = lc.gzipHTTPVersion.Or(g.HTTPVersion)
	g.Disable = lc.gzipDisable.V
	g.Static = cg.static.V

	o.Gunzip = lc.gunzip.V
	o.Vary = lc.gzipVary.V
	o.Prefer = lc.prefer.Or(o.Prefer)
	o.SkipTypes = lc.skipTypes.Or(o.SkipTypes)
	o.Dictionaries = lc.dicts.V
	o.Logger = l.Logger()
	return o
}

// Variants returns the precompressed copies that l's files are served as
// (brotli_static, zstd_static, gzip_static), for static.Options.Variants,
// or nil when l serves none. It is called once per location, when the
// configuration loads; the function it returns allocates nothing per
// request.
func Variants(l *server.Location) static.VariantFunc {
	p := compress.NewPrecompressed(locationOptions(l), staticVariant)
	if p == nil {
		return nil
	}
	return p.Choose
}

// VaryVariants returns the precompressed copies whose presence beside a
// file makes its plain answer vary on Accept-Encoding, for
// static.Options.VaryVariants (gzip_static on with gzip_vary).
func VaryVariants(l *server.Location) []static.Variant {
	return compress.NewPrecompressed(locationOptions(l), staticVariant).VaryCopies()
}

// staticVariant is the file server's description of the copy of coding e:
// the same whether or not gunzip decodes it, since every copy is sent
// whole.
func staticVariant(e compress.Encoding, _ bool) static.Variant {
	return static.Variant{Suffix: e.Extension(), Encoding: e.String()}
}

// LocationOptions returns l's compression directives as compress.Options,
// for a module that compresses some of l's responses itself and must
// negotiate as l's filter would (esimod's esi_stitch).
func LocationOptions(l *server.Location) compress.Options { return locationOptions(l) }

// VaryEncoding returns, for static.Options.VaryEncoding, whether the 200
// response for one of l's files, sent without a Content-Encoding, carries
// Vary: Accept-Encoding from l's compression filter, so that the file's
// 304 carries it too; nil when it never does.
func VaryEncoding(l *server.Location) func(contentType string, length int64) bool {
	return locationOptions(l).VaryTest()
}

// VaryDictionary returns, for static.Options.VaryDictionary, whether l's
// compression filter names Available-Dictionary beside Accept-Encoding
// (compress_dictionary), so that a file's 304 does too.
func VaryDictionary(l *server.Location) bool { return locationOptions(l).VariesOnDictionary() }
