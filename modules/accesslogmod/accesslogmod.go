// Package accesslogmod wires the accesslog library to the server: the
// log_format, access_log and log_subrequest directives, the log files a
// configuration opens and flushes when it is retired, and the "accesslog"
// filter of every location.
package accesslogmod

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/accesslog"
	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// combined is the name of NGINX's predefined format, accesslog.Combined.
const combined = "combined"

// mainConf holds what the locations of one configuration share: the
// formats by name and the files by path, each file opened once.
type mainConf struct {
	formats map[string]*accesslog.Format
	files   map[string]*accesslog.File
	named   bool // some access_log names its file with variables
}

// locConf holds the access_log lines of one level. A level with lines of
// its own does not inherit those above, as in NGINX.
type locConf struct {
	targets []accesslog.Target
	set     bool // access_log given at this level (off included)
	off     bool
	// logSub (log_subrequest) logs the subrequests that end in this
	// location, SSI and ESI includes among them, with its access_log.
	logSub server.Setting[bool]
	// cache (open_log_file_cache) keeps the files of logs named with
	// variables open; nil for "off".
	cache server.Setting[*accesslog.FileCache]
}

var module = &server.Module{
	Name: "accesslog",
	Directives: []server.Directive{
		{Name: "log_format", Context: server.CtxHTTP, MinArgs: 2, MaxArgs: server.Unlimited, Set: setLogFormat},
		{Name: "access_log", Context: server.CtxHTTPAll | server.CtxLocationIf | server.CtxLimitExcept, MinArgs: 1, MaxArgs: server.Unlimited, Set: setAccessLog},
		{Name: "log_subrequest", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.logSub })},
		{Name: "open_log_file_cache", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 4, Set: setFileCache},
	},
	NewMain: func() any {
		return &mainConf{formats: map[string]*accesslog.Format{}, files: map[string]*accesslog.File{}}
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.set {
			child.targets, child.off = parent.targets, parent.off
		}
		child.logSub.Merge(parent.logSub)
		child.cache.Merge(parent.cache)
		return nil
	},
}

// locCache is the open_log_file_cache of a location (set in init: the
// directives' functions cannot refer to module in its literal).
var locCache func(*server.Location) *accesslog.FileCache

func init() {
	locCache = func(l *server.Location) *accesslog.FileCache { return server.LocConf[*locConf](l, module).cache.V }
	// Set here, not in the literal: wrap reads module, which would make
	// module's initialisation refer to itself.
	module.Filter = &server.Filter{Wrap: wrap, WrapSub: wrapSub, PerRequest: true}
	server.Register(module)
}

// wrap logs the requests that the location serves first, with the
// access_log of the location they end in: the target of an internal
// redirect (try_files, error_page, index, X-Accel-Redirect) where there
// was one, as NGINX's log phase reads the location configuration the
// request ended with. So a location with access_log off wraps too: a
// request it redirects to a logged location is logged.
func wrap(l *server.Location, next http.Handler) (http.Handler, error) {
	if !logsAnywhere(l) {
		return next, nil
	}
	return accesslog.New(next, accesslog.Options{Choose: targetsOf})
}

// logsAnywhere reports whether l's configuration opened any log file, or
// names one with variables: a configuration without wraps nothing, and
// its requests pay nothing.
func logsAnywhere(l *server.Location) bool {
	srv := l.Server()
	if srv == nil {
		return true
	}
	mc := server.MainConf[*mainConf](srv.Config(), module)
	return len(mc.files) > 0 || mc.named
}

// endConf is the access log settings of the location the request ended in
// (vars.State.Paths, which the server keeps on the location serving it),
// nil outside one.
func endConf(st *vars.State) *locConf {
	loc := server.PathsLocation(st)
	if loc == nil {
		return nil
	}
	return server.LocConf[*locConf](loc, module)
}

// targetsOf is the access_log of the location the request ended in.
func targetsOf(_ *http.Request, st *vars.State) []accesslog.Target {
	if lc := endConf(st); lc != nil && !lc.off {
		return lc.targets
	}
	return nil
}

// wrapSub logs the subrequests that end in a location with
// log_subrequest on, as NGINX does (it reads the setting, as access_log,
// in the location the subrequest ended in): after they finish, so before
// the request that made them.
func wrapSub(l *server.Location, next http.Handler) (http.Handler, error) {
	if !logsAnywhere(l) {
		return next, nil
	}
	return accesslog.New(next, accesslog.Options{Choose: subTargetsOf})
}

// subTargetsOf is targetsOf for a subrequest: none unless the location it
// ended in has log_subrequest on.
func subTargetsOf(_ *http.Request, st *vars.State) []accesslog.Target {
	if lc := endConf(st); lc != nil && !lc.off && lc.logSub.Or(false) {
		return lc.targets
	}
	return nil
}

