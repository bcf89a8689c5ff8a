// Package esimod makes package esi a module of the mosaic server: it
// declares the esi* directives, merges them http -> server -> location, and
// puts an ESI handler, built once when the configuration loads, in the
// chain of each location with "esi on". Fragments are fetched as the
// server's subrequests (an esi.Fetcher over server.Subrequest);
// Transformed tells the static module's wiring which of a location's files
// the handler rebuilds. The esi_plan_zone stores are opened once per
// configuration and kept across reloads that declare them alike; esi_stitch
// negotiates with the location's compression settings (compressmod).
package esimod

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/cache"
	"github.com/mosaic-edge/mosaic/compress"
	"github.com/mosaic-edge/mosaic/esi"
	"github.com/mosaic-edge/mosaic/internal/shared"
	"github.com/mosaic-edge/mosaic/modules/compressmod"
	"github.com/mosaic-edge/mosaic/modules/statusmod"
	"github.com/mosaic-edge/mosaic/server"
)

// locConf holds the module's directives at one level.
type locConf struct {
	enable          server.Setting[bool]
	types           server.Setting[[]string]
	silentErrors    server.Setting[bool]
	bufferSize      server.Setting[int]
	maxDepth        server.Setting[int]
	maxIncludes     server.Setting[int]
	maxFragment     server.Setting[int64]
	maxHeld         server.Setting[int64]
	fragmentTimeout server.Setting[time.Duration]
	surrogate       server.Setting[bool]
	plan            server.Setting[string] // esi_plan: a zone's name, "" for off
	planPos         string                 // where esi_plan named it
	stitch          server.Setting[bool]
	stitchLevel     server.Setting[int]
}

// mainConf holds the esi_plan_zone declarations of a configuration.
type mainConf struct {
	zones map[string]*planZone
	order []*planZone
}

// planZone is one esi_plan_zone: a plan store shared by the locations
// that name it, and kept across reloads while a configuration declares
// it alike.
type planZone struct {
	name  string
	size  int64
	store *esi.PlanStore // acquired by InitMain
}

func (z *planZone) signature() string { return z.name + ":" + strconv.FormatInt(z.size, 10) }

var planZones shared.Registry[*esi.PlanStore]

// redisStoreOf returns the Redis store of the cache zone a location's
// proxy_cache names, or nil: the cache module says it (SharePlansThrough).
var redisStoreOf func(l *server.Location) cache.Store

// SharePlansThrough tells the module where a location's pages are cached
// in Redis: its parse plans are shared with the other servers of that
// zone through the same store. The cache module calls it when it
// registers.
func SharePlansThrough(f func(l *server.Location) cache.Store) { redisStoreOf = f }

// maxBufferSize bounds esi_buffer_size: a larger buffer only delays the
// first bytes of the page and holds memory per request.
const maxBufferSize = 64 << 20

// maxFragmentSize bounds esi_max_fragment_size: what one include may hold
// in memory; esi_max_held_size, what one page may hold behind its
// fragments, has the same bound.
const maxFragmentSize = 1 << 30

var module = &server.Module{
	Name:   "esi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.enable.Merge(parent.enable)
		child.types.Merge(parent.types)
		child.silentErrors.Merge(parent.silentErrors)
		child.bufferSize.Merge(parent.bufferSize)
		child.maxDepth.Merge(parent.maxDepth)
		child.maxIncludes.Merge(parent.maxIncludes)
		child.maxFragment.Merge(parent.maxFragment)
		child.maxHeld.Merge(parent.maxHeld)
		child.fragmentTimeout.Merge(parent.fragmentTimeout)
		child.surrogate.Merge(parent.surrogate)
		if !child.plan.Set {
			child.planPos = parent.planPos
		}
		child.plan.Merge(parent.plan)
		child.stitch.Merge(parent.stitch)
		child.stitchLevel.Merge(parent.stitchLevel)
		return nil
	},
	NewMain: func() any { return &mainConf{zones: map[string]*planZone{}} },
}

