package server

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/vars"
)

// ignored lists NGINX directives that mosaic accepts and ignores with a
// notice, so that a real nginx.conf loads. Each either tunes something Go
// does by itself (worker_connections, sendfile, accept_mutex) or names
// process plumbing that a single Go process has no use for (user, pid).
var ignored = map[string]bool{
	"load_module": true, "user": true, "pid": true, "daemon": true, "master_process": true,
	"worker_connections": true, "multi_accept": true, "use": true, "accept_mutex": true,
	"accept_mutex_delay": true, "worker_cpu_affinity": true, "worker_rlimit_nofile": true,
	"worker_priority": true, "pcre_jit": true, "timer_resolution": true,
	"sendfile": true, "sendfile_max_chunk": true, "tcp_nopush": true, "tcp_nodelay": true,
	"server_tokens": true, "types_hash_max_size": true, "types_hash_bucket_size": true,
	"server_names_hash_max_size": true, "server_names_hash_bucket_size": true,
	"variables_hash_max_size": true, "variables_hash_bucket_size": true,
	"proxy_headers_hash_max_size": true, "proxy_headers_hash_bucket_size": true,
	"proxy_temp_path": true, "fastcgi_temp_path": true,
	"uwsgi_temp_path": true, "scgi_temp_path": true,
	"reset_timedout_connection": true, "aio": true, "directio": true,
	// Go's key exchange is ECDHE: there is no DH group to set (the
	// notice says so, see ignoredWhy).
	"ssl_dhparam": true,
	// NGINX itself ignores them on Linux: SO_SNDLOWAT cannot be set there,
	// and file events need kqueue.
	"proxy_send_lowat": true, "send_lowat": true, "open_file_cache_events": true,
	// File reading hints: the kernel's own readahead and the page cache
	// serve mosaic's reads (directio is ignored, so is its alignment).
	"read_ahead": true, "directio_alignment": true,
	// Sizes of NGINX's memory pools and of its output batching: Go's
	// allocator and mosaic's writers have no such knobs.
	"connection_pool_size": true, "request_pool_size": true, "postpone_output": true,
}

// ignoredWhy gives the reason the notice of an ignored directive adds,
// where the name alone does not tell it.
var ignoredWhy = map[string]string{
	"ssl_dhparam":            "Go's TLS negotiates keys with ECDHE only and has no finite-field DH cipher suites to give the parameters to",
	"send_lowat":             "Linux has no SO_SNDLOWAT to set, and NGINX ignores it there too",
	"open_file_cache_events": "file events need kqueue, which Linux lacks; NGINX ignores it there too",
	"read_ahead":             "the kernel's own readahead serves mosaic's file reads",
	"directio_alignment":     "directio is ignored: files are read through the page cache",
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
			if ignored[d.Name] {
				msg := fmt.Sprintf("ignoring %q directive in %s", d.Name, d.Pos())
				if why := ignoredWhy[d.Name]; why != "" {
					msg += ": " + why
				}
				b.cfg.notices = append(b.cfg.notices, msg)
				continue
			}
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
			return fmt.Errorf("%s: %w", child.Pos(), err)
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
			return fmt.Errorf("%s: %w", s.level.Pos(), err)
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
			return nil, nil, fmt.Errorf("%s: %w", l.Pos(), err)
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
		return nil, nil, fmt.Errorf("%s: %w", l.Pos(), err)
	}
	l.content = content
	var filters []*Module
	for _, m := range mods {
		if m.Filter != nil {
			filters = append(filters, m)
		}
	}
	// Wrapped from the innermost out: the last in filterOrder first.
	sort.SliceStable(filters, func(i, j int) bool {
		return orderOf(filterOrder, filters[i].Name) > orderOf(filterOrder, filters[j].Name)
	})
	full, sub = content, content
	for _, m := range filters {
		f := m.Filter
		if full, err = f.Wrap(l, full); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", l.Pos(), err)
		}
		wrapSub := f.WrapSub
		if wrapSub == nil && f.InSubrequest {
			wrapSub = f.Wrap
		}
		if wrapSub != nil {
			if sub, err = wrapSub(l, sub); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", l.Pos(), err)
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

// hasPrefixFold is strings.HasPrefix ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