func setLogFormat(c *server.Cmd) error {
	mc := c.Main().(*mainConf)
	name := c.Args[0]
	if _, dup := mc.formats[name]; dup || name == combined {
		return c.Errorf("duplicate \"log_format\" name %q", name)
	}
	args := c.Args[1:]
	esc := accesslog.EscapeDefault
	if strings.HasPrefix(args[0], "escape=") {
		switch args[0] {
		case "escape=default":
		case "escape=json":
			esc = accesslog.EscapeJSON
		case "escape=none":
			esc = accesslog.EscapeNone
		default:
			return c.Errorf("unknown log format escaping %q", strings.TrimPrefix(args[0], "escape="))
		}
		args = args[1:]
		if len(args) == 0 {
			return c.Errorf("invalid number of arguments in \"log_format\" directive")
		}
	}
	for _, a := range args {
		if err := formatNames(c, a); err != nil {
			return err
		}
	}
	// Compiled in the configuration's scope: a format may name a map's
	// variable.
	t, err := c.Template(strings.Join(args, ""))
	if err != nil {
		return err
	}
	f, err := accesslog.NewFormatTemplate(name, t, esc)
	if err != nil {
		return c.Errorf("%v", err)
	}
	mc.formats[name] = f
	return nil
}

// formatNames refuses a variable of one log_format argument as NGINX
// does: it reads each argument's variables apart (ngx_http_log_compile),
// so a "$" at an argument's end or before no name byte is refused there,
// from that "$" on, as an invalid parameter, and a bracket is closed
// within the argument; joined, 'a$' '$b' and 'a${' 'b}' would read as
// other variables.
func formatNames(c *server.Cmd, arg string) error {
	for {
		i := strings.IndexByte(arg, '$')
		if i < 0 {
			return nil
		}
		_, n, err := vars.ScanName(arg[i+1:])
		if errors.Is(err, vars.ErrInvalidName) {
			return c.Errorf("invalid parameter %q", arg[i:])
		}
		if err != nil {
			return c.Errorf("%v", err)
		}
		arg = arg[i+1+n:]
	}
}

// format returns the format called name. The predefined one is compiled
// when first named, so that a failure is a configuration error rather
// than a panic in NewMain, which cannot return one.
func (mc *mainConf) format(c *server.Cmd, name string) (*accesslog.Format, error) {
	if f, ok := mc.formats[name]; ok {
		return f, nil
	}
	if name != combined {
		// As in NGINX, a format must be defined before it is used.
		return nil, c.Errorf("unknown log format %q", name)
	}
	f, err := accesslog.NewFormat(combined, accesslog.Combined, accesslog.EscapeDefault)
	if err != nil {
		return nil, c.Errorf("predefined log format %q: %v", combined, err)
	}
	mc.formats[combined] = f
	return f, nil
}

func setAccessLog(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	if !lc.set {
		lc.targets, lc.set = nil, true
	}
	if c.Args[0] == "off" {
		if len(c.Args) > 1 {
			return c.Errorf("invalid parameter %q", c.Args[1])
		}
		lc.off = true
		return nil
	}
	mc := c.Main().(*mainConf)
	path := c.Args[0]
	if strings.HasPrefix(path, "syslog:") {
		return c.Errorf("access_log to syslog is not supported, use a file")
	}
	format := combined
	rest := c.Args[1:]
	if len(rest) > 0 && !strings.Contains(rest[0], "=") {
		format, rest = rest[0], rest[1:]
	}
	var size int
	var flush time.Duration
	var cond string
	for _, a := range rest {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "buffer":
			n, err := c.Size(v)
			if err != nil {
				return err
			}
			size = int(n)
		case "flush":
			d, err := c.Duration(v)
			if err != nil {
				return err
			}
			flush = d
		case "gzip":
			return c.Errorf("access_log gzip= is not supported")
		case "if":
			cond = v
		default:
			return c.Errorf("invalid parameter %q", a)
		}
	}
	if flush > 0 && size == 0 {
		size = 64 << 10 // NGINX: flush= implies a 64k buffer
	}
	f, err := mc.format(c, format)
	if err != nil {
		return err
	}
	t := accesslog.Target{Format: f}
	if cond != "" {
		tpl, err := c.Template(cond)
		if err != nil {
			return err
		}
		t.If = tpl
	}
	if strings.Contains(path, "$") {
		// A file named by the request: opened for each line, as NGINX
		// writes such a log, which cannot be buffered.
		if size > 0 {
			return c.Errorf("buffered logs cannot have variables in name")
		}
		name, err := c.Template(path)
		if err != nil {
			return err
		}
		t.Open = openNamed(name, c.Config())
		mc.named = true
		lc.targets = append(lc.targets, t)
		return nil
	}
	t.File, err = mc.file(c, path, size, flush)
	if err != nil {
		return err
	}
	lc.targets = append(lc.targets, t)
	return nil
}