// initMain opens the plan stores of the configuration's esi_plan_zone
// lines, or takes those a running configuration declared alike.
func initMain(cfg *server.Config) error {
	for _, z := range server.MainConf[*mainConf](cfg, module).order {
		sig := z.signature()
		st, err := planZones.Acquire(sig, func() (*esi.PlanStore, error) { return esi.NewPlanStore(z.size) })
		if err != nil {
			return fmt.Errorf("esi_plan_zone %s: %w", z.name, err)
		}
		z.store = st
		cfg.OnClose(func() error { return planZones.Release(sig) })
	}
	return nil
}

func init() {
	module.InitMain = initMain
	module.Directives = []server.Directive{
		{Name: "esi", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).enable)
		}},
		{Name: "esi_types", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: func(c *server.Cmd) error {
			// mosaic's own directive, stricter than NGINX's types
			// lists: a word that is no media type is a mistake.
			for _, t := range c.Args {
				if t != "*" && !strings.Contains(t, "/") {
					return c.Invalid(t, `it must be a media type or "*"`)
				}
			}
			return server.AppendTypes(c, &c.Loc().(*locConf).types)
		}},
		{Name: "esi_silent_errors", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).silentErrors)
		}},
		{Name: "esi_buffer_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setBufferSize},
		{Name: "esi_max_depth", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			// A fragment is a subrequest one level deeper than its page,
			// so a depth beyond the server's subrequest bound could never
			// be reached: it is refused here rather than failing later.
			n, err := c.Int(c.Args[0], 1, server.MaxSubrequestDepth)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).maxDepth, n)
		}},
		{Name: "esi_max_includes", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 1, 1<<20)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).maxIncludes, n)
		}},
		{Name: "esi_max_fragment_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setMemorySize(func(l *locConf) *server.Setting[int64] { return &l.maxFragment })},
		{Name: "esi_max_held_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setMemorySize(func(l *locConf) *server.Setting[int64] { return &l.maxHeld })},
		{Name: "esi_fragment_timeout", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setFragmentTimeout},
		{Name: "esi_surrogate", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).surrogate)
		}},
		{Name: "esi_plan_zone", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1, Set: setPlanZone},
		{Name: "esi_plan", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			name := c.Args[0]
			if strings.EqualFold(name, "off") {
				name = ""
			}
			lc.planPos = c.Pos()
			return server.Put(c, &lc.plan, name)
		}},
		{Name: "esi_stitch", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).stitch)
		}},
		{Name: "esi_stitch_level", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			n, err := c.Int(c.Args[0], 1, 9)
			if err != nil {
				return err
			}
			return server.Put(c, &c.Loc().(*locConf).stitchLevel, n)
		}},
	}
	module.Filter = &server.Filter{
		// A fragment's location processes the fragment's own ESI (or not)
		// by its own "esi" setting, inside the subrequest.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			if !lc.enable.V {
				return next, nil
			}
			opts := lc.options(l)
			if err := lc.planOptions(l, &opts); err != nil {
				return nil, err
			}
			return esi.New(next, opts)
		},
	}
	server.Register(module)
}

// Transformed returns, for static.Options.Transformed, the test of the
// types whose files l's ESI handler rebuilds, or nil when l has "esi off".
// Such files are served whole, without their validators: ranges and 304s
// would answer for the markup, not for the page the client gets.
func Transformed(l *server.Location) func(contentType string) bool {
	lc := server.LocConf[*locConf](l, module)
	if !lc.enable.V {
		return nil
	}
	return esi.ProcessedTypes(lc.types.V)
}

// Plans reports whether l's ESI handler replays parse plans (esi_plan),
// which it keys on the stored body the cache inside it names.
func Plans(l *server.Location) bool {
	lc := server.LocConf[*locConf](l, module)
	return lc.enable.V && lc.plan.V != ""
}

// Surrogate reports whether l's ESI handler reads Surrogate-Control
// (esi on and esi_surrogate on), which it then removes itself: a cache
// inside it must pass the field on.
func Surrogate(l *server.Location) bool {
	lc := server.LocConf[*locConf](l, module)
	return lc.enable.V && lc.surrogate.V
}

