// Package fastcgimod wires the FastCGI client (package fastcgi) to the
// server as NGINX's ngx_http_fastcgi_module: fastcgi_pass to a server, an
// upstream group or a Unix-domain socket, fastcgi_param, fastcgi_index,
// fastcgi_split_path_info with $fastcgi_script_name and
// $fastcgi_path_info, fastcgi_keep_conn, and the directives every gateway
// shares (modules/gatewaymod). The location's content is a proxy.Handler
// speaking FastCGI (proxy.Options.Wire).
package fastcgimod

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/fastcgi"
	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/modules/gatewaymod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the FastCGI directives of one level.
type locConf struct {
	gw       gatewaymod.Conf
	index    server.Setting[string]
	split    server.Setting[*pcre.Regexp]
	keepConn server.Setting[bool]
	passBody server.Setting[bool]
	catch    []string // fastcgi_catch_stderr, inherited as a list
	ownCatch bool
	// lastSplit is the last split this level's expression made (see
	// split), nil before the first.
	lastSplit atomic.Pointer[splitMemo]
}

// splitMemo is one URI split by fastcgi_split_path_info; err is a match
// that could not complete (pcre.MatchError).
type splitMemo struct {
	uri, script, info string
	err               error
}

var module = &server.Module{
	Name:   "fastcgi",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.gw.Merge(&parent.gw)
		child.index.Merge(parent.index)
		child.split.Merge(parent.split)
		child.keepConn.Merge(parent.keepConn)
		child.passBody.Merge(parent.passBody)
		if !child.ownCatch {
			child.catch = parent.catch
		}
		return child.gw.CheckBuffers("fastcgi")
	},
}

func init() {
	module.Directives = append(gatewaymod.Directives("fastcgi", func(l *locConf) *gatewaymod.Conf { return &l.gw }),
		server.Directive{Name: "fastcgi_index", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.Put(c, &c.Loc().(*locConf).index, c.Args[0])
		}},
		server.Directive{Name: "fastcgi_split_path_info", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setSplit},
		server.Directive{Name: "fastcgi_send_lowat", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			// SO_SNDLOWAT, which Linux does not let a program set; a size
			// all the same, as NGINX reads it.
			if _, err := c.Size(c.Args[0]); err != nil {
				return err
			}
			c.Notice(fmt.Sprintf("ignoring %q directive", c.Name))
			return nil
		}},
		server.Directive{Name: "fastcgi_pass_request_body", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).passBody)
		}},
		server.Directive{Name: "fastcgi_catch_stderr", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			lc := c.Loc().(*locConf)
			if !lc.ownCatch {
				lc.catch, lc.ownCatch = nil, true
			}
			lc.catch = append(lc.catch, c.Args[0])
			return nil
		}},
		server.Directive{Name: "fastcgi_keep_conn", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *server.Cmd) error {
			return server.PutFlag(c, &c.Loc().(*locConf).keepConn)
		}},
	)
	uri, ok := vars.Lookup("uri")
	if !ok {
		panic("fastcgimod: no $uri")
	}
	vars.Register("fastcgi_script_name", func(r *http.Request, st *vars.State) string {
		lc := current(r, st)
		name, _, err := split(lc, uri(r, st))
		if err != nil {
			return splitFailed(r, st, err)
		}
		if lc != nil && lc.index.V != "" && strings.HasSuffix(name, "/") {
			name += lc.index.V // (without fastcgi_index, no concatenation to make)
		}
		return name
	})
	vars.RegisterAlways("fastcgi_path_info", func(r *http.Request, st *vars.State) string {
		_, info, err := split(current(r, st), uri(r, st))
		if err != nil {
			return splitFailed(r, st, err)
		}
		return info
	})
	module.Content = gateway.Content
	server.Register(module)
}

// setSplit reads fastcgi_split_path_info: a regular expression with two
// captures, the script's name and the path info after it.
func setSplit(c *server.Cmd) error {
	re, err := pcre.Compile(c.Args[0], false)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if re.NumCaptures() != 2 {
		return c.Errorf("pattern \"%s\" must have 2 captures", c.Args[0])
	}
	return server.Put(c, &c.Loc().(*locConf).split, re)
}

// current returns the FastCGI settings of the location serving r. The
// server keeps that location in st.Paths, where $document_root reads it,
// so "$document_root$fastcgi_script_name" takes both from one location,
// as NGINX reads both from r->loc_conf. Asking st is a type test where
// server.CurrentLocation walks the request's context (about 60
// instructions, twice a request with fastcgi.conf's SCRIPT_FILENAME and
// SCRIPT_NAME); without a State (outside the server) the walk stays.
func current(r *http.Request, st *vars.State) *locConf {
	if l := location(r, st); l != nil {
		return server.LocConf[*locConf](l, module)
	}
	return nil
}

