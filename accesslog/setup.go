package accesslog

import (
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/server"
)

type mainConf struct {
	formats map[string]*Format
	files   map[string]*File
}

type locConf struct {
	targets []Target
	set     bool // access_log given at this level (off included)
	off     bool
}

var module = &server.Module{
	Name: "accesslog",
	NewMain: func() any {
		combined, err := NewFormat("combined", Combined, EscapeDefault)
		if err != nil {
			panic(err)
		}
		return &mainConf{formats: map[string]*Format{"combined": combined}, files: map[string]*File{}}
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		if !child.set {
			child.targets, child.off = parent.targets, parent.off
		}
		return nil
	},
}

func init() {
	module.Directives = []server.Directive{
		{Name: "log_format", Context: server.CtxHTTP, MinArgs: 2, MaxArgs: server.Unlimited, Set: setLogFormat},
		{Name: "access_log", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: server.Unlimited, Set: setAccessLog},
	}
	module.Filter = &server.Filter{
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			if lc.off {
				return next, nil
			}
			return Handler(next, lc.targets), nil
		},
	}
	server.Register(module)
}

func setLogFormat(c *server.Cmd) error {
	mc := c.Main().(*mainConf)
	name := c.Args[0]
	if _, dup := mc.formats[name]; dup {
		return c.Errorf("duplicate \"log_format\" name %q", name)
	}
	args := c.Args[1:]
	esc := EscapeDefault
	if strings.HasPrefix(args[0], "escape=") {
		switch args[0] {
		case "escape=default":
		case "escape=json":
			esc = EscapeJSON
		case "escape=none":
			esc = EscapeNone
		default:
			return c.Errorf("unknown log format escaping %q", strings.TrimPrefix(args[0], "escape="))
		}
		args = args[1:]
		if len(args) == 0 {
			return c.Errorf("invalid number of arguments in \"log_format\" directive")
		}
	}
	f, err := NewFormat(name, strings.Join(args, ""), esc)
	if err != nil {
		return c.Errorf("%v", err)
	}
	mc.formats[name] = f
	return nil
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
	format := "combined"
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
	fmtc, ok := mc.formats[format]
	if !ok {
		// As in NGINX, a format must be defined before it is used.
		return c.Errorf("unknown log format %q", format)
	}
	t := Target{Format: fmtc}
	if cond != "" {
		tpl, err := c.Template(cond)
		if err != nil {
			return err
		}
		t.If = tpl
	}
	f, ok := mc.files[path]
	if !ok {
		var w *os.File
		if path == "/dev/stdout" || path == "stdout" {
			w = os.Stdout
		} else if path == "/dev/stderr" || path == "stderr" {
			w = os.Stderr
		} else {
			var err error
			if w, err = c.Config().OpenLogFile(path); err != nil {
				return c.Errorf("%v", err)
			}
		}
		f = NewFile(w, size, flush)
		mc.files[path] = f
		c.Config().OnClose(f.Flush)
	}
	t.File = f
	lc.targets = append(lc.targets, t)
	return nil
}