// openNamed opens, for one line, the file that a path with variables
// names: created if need be, appended to, closed after the line, as NGINX
// writes such a log. The values come from the request ($host, $arg_x): a
// name that holds a NUL or a ".." segment is refused with an error-log
// line, where NGINX opens it, so that a client cannot have lines written
// outside the directories the configuration names.
func openNamed(name *vars.Template, cfg *server.Config) func(*http.Request, *vars.State) (io.WriteCloser, error) {
	return func(r *http.Request, st *vars.State) (io.WriteCloser, error) {
		path := name.EvalState(r, st)
		var f io.WriteCloser
		err := checkLogName(path)
		if err == nil {
			// The location the request ended in says whether its files
			// stay open, as NGINX's log phase reads its configuration.
			var cache *accesslog.FileCache
			if loc := server.CurrentLocation(r); loc != nil {
				cache = locCache(loc)
			}
			if cache != nil {
				f, err = cache.Open(path, openAppend)
			} else {
				f, err = openAppend(path)
			}
		}
		if err != nil {
			log := cfg.Logger
			if loc := server.CurrentLocation(r); loc != nil {
				log = loc.Logger()
			}
			log.ErrorContext(r.Context(), fmt.Sprintf("access log %q: %v", path, err))
			return nil, err
		}
		return f, nil
	}
}

func openAppend(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
}

// setFileCache reads "open_log_file_cache max=N [inactive=time]
// [min_uses=N] [valid=time] | off" with NGINX's defaults (10s, 1, 60s).
func setFileCache(c *server.Cmd) error {
	fc := &accesslog.FileCache{Inactive: 10 * time.Second, MinUses: 1, Valid: 60 * time.Second}
	off := false
	for _, a := range c.Args {
		name, val, _ := strings.Cut(a, "=")
		var err error
		switch {
		case a == "off":
			off = true
		case name == "max" && strings.Contains(a, "="):
			fc.Max, err = strconv.Atoi(val)
			err = nonNegative(fc.Max, err)
		case name == "min_uses" && strings.Contains(a, "="):
			fc.MinUses, err = strconv.Atoi(val)
			err = nonNegative(fc.MinUses, err)
		case name == "inactive" && strings.Contains(a, "="):
			fc.Inactive, err = conf.ParseSeconds(val)
		case name == "valid" && strings.Contains(a, "="):
			fc.Valid, err = conf.ParseSeconds(val)
		default:
			err = errors.New("unknown")
		}
		if err != nil {
			return c.Errorf("invalid \"open_log_file_cache\" parameter %q", a)
		}
	}
	lc := c.Loc().(*locConf)
	if off {
		return server.Put(c, &lc.cache, nil)
	}
	if fc.Max == 0 {
		return c.Errorf(`"open_log_file_cache" must have "max" parameter`)
	}
	if err := server.Put(c, &lc.cache, fc); err != nil {
		return err
	}
	// A rotation (the signal to reopen the logs) and the configuration's
	// end close the files kept.
	c.Config().OnReopen(func() error { fc.Close(); return nil })
	c.Config().OnClose(func() error { fc.Retire(); return nil })
	return nil
}

func nonNegative(n int, err error) error {
	if err == nil && n < 0 {
		return errors.New("negative")
	}
	return err
}

// checkLogName refuses a log file name made of the request's values that
// names no file, or one that a client could lead out of its directory.
func checkLogName(path string) error {
	if path == "" || strings.IndexByte(path, 0) >= 0 {
		return errors.New("no valid file name")
	}
	if reqrule.DotDot(path) >= 0 {
		return errors.New(`a ".." segment in the file name`)
	}
	return nil
}

// file returns the log file at path, opening it the first time a line of
// the configuration names it; the buffer settings of that first line hold.
func (mc *mainConf) file(c *server.Cmd, path string, size int, flush time.Duration) (*accesslog.File, error) {
	if f, ok := mc.files[path]; ok {
		return f, nil
	}
	var w io.Writer
	switch path {
	case "/dev/stdout", "stdout":
		w = os.Stdout
	case "/dev/stderr", "stderr":
		w = os.Stderr
	default:
		var err error
		if w, err = c.Config().OpenLogFile(path); err != nil {
			return nil, c.Errorf("%v", err)
		}
	}
	f := accesslog.NewFile(w, size, flush)
	mc.files[path] = f
	c.Config().OnClose(f.Flush)
	c.Config().OnReopen(f.Flush)
	return f, nil
}