// options turns a location's merged directives into esi.Options.
func (lc *locConf) options(l *server.Location) esi.Options {
	return esi.Options{
		Types:           lc.types.V,
		SilentErrors:    lc.silentErrors.V,
		BufferSize:      lc.bufferSize.V,
		MaxDepth:        lc.maxDepth.V,
		MaxIncludes:     lc.maxIncludes.V,
		MaxFragmentSize: lc.maxFragment.V,
		MaxHeldSize:     int(lc.maxHeld.V),
		FragmentTimeout: lc.fragmentTimeout.Or(esi.DefaultFragmentTimeout),
		Surrogate:       lc.surrogate.V,
		Logger:          l.Logger(),
		Fetcher:         subrequests{},
	}
}

// planOptions sets the parse plan store and stitching of a location with
// "esi on": the zone esi_plan names must be declared, and esi_stitch needs
// esi_plan, whose zone keeps the stored runs.
func (lc *locConf) planOptions(l *server.Location, opts *esi.Options) error {
	if name := lc.plan.V; name != "" {
		var z *planZone
		if s := l.Server(); s != nil {
			z = server.MainConf[*mainConf](s.Config(), module).zones[name]
		}
		if z == nil {
			return fmt.Errorf("unknown esi_plan_zone %q in %s", name, lc.planPos)
		}
		opts.Plans = z.store
		if redisStoreOf != nil {
			if rs := redisStoreOf(l); rs != nil {
				opts.PlanShare = planShare{store: rs, max: z.size}
			}
		}
	}
	if !lc.stitch.V {
		return nil
	}
	if opts.Plans == nil {
		return fmt.Errorf("\"esi_stitch on\" requires \"esi_plan\" in %s", l.Pos())
	}
	opts.Stitch = &esi.Stitch{Level: lc.stitchLevel.Or(esi.DefaultStitchLevel), Choose: stitchChooser(l)}
	return nil
}

// planShare keeps parse plans as entries of a cache store, beside the
// pages, under keys of their own.
type planShare struct {
	store cache.Store
	max   int64 // the zone's size: a larger plan could not be kept
}

// planKeyPrefix keeps plan entries apart from the pages' keys.
const planKeyPrefix = "esi_plan:"

// planLifetime is how long a shared plan is kept fresh; the store's own
// inactive bound may drop it sooner, and a plan that outlives its page is
// never replayed (its key names the stored object).
const planLifetime = 24 * time.Hour

func (s planShare) Load(ctx context.Context, key string) ([]byte, error) {
	obj, err := s.store.Get(ctx, planKeyPrefix+key)
	if err != nil {
		return nil, err
	}
	defer obj.Close()
	// Redis is shared: what it holds is read within a bound.
	b := &boundedBuffer{max: s.max}
	if _, err := obj.WriteTo(b); err != nil {
		return nil, fmt.Errorf("read shared plan: %w", err)
	}
	return b.Bytes(), nil
}

// boundedBuffer is a bytes.Buffer that refuses to grow beyond max bytes.
type boundedBuffer struct {
	bytes.Buffer
	max int64
}

var errPlanTooBig = errors.New("larger than the plan zone")

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.Len())+int64(len(p)) > b.max {
		return 0, errPlanTooBig
	}
	return b.Buffer.Write(p)
}

func (s planShare) Save(ctx context.Context, key string, plan []byte) error {
	w, err := s.store.Put(ctx, planKeyPrefix+key)
	if err != nil {
		return err
	}
	if _, err := w.Write(plan); err != nil {
		w.Abort()
		return err
	}
	now := time.Now()
	return w.Commit(ctx, &cache.Meta{
		Key: planKeyPrefix + key, Status: http.StatusOK, Size: int64(len(plan)),
		Header:      http.Header{"Content-Type": {"application/octet-stream"}, "Content-Length": {strconv.Itoa(len(plan))}},
		RequestTime: now, ResponseTime: now, FreshUntil: now.Add(planLifetime),
	})
}

