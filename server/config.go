package server

import (
	"crypto/tls"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/vars"
)

// Config is one loaded configuration: every virtual server with its
// locations, built handlers included. A reload builds a new Config and
// swaps it in whole.
type Config struct {
	File   string
	Logger *slog.Logger
	// mergeErr is the first error of a value compiled, in NGINX, when the
	// http block's levels are merged (Cmd.MergeTemplate).
	mergeErr string

	WorkerProcesses int // 0 = auto
	// shutdownLimit is worker_shutdown_timeout (ShutdownTimeout).
	shutdownLimit Setting[time.Duration]
	// PidFile is the absolute path of the "pid" directive's file, "" for
	// none: the command writes its process ID there (package server only
	// reads the directive).
	PidFile string

	mains   []any
	http    *Location // the http level's settings
	servers []*VServer
	// addrs groups the servers by listening address.
	addrs       map[string]*addrGroup
	threadPools map[string]*ThreadPool
	// vars holds the variables the configuration defines (map, set).
	vars     *vars.Scope
	notices  []string
	closers  []func() error
	logFiles map[string]*logFile
	// reopeners run before the log files are reopened (OnReopen).
	reopeners []func() error
	// charsets are the charset names that "charset",
	// "source_charset" and "charset_map" declare, lower-cased: those an
	// upstream's X-Accel-Charset may name (NGINX's charset module list).
	charsets map[string]bool
	// charsetMaps are the charset_map blocks.
	charsetMaps charsetMaps

	// refs counts the requests being served with the configuration, plus
	// one while it is the runtime's current one: a retired configuration
	// closes (thread pools, log files) as its last request ends.
	refs      atomic.Int64
	closeOnce sync.Once
}

// hold returns the configuration in force with a reference taken for one
// request, which release gives back.
func hold(cur *atomic.Pointer[Config]) *Config {
	for {
		c := cur.Load()
		c.refs.Add(1)
		if cur.Load() == c {
			// Still current after the reference was taken: the runtime's
			// own reference was not dropped yet, so c cannot have closed.
			return c
		}
		// Retired in between, perhaps closed already: serve with the new
		// one instead.
		c.release()
	}
}

// release gives back a reference; the last one closes the configuration,
// away from the request that held it.
func (c *Config) release() {
	if c.refs.Add(-1) == 0 {
		go c.close()
	}
}

// Servers returns the virtual servers in configuration order.
func (c *Config) Servers() []*VServer { return c.servers }

// HTTP returns the http level, whose settings the servers inherit.
func (c *Config) HTTP() *Location { return c.http }

// Vars returns the configuration's own variables (map, set): modules
// define theirs there while the configuration loads.
func (c *Config) Vars() *vars.Scope { return c.vars }

// Notices returns the notices produced while loading (ignored directives).
func (c *Config) Notices() []string { return c.notices }

// OnClose registers cleanup to run when the configuration is retired.
func (c *Config) OnClose(f func() error) { c.closers = append(c.closers, f) }

// Listen is one "listen" directive.
type Listen struct {
	Addr          string // host:port, or unix:/path
	SSL           bool
	HTTP2         bool
	DefaultServer bool
	// ProxyProtocol: connections start with a PROXY protocol header.
	ProxyProtocol bool
	// Opts are the line's socket parameters, nil when it sets none.
	Opts *SocketOpts
	dir  *conf.Directive // the line, for errors found across servers
}

// VServer is one "server {}" block.
type VServer struct {
	names   []serverName
	listens []Listen
	level   *Location // server-level settings; requests matching no location use it
	locs    *locationTree
	named   map[string]*Location
	certs   []tls.Certificate // ssl_certificate, its own or inherited
	dynamic *dynamicCerts     // in place of certs, names with variables
	tls     *serverTLS        // the handshake settings, nil without certs
	cfg     *Config
	file    string
	line    int

	// implicit holds the locations of "if" blocks, in the order read
	// (a block's parent comes before it), for merging and building.
	implicit []*Location
	// postRead are the modules' post-read steps (Module.PostRead).
	postRead []func(*http.Request)
}

