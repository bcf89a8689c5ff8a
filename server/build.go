package server

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/user"
	"sort"
	"strings"

	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/vars"
)

// ignoredDirective is an NGINX directive that mosaic accepts and ignores
// with a notice, so that a real nginx.conf loads. Each either tunes
// something Go does by itself (worker_connections, sendfile, accept_mutex)
// or names process plumbing that a single Go process has no use for
// (user, pid). Ignored is not unchecked: each stands only where NGINX
// allows it, takes NGINX's number of arguments, and its arguments are
// read as NGINX's handler reads them (on/off, a number, a size, a time,
// one of a set of words), so a configuration NGINX refuses is refused
// here (TestDirectiveArgumentsAsNGINX compares them with NGINX's).
type ignoredDirective struct {
	ctx      Context
	min, max int
	check    func(c *Cmd) error // nil: any argument
	why      string             // what the notice adds, where the name alone does not tell
}

// ctxHTTPServer is NGINX's http and server levels without location.
const ctxHTTPServer = CtxHTTP | CtxServer

var (
	take1    = ignoredDirective{min: 1, max: 1}
	takeFlag = take1.checked(checkFlag)
	takeNum  = take1.checked(checkNum)
	takeSize = take1.checked(argCheck(ParseSize))
	takeOff  = take1.checked(argCheck(ParseOffset))
	takeMsec = take1.checked(argCheck(ParseDuration))
	// A temporary files' path and up to three levels of subdirectories.
)

func (d ignoredDirective) in(ctx Context) ignoredDirective { d.ctx = ctx; return d }

func (d ignoredDirective) because(why string) ignoredDirective { d.why = why; return d }

func (d ignoredDirective) checked(f func(*Cmd) error) ignoredDirective { d.check = f; return d }