// location is the location serving r, nil outside the server.
func location(r *http.Request, st *vars.State) *server.Location {
	if st != nil {
		if l := server.PathsLocation(st); l != nil {
			return l
		}
	}
	return server.CurrentLocation(r)
}

// splitFailed logs a split whose match could not complete and returns
// the variable's value, empty. NGINX's ngx_http_fastcgi_split logs an
// alert and its getters fail, which leaves the variable empty: the
// request goes on (SCRIPT_NAME and PATH_INFO sent empty), it is not
// refused. NGINX matches again, and logs again, at each read; here the
// failed split is kept as a good one is, so a runaway match is not run
// once per read, but each read still logs.
func splitFailed(r *http.Request, st *vars.State, err error) string {
	lg := slog.Default()
	if l := location(r, st); l != nil {
		lg = l.Logger()
	}
	lg.LogAttrs(r.Context(), server.LevelAlert, err.Error())
	return ""
}

// split divides the URI as fastcgi_split_path_info says: the first
// capture is the script's name, the second the path info; without the
// directive, or when the expression does not match, the whole URI is the
// script's name. err is a match that could not complete (NGINX's
// match limit; pcre.MatchError's line).
//
// A request reads the split two to four times (SCRIPT_FILENAME,
// SCRIPT_NAME, PATH_INFO, a try_files of $fastcgi_script_name), where
// NGINX matches once and keeps the parts in the request's context. The
// parts depend on the expression and the URI alone, so the level keeps
// its last split and a read of the same URI takes it without matching
// again: exact whatever read it last, a request of this location or
// another one (requests that interleave only match again).
func split(lc *locConf, uri string) (script, info string, err error) {
	if lc == nil || lc.split.V == nil {
		return uri, "", nil
	}
	if m := lc.lastSplit.Load(); m != nil && m.uri == uri {
		return m.script, m.info, m.err
	}
	m := &splitMemo{uri: uri, script: uri}
	switch caps, err := lc.split.V.Match(uri); {
	case err != nil:
		m.script, m.err = "", pcre.MatchError(err, uri, lc.split.V)
	case len(caps) >= 3:
		m.script, m.info = caps[1], caps[2]
	}
	lc.lastSplit.Store(m)
	return m.script, m.info, m.err
}

// gateway builds a location's handler: a proxy speaking FastCGI.
var gateway = gatewaymod.Gateway{
	Conf: func(l *server.Location) *gatewaymod.Conf { return &server.LocConf[*locConf](l, module).gw },
	Wire: func(l *server.Location, g *gatewaymod.Conf) proxy.Wire {
		lc := server.LocConf[*locConf](l, module)
		log, upstream := l.Logger(), g.Pass.Scheme+"://"+g.Pass.Addr()
		// logLine writes a line about r to the location's error log with
		// the request's context, as NGINX's upstream lines have it.
		logLine := func(r *http.Request, level slog.Level, msg string) {
			client, _, _ := net.SplitHostPort(r.RemoteAddr)
			log.LogAttrs(r.Context(), level, msg,
				slog.String("client", client),
				slog.String("request", r.Method+" "+r.RequestURI+" "+r.Proto),
				slog.String("upstream", upstream),
				slog.String("host", r.Host))
		}
		return &fastcgi.Client{
			Params:      g.Params().Encoder(&fastcgi.Pairs),
			KeepConn:    lc.keepConn.V,
			MaxHeader:   g.BufferSize(),
			DropBody:    !lc.passBody.Or(true),
			CatchStderr: lc.catch,
			Stderr: func(r *http.Request, text string) {
				logLine(r, slog.LevelError, "FastCGI sent in stderr: \""+text+"\"")
			},
			Warn:  func(r *http.Request, text string) { logLine(r, slog.LevelWarn, text) },
			Error: func(r *http.Request, text string) { logLine(r, slog.LevelError, text) },
		}
	},
}

// NewHandler builds the FastCGI gateway of location l, and false when l
// has no fastcgi_pass. adjust, when set, changes the proxy options last
// (the cache reports failures through them).
func NewHandler(l *server.Location, adjust func(*proxy.Options)) (*proxy.Handler, bool, error) {
	return gateway.NewHandler(l, adjust)
}

// IgnoredHeaders is fastcgi_ignore_headers of location l, which the cache
// in front of its gateway (fastcgi_cache) also obeys.
func IgnoredHeaders(l *server.Location) []string {
	return server.LocConf[*locConf](l, module).gw.IgnoredHeaders()
}