// Name returns the first server_name, as $server_name does.
func (s *VServer) Name() string {
	if len(s.names) == 0 {
		return ""
	}
	return s.names[0].raw
}

// Names returns the server_name entries: the names and wildcards,
// lower-case as the server matches them, and the regular expressions,
// compiled as the server runs them. The empty name of a server without
// server_name, or written "", is among them: NGINX keeps it in the list
// (valid_referers server_names takes it, and a Referer with an empty host
// is then valid).
func (s *VServer) Names() (names []string, regexes []*pcre.Regexp) {
	for _, n := range s.names {
		if n.re != nil {
			regexes = append(regexes, n.re.Regexp)
		} else {
			names = append(names, n.raw)
		}
	}
	return names, regexes
}

// Config returns the configuration the server belongs to.
func (s *VServer) Config() *Config { return s.cfg }

type levelKind int

const (
	levelHTTP levelKind = iota
	levelServer
	levelPrefix
	levelExact
	levelNoRegex // ^~
	levelRegex
	levelNamed
	levelIf // an "if" block: an implicit location inside its parent
	// levelLimitExcept is a "limit_except" block: an implicit location
	// that serves its parent's requests with the methods it does not list.
	levelLimitExcept
)

// Location is a location block, or the http or server level that holds
// settings for the locations below it.
type Location struct {
	pattern string
	kind    levelKind
	re      *regex
	parent  *Location
	server  *VServer
	confs   []any
	nested  *locationTree
	file    string
	line    int
	// autoRedirect is NGINX's auto_redirect: a gateway serves the prefix
	// or exact location, whose name ends with "/" (Cmd.AutoRedirect).
	autoRedirect bool
	// limitExcept is the "limit_except" block, which serves the methods
	// not in limitAllowed.
	limitExcept  *Location
	limitAllowed map[string]bool

	content    http.Handler // the content with the core's steps
	handler    http.Handler // the full chain
	subHandler http.Handler // the chain for subrequests
	// output and subOutput are the output filters and the content, the
	// chains without the request filters: what an internal redirect to
	// the location runs (filterlayer.go).
	output, subOutput http.Handler
	// atHeader is the output filter, if any, whose writer the
	// location's gate puts under itself as the response's header goes
	// out (Filter.AtHeader).
	atHeader func(w http.ResponseWriter, r *http.Request) http.ResponseWriter
}

// Pattern returns the location's match text (the prefix, the regex, or
// @name).
func (l *Location) Pattern() string { return l.pattern }

// Prefix returns the matched prefix for prefix, exact and ^~ locations,
// and "" for regex and named ones (proxy_pass uses it to replace the URI).
func (l *Location) Prefix() string {
	switch l.kind {
	case levelPrefix, levelExact, levelNoRegex:
		return l.pattern
	case levelIf, levelLimitExcept:
		return l.parent.Prefix()
	}
	return ""
}

// IsRegex reports a ~ or ~* location.
// An "if" block is one when its location is: it maps URIs to files as
// its location does.
func (l *Location) IsRegex() bool {
	if l.kind == levelIf {
		return l.parent.IsRegex()
	}
	return l.kind == levelRegex
}

// IsNamed reports an @name location.
func (l *Location) IsNamed() bool { return l.kind == levelNamed }

// Server returns the virtual server the location belongs to, nil at http
// level.
func (l *Location) Server() *VServer { return l.server }

// Pos returns where the location was declared.
func (l *Location) Pos() string {
	if l.file == "" {
		return "(built-in)"
	}
	return l.file + ":" + itoa(l.line)
}

func (l *Location) String() string {
	switch l.kind {
	case levelHTTP:
		return "http"
	case levelServer:
		return "server"
	case levelExact:
		return "location = " + l.pattern
	case levelNoRegex:
		return "location ^~ " + l.pattern
	case levelIf:
		return "if in " + l.parent.String()
	case levelRegex:
		if l.re.caseless {
			return "location ~* " + l.pattern
		}
		return "location ~ " + l.pattern
	}
	if l.kind == levelLimitExcept {
		return "limit_except in " + l.parent.String()
	}
	return "location " + l.pattern
}