var ignored = map[string]ignoredDirective{
	"load_module": take1.in(CtxMain), "user": {ctx: CtxMain, min: 1, max: 2, check: checkUser},
	"daemon": takeFlag.in(CtxMain), "master_process": takeFlag.in(CtxMain),
	"worker_cpu_affinity": {ctx: CtxMain, min: 1, max: Unlimited, check: checkCPUAffinity}, "worker_rlimit_nofile": takeNum.in(CtxMain),
	"worker_priority": take1.in(CtxMain).checked(checkPriority), "pcre_jit": takeFlag.in(CtxMain), "timer_resolution": takeMsec.in(CtxMain),
	"worker_connections": takeNum.in(CtxEvents), "multi_accept": takeFlag.in(CtxEvents), "use": take1.in(CtxEvents),
	"accept_mutex": takeFlag.in(CtxEvents), "accept_mutex_delay": takeMsec.in(CtxEvents),
	"tcp_nopush": takeFlag.in(CtxHTTPAll), "tcp_nodelay": takeFlag.in(CtxHTTPAll),
	"server_tokens":       take1.in(CtxHTTPAll).checked(checkWords("on", "off", "build")),
	"types_hash_max_size": takeNum.in(CtxHTTPAll), "types_hash_bucket_size": takeNum.in(CtxHTTPAll),
	"server_names_hash_max_size": takeNum.in(CtxHTTP), "server_names_hash_bucket_size": takeNum.in(CtxHTTP),
	"variables_hash_max_size": takeNum.in(CtxHTTP), "variables_hash_bucket_size": takeNum.in(CtxHTTP),
	"proxy_headers_hash_max_size": takeNum.in(CtxHTTPAll), "proxy_headers_hash_bucket_size": takeNum.in(CtxHTTPAll),
	"aio":      take1.in(CtxHTTPAll).checked(checkAIO),
	"directio": take1.in(CtxHTTPAll).checked(checkDirectio),
	// Go's key exchange is ECDHE: there is no DH group to set.
	"ssl_dhparam": take1.in(ctxHTTPServer).because("Go's TLS negotiates keys with ECDHE only and has no finite-field DH cipher suites to give the parameters to"),
	// NGINX itself ignores them on Linux: SO_SNDLOWAT cannot be set there,
	// and file events need kqueue.
	"proxy_send_lowat":       takeSize.in(CtxHTTPAll),
	"send_lowat":             takeSize.in(CtxHTTPAll).because("Linux has no SO_SNDLOWAT to set, and NGINX ignores it there too"),
	"open_file_cache_events": takeFlag.in(CtxHTTPAll).because("file events need kqueue, which Linux lacks; NGINX ignores it there too"),
	// File reading hints: the kernel's own readahead and the page cache
	// serve mosaic's reads (directio is ignored, so is its alignment).
	"read_ahead":         takeSize.in(CtxHTTPAll).because("the kernel's own readahead serves mosaic's file reads"),
	"directio_alignment": takeOff.in(CtxHTTPAll).because("directio is ignored: files are read through the page cache"),
	// Sizes of NGINX's memory pools and of its output batching: Go's
	// allocator and mosaic's writers have no such knobs.
	"connection_pool_size": take1.in(ctxHTTPServer).checked(checkPoolSize), "request_pool_size": take1.in(ctxHTTPServer).checked(checkPoolSize),
	"postpone_output": takeSize.in(CtxHTTPAll),
	// zlib's memory and NGINX's gzip buffering: Go's deflate keeps its own
	// 32 KiB window and hash, and compress streams as it goes.
	"gzip_window":       take1.in(CtxHTTPAll).checked(checkPowerOfTwo(512, 32<<10)).because("Go's deflate keeps a 32 KiB window"),
	"gzip_hash":         take1.in(CtxHTTPAll).checked(checkPowerOfTwo(512, 128<<10)).because("Go's deflate sizes its hash table itself"),
	"gzip_no_buffer":    takeFlag.in(CtxHTTPAll),
	"postpone_gzipping": takeSize.in(CtxHTTPAll),
	"gunzip_buffers":    {ctx: CtxHTTPAll, min: 2, max: 2, check: checkBufs, why: "gunzip decodes through one 32k buffer, passed on before the next input is read"},
	"aio_write":         takeFlag.in(CtxHTTPAll),
	// One process, no workers: nothing of NGINX's process management
	// applies. "env VAR=value" in particular does not set the variable
	// (time.Local, which TZ would change, is read at start).
	"env":                 take1.in(CtxMain).because("mosaic runs as one process with the environment it was started with"),
	"lock_file":           take1.in(CtxMain),
	"worker_rlimit_core":  takeOff.in(CtxMain),
	"working_directory":   take1.in(CtxMain),
	"worker_aio_requests": takeNum.in(CtxEvents),
	"debug_connection":    take1.in(CtxEvents).because("mosaic has no debug log"),
}

// checkFlag takes on or off (either case), as ngx_conf_set_flag_slot.
func checkFlag(c *Cmd) error { _, err := c.Flag(); return err }

// checkNum takes a number as ngx_conf_set_num_slot.
func checkNum(c *Cmd) error {
	if _, ok := conf.Atoi(c.Args[0]); !ok {
		return c.Errorf("%q directive invalid number", c.Name)
	}
	return nil
}

// argCheck takes what parse reads (a size, an offset, a time), as the
// ngx_conf_set_*_slot of that kind.
func argCheck[T any](parse func(string) (T, error)) func(*Cmd) error {
	return func(c *Cmd) error {
		if _, err := parse(c.Args[0]); err != nil {
			return c.Errorf("%q directive invalid value", c.Name)
		}
		return nil
	}
}

// checkWords takes one of words, in any case (ngx_conf_set_enum_slot).
func checkWords(words ...string) func(*Cmd) error {
	return func(c *Cmd) error {
		for _, w := range words {
			if strings.EqualFold(c.Args[0], w) {
				return nil
			}
		}
		return c.Errorf("invalid value %q", c.Args[0])
	}
}