// stitchChooser negotiates a stitched coding as l's compression filter
// would negotiate the page (compress_prefer, Accept-Encoding, the gzip_*
// checks, gzip_vary): gzip for every client that takes it, as NGINX's
// gzip_ok decides without "gzip on", and zstd and brotli where "zstd on"
// and "brotli on".
func stitchChooser(l *server.Location) func(r *http.Request) (esi.Coding, bool) {
	o := compressmod.LocationOptions(l)
	o.Brotli.Static, o.Gzip.Static, o.Zstd.Static = compress.StaticOff, compress.StaticOn, compress.StaticOff
	if o.Zstd.Enable {
		o.Zstd.Static = compress.StaticOn
	}
	if o.Brotli.Enable {
		o.Brotli.Static = compress.StaticOn
	}
	p := compress.NewPrecompressed(o, func(e compress.Encoding, _ bool) esi.Coding {
		switch e {
		case compress.Zstd:
			return esi.CodingZstd
		case compress.Brotli:
			return esi.CodingBrotli
		}
		return esi.CodingGzip
	})
	return func(r *http.Request) (esi.Coding, bool) {
		try, vary := p.Choose(r)
		if len(try) == 0 {
			return esi.CodingNone, vary
		}
		return try[0], vary
	}
}

// setPlanZone reads "esi_plan_zone name:size".
func setPlanZone(c *server.Cmd) error {
	name, size, ok := strings.Cut(c.Args[0], ":")
	if !ok || name == "" {
		return c.Invalid(c.Args[0], `it must be "name:size"`)
	}
	n, err := c.Size(size)
	if err != nil {
		return err
	}
	if n < esi.MinPlanStoreSize {
		return c.Errorf("zone %q is too small: esi_plan_zone must be at least 32k", name)
	}
	mc := c.Main().(*mainConf)
	if _, dup := mc.zones[name]; dup {
		return c.Errorf("duplicate zone %q", name)
	}
	z := &planZone{name: name, size: n}
	mc.zones[name] = z
	mc.order = append(mc.order, z)
	return nil
}

// subrequests is the esi.Fetcher of the server: it fetches a fragment with
// a subrequest through the page's virtual server.
type subrequests struct{}

// Fetch issues the subrequest from req, the fragment request that esi
// built: its header is already shaped, and its context carries the
// fragment timeout and the nesting depth, so the fragment location's own
// ESI handler continues the bounds and cancelling the fragment cancels the
// subrequest. The fragment location's chain decided about the fragment's
// ESI, so the body is spliced as it is (Final).
func (subrequests) Fetch(_, req *http.Request) (*esi.Fragment, error) {
	uri := req.RequestURI // esi sets it to the URL's, already built
	if uri == "" {
		uri = req.URL.RequestURI()
	}
	resp, err := server.Include(req, uri, req.Header)
	// For the metrics endpoint: a fragment that failed or answered an
	// error status counts as an error.
	statusmod.Collector().Fragment(err == nil && resp.StatusCode < 400)
	if err != nil {
		return nil, fmt.Errorf("subrequest: %w", err)
	}
	return &esi.Fragment{Status: resp.StatusCode, Header: resp.Header, Body: resp.Body, Final: true}, nil
}

// setMemorySize returns the setter of a size of 1..1g held in memory
// (esi_max_fragment_size, esi_max_held_size).
func setMemorySize(field func(*locConf) *server.Setting[int64]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		n, err := sizeArg(c, maxFragmentSize, "it must be 1..1g")
		if err != nil {
			return err
		}
		return server.Put(c, field(c.Loc().(*locConf)), n)
	}
}

func setBufferSize(c *server.Cmd) error {
	n, err := sizeArg(c, maxBufferSize, "it must be 1..64m")
	if err != nil {
		return err
	}
	return server.Put(c, &c.Loc().(*locConf).bufferSize, int(n))
}

// sizeArg reads a size of 1 to max bytes; text says so in the error.
func sizeArg(c *server.Cmd, max int64, text string) (int64, error) {
	n, err := c.Offset(c.Args[0]) // "1g" allowed: ESI's own directives
	if err != nil {
		return 0, err
	}
	if n < 1 || n > max {
		return 0, c.Invalid(c.Args[0], text)
	}
	return n, nil
}

// setFragmentTimeout reads "esi_fragment_timeout time | off"; off is a
// negative FragmentTimeout, which esi.New reads as no bound.
func setFragmentTimeout(c *server.Cmd) error {
	if strings.EqualFold(c.Args[0], "off") {
		return server.Put(c, &c.Loc().(*locConf).fragmentTimeout, -1)
	}
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	if d <= 0 {
		return c.Invalid(c.Args[0], `it must be a positive time or "off"`)
	}
	return server.Put(c, &c.Loc().(*locConf).fragmentTimeout, d)
}