// checkPowerOfTwo takes a size that is a power of two from min to max
// (gzip_window, gzip_hash: zlib's window bits and memory level).
func checkPowerOfTwo(min, max int64) func(*Cmd) error {
	return func(c *Cmd) error {
		n, err := ParseSize(c.Args[0])
		if err != nil {
			return c.Errorf("%q directive invalid value", c.Name)
		}
		if n < min || n > max || n&(n-1) != 0 {
			return c.Errorf("%q directive must be a power of two from %d to %d", c.Name, min, max)
		}
		return nil
	}
}

// checkPoolSize takes a memory pool's size: at least NGINX's smallest
// pool on 64-bit systems, in steps of its alignment.
func checkPoolSize(c *Cmd) error {
	const minPool, align = 112, 16
	n, err := ParseSize(c.Args[0])
	if err != nil {
		return c.Errorf("%q directive invalid value", c.Name)
	}
	if n < minPool || n%align != 0 {
		return c.Errorf("the pool size must be no less than %d and a multiple of %d", minPool, align)
	}
	return nil
}

// checkBufs takes a number and a size, both more than 0, as
// ngx_conf_set_bufs_slot.
func checkBufs(c *Cmd) error {
	n, ok := conf.Atoi(c.Args[0])
	size, err := ParseSize(c.Args[1])
	if !ok || n == 0 || err != nil || size == 0 {
		return c.Errorf("%q directive invalid value", c.Name)
	}
	return nil
}

// checkTempPath takes a path and the lengths of up to three levels of
// subdirectories, each at least 1 and ten in all, as
// ngx_conf_set_path_slot.
func checkTempPath(c *Cmd) error {
	var total int64
	for _, a := range c.Args[1:] {
		n, ok := conf.Atoi(a)
		if !ok || n == 0 || n > 10 {
			return c.Errorf("%q directive invalid value", c.Name)
		}
		total += n
	}
	if total > 10 {
		return c.Errorf("%q directive invalid value", c.Name)
	}
	return nil
}

// checkAIO takes off, threads or threads=pool; "on" (file AIO) needs an
// NGINX built with it, which Debian's is not, but loads.
func checkAIO(c *Cmd) error {
	a := c.Args[0]
	if strings.EqualFold(a, "on") || a == "off" || a == "threads" || strings.HasPrefix(a, "threads=") && len(a) > len("threads=") {
		return nil
	}
	return c.Errorf("invalid value %q in %q directive", a, c.Name)
}

// checkDirectio takes off or an offset.
func checkDirectio(c *Cmd) error {
	if c.Args[0] == "off" {
		return nil
	}
	return argCheck(ParseOffset)(c)
}

// checkPriority takes a nice value: a number with an optional sign, as
// ngx_set_priority, within what an int holds there.
func checkPriority(c *Cmd) error {
	n, ok := conf.Atoi(strings.TrimLeft(c.Args[0][:1], "+-") + c.Args[0][1:])
	if !ok || n > math.MaxInt32 {
		return c.Errorf("%q directive invalid number", c.Name)
	}
	return nil
}

// checkCPUAffinity takes "auto" (first, optionally followed by one mask)
// or masks of 0s and 1s, at most 64 long, as ngx_set_cpu_affinity.
func checkCPUAffinity(c *Cmd) error {
	args := c.Args
	if args[0] == "auto" {
		if len(args) > 2 {
			return c.Errorf("invalid number of arguments in %q directive", c.Name)
		}
		args = args[1:]
	}
	for _, a := range args {
		if len(a) > 64 || strings.Trim(a, "01") != "" {
			return c.Errorf("invalid character %q in %q directive", strings.Trim(a, "01")[:1], c.Name)
		}
	}
	return nil
}

// checkUser looks the user and group up as NGINX's master does when it
// runs as root (getpwnam, getgrnam; "user nobody" needs a group named
// nobody too); elsewhere NGINX ignores them.
func checkUser(c *Cmd) error {
	if os.Geteuid() != 0 {
		return nil
	}
	if _, err := user.Lookup(c.Args[0]); err != nil {
		return c.Errorf("getpwnam(%q) failed", c.Args[0])
	}
	group := c.Args[len(c.Args)-1] // without a group, the user's name
	if _, err := user.LookupGroup(group); err != nil {
		return c.Errorf("getgrnam(%q) failed", group)
	}
	return nil
}

// ignoredModule registers the ignored directives, so that the checks of
// every directive (context, arguments) apply to them.
var ignoredModule = &Module{Name: "core (ignored)"}

func init() {
	for _, name := range IgnoredDirectives() {
		spec := ignored[name]
		ignoredModule.Directives = append(ignoredModule.Directives, Directive{
			Name: name, Context: spec.ctx, MinArgs: spec.min, MaxArgs: spec.max,
			Set: func(c *Cmd) error {
				if spec.check != nil {
					if err := spec.check(c); err != nil {
						return err
					}
				}
				msg := fmt.Sprintf("ignoring %q directive in %s", c.Name, c.Pos())
				if spec.why != "" {
					msg += ": " + spec.why
				}
				c.b.cfg.notices = append(c.b.cfg.notices, msg)
				return nil
			},
		})
	}
	Register(ignoredModule)
}

// IgnoredDirectives lists the accepted-and-ignored directives, sorted.
func IgnoredDirectives() []string {
	out := make([]string, 0, len(ignored))
	for n := range ignored {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type builder struct {
	cfg *Config
}

// newLevel creates the settings of every module for a new level.
func (b *builder) newLevel(kind levelKind, parent *Location, srv *VServer, d *conf.Directive) *Location {
	mods := Modules()
	l := &Location{kind: kind, parent: parent, server: srv, confs: make([]any, len(mods))}
	if d != nil {
		l.file, l.line = d.File, d.Line
	}
	for i, m := range mods {
		if m.NewLoc != nil {
			l.confs[i] = m.NewLoc()
		}
	}
	return l
}

func (b *builder) walk(block []*conf.Directive, ctx Context, level *Location, state any) error {
	for _, d := range block {
		entries := directivesFor(d.Name)
		if len(entries) == 0 {
			return conf.Errorf(d, "unknown directive %q", d.Name)
		}
		var e *dirEntry
		for _, x := range entries {
			if x.d.Context&ctx != 0 {
				e = x
				break
			}
		}
		if e == nil {
			return conf.Errorf(d, "%q directive is not allowed here", d.Name)
		}
		n := len(d.Args)
		if n < e.d.MinArgs || (e.d.MaxArgs != Unlimited && n > e.d.MaxArgs) {
			return conf.Errorf(d, "invalid number of arguments in %q directive", d.Name)
		}
		if e.d.Block && d.Block == nil {
			return conf.Errorf(d, "directive %q has no opening \"{\"", d.Name)
		}
		if !e.d.Block && d.Block != nil {
			return conf.Errorf(d, "directive %q is not terminated by \";\"", d.Name)
		}
		c := &Cmd{Directive: d, ctx: ctx, mod: e.mod, b: b, level: level, state: state}
		if err := e.d.Set(c); err != nil {
			return err
		}
	}
	return nil
}

func directivesFor(name string) []*dirEntry {
	regMu.Lock()
	defer regMu.Unlock()
	return directives[name]
}

// Load reads a configuration file and builds it.
func Load(file string) (*Config, error) {
	dirs, err := conf.ParseFile(file, conf.Options{Fallback: builtinInclude})
	if err != nil {
		return nil, err
	}
	return Build(file, dirs)
}

// LoadString builds a configuration from text, as if read from file name.
func LoadString(name, src string) (*Config, error) {
	dirs, err := conf.ParseString(name, src, conf.Options{Fallback: builtinInclude})
	if err != nil {
		return nil, err
	}
	return Build(name, dirs)
}

// Build turns a parsed tree into a Config with every handler built.
func Build(file string, dirs []*conf.Directive) (*Config, error) {
	mods := Modules()
	cfg := &Config{
		File:        file,
		Logger:      NewLogger(os.Stderr, LevelNotice),
		mains:       make([]any, len(mods)),
		addrs:       map[string]*addrGroup{},
		threadPools: map[string]*ThreadPool{},
		vars:        vars.NewScope(),
	}
	for i, m := range mods {
		if m.NewMain != nil {
			cfg.mains[i] = m.NewMain()
		}
	}
	b := &builder{cfg: cfg}
	if err := b.walk(dirs, CtxMain, nil, nil); err != nil {
		cfg.close()
		return nil, err
	}
	// Variables may be used before the directive that defines them, as in
	// NGINX: only now is a name that nothing defined an error, reported
	// where it was first used.
	if err := cfg.vars.Resolve(); err != nil {
		cfg.close()
		var unknown *vars.UnknownError
		if errors.As(err, &unknown) {
			if d, ok := unknown.Tag.(*conf.Directive); ok {
				return nil, conf.Errorf(d, "%v", err)
			}
		}
		return nil, err
	}
	if cfg.http == nil {
		// A file without "http {}" serves nothing; keep an empty level so
		// the rest of the code need not check.
		cfg.http = b.newLevel(levelHTTP, nil, nil, nil)
	}
	if err := b.finish(); err != nil {
		cfg.close()
		return nil, err
	}
	return cfg, nil
}

// finish merges settings downwards, lets modules initialise, and builds
// each location's chain.
func (b *builder) finish() error {
	cfg := b.cfg
	mods := Modules()
	if err := b.defaultThreadPool(); err != nil {
		return err
	}
	if err := mergeInto(mods, nil, cfg.http); err != nil {
		return err
	}
	for _, s := range cfg.servers {
		if err := mergeInto(mods, cfg.http, s.level); err != nil {
			return err
		}
		var err error
		s.locs.walk(func(l *Location) {
			if err == nil {
				err = mergeInto(mods, l.parent, l)
			}
		})
		for _, l := range s.named {
			if err == nil {
				err = mergeInto(mods, l.parent, l)
			}
		}
		// "if" blocks last: their parents, read before them, are merged.
		for _, l := range s.implicit {
			if err == nil {
				err = mergeInto(mods, l.parent, l)
			}
		}
		if err != nil {
			return err
		}
	}
	for _, m := range mods {
		if m.InitMain != nil {
			if err := m.InitMain(cfg); err != nil {
				return err
			}
		}
	}
	for _, s := range cfg.servers {
		if err := b.buildServer(s); err != nil {
			return err
		}
	}
	return b.groupListeners()
}

// mergeInto completes child's settings from parent (nil at the top, where
// modules' MergeLoc still runs so that defaults are applied once).
func mergeInto(mods []*Module, parent, child *Location) error {
	for i, m := range mods {
		if m.MergeLoc == nil {
			continue
		}
		var p any
		if parent != nil {
			p = parent.confs[i]
		} else {
			p = m.NewLoc()
		}
		if err := m.MergeLoc(p, child.confs[i]); err != nil {
			return placeAt(child, err)
		}
	}
	return nil
}

func (b *builder) buildServer(s *VServer) error {
	build := func(l *Location) error {
		h, sub, err := buildChain(l)
		if err != nil {
			return err
		}
		l.handler, l.subHandler = h, sub
		return nil
	}
	if err := build(s.level); err != nil {
		return err
	}
	for _, m := range Modules() {
		if m.PostRead == nil {
			continue
		}
		f, err := m.PostRead(s.level)
		if err != nil {
			return placeAt(s.level, err)
		}
		if f != nil {
			s.postRead = append(s.postRead, f)
		}
	}
	var err error
	s.locs.walk(func(l *Location) {
		if err == nil {
			err = build(l)
		}
	})
	for _, l := range s.named {
		if err == nil {
			err = build(l)
		}
	}
	for _, l := range s.implicit {
		if err == nil {
			err = build(l)
		}
	}
	if err != nil {
		return err
	}
	s.locs.finish()
	return nil
}

// buildChain asks the modules for the location's content handler and
// wraps it in the filters, once for client requests and once for
// subrequests.
func buildChain(l *Location) (full, sub http.Handler, err error) {
	mods := Modules()
	sorted := append([]*Module(nil), mods...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return orderOf(contentOrder, sorted[i].Name) < orderOf(contentOrder, sorted[j].Name)
	})
	var content http.Handler
	for _, m := range sorted {
		if m.Content == nil {
			continue
		}
		h, err := m.Content(l)
		if err != nil {
			return nil, nil, placeAt(l, err)
		}
		if h != nil {
			content = h
			break
		}
	}
	if content == nil {
		content = notFoundHandler
	}
	if content, err = wrapCore(l, content); err != nil {
		return nil, nil, placeAt(l, err)
	}
	l.content = content
	var filters []*Module
	for _, m := range mods {
		if m.Filter != nil {
			filters = append(filters, m)
		}
	}
	// Wrapped from the innermost out: the last in filterOrder first. The
	// output filters go first, then the gate between them and the request
	// filters (filterlayer.go), then those.
	sort.SliceStable(filters, func(i, j int) bool {
		return orderOf(filterOrder, filters[i].Name) > orderOf(filterOrder, filters[j].Name)
	})
	entry := &entryHandler{loc: l, content: content}
	full, sub = entry, entry
	wrap := func(f *Filter) error {
		if full, err = f.Wrap(l, full); err != nil {
			return placeAt(l, err)
		}
		wrapSub := f.WrapSub
		if wrapSub == nil && f.InSubrequest {
			wrapSub = f.Wrap
		}
		if wrapSub != nil {
			if sub, err = wrapSub(l, sub); err != nil {
				return placeAt(l, err)
			}
		}
		return nil
	}
	outermost := -1 // the last output filter wrapped
	for i, m := range filters {
		if !m.Filter.PerRequest {
			outermost = i
		}
	}
	for i, m := range filters {
		switch {
		case m.Filter.PerRequest:
		case m.Filter.AtHeader != nil:
			// Its writer goes under the gate, which lies right under the
			// outermost output filter: this one must be it.
			if i != outermost {
				panic("server: filter " + m.Name + " has AtHeader but is not the outermost output filter")
			}
			if l.atHeader, err = m.Filter.AtHeader(l); err != nil {
				return nil, nil, placeAt(l, err)
			}
		default:
			if err := wrap(m.Filter); err != nil {
				return nil, nil, err
			}
		}
	}
	l.output, l.subOutput = full, sub
	full, sub = &gateHandler{next: full, atHeader: l.atHeader}, &gateHandler{next: sub}
	for _, m := range filters {
		if m.Filter.PerRequest {
			if err := wrap(m.Filter); err != nil {
				return nil, nil, err
			}
		}
	}
	return full, sub, nil
}

// Close releases what the configuration holds (log files, thread pools,
// the modules' resources). The runtime closes configurations it retires;
// a caller that built one and will not apply it closes it.
func (c *Config) Close() { c.close() }

// close releases what the configuration holds, once: the last request on
// a retired configuration and the shutdown limit may both get here.
func (c *Config) close() {
	c.closeOnce.Do(func() {
		for i := len(c.closers) - 1; i >= 0; i-- {
			if err := c.closers[i](); err != nil {
				c.Logger.Warn("closing configuration", "err", err)
			}
		}
		c.closers = nil
		for _, m := range Modules() {
			if m.Close != nil {
				if err := m.Close(c); err != nil {
					c.Logger.Warn("closing module", "module", m.Name, "err", err)
				}
			}
		}
	})
}

// placeAt returns an error of a module building the level l, placed at l
// unless it names its own line: a *conf.Error, made from the directive it
// is about (proxy_cache naming a zone that does not exist), reads as NGINX
// prints it, "... in file:line", without l's position before it.
func placeAt(l *Location, err error) error {
	var ce *conf.Error
	if errors.As(err, &ce) && ce.File != "" {
		return err
	}
	return fmt.Errorf("%s: %w", l.Pos(), err)
}
