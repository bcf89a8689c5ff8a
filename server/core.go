package server

import (
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/http1"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/internal/useragent"
	"github.com/mosaic-edge/mosaic/vars"
)

// coreLoc is the core's per-location settings.
type coreLoc struct {
	root Setting[*vars.Template]
	// aliasIn is the location that declared root as an alias, nil for a
	// root. The locations inside inherit it with the alias: the part of
	// the URI the alias replaces is its prefix, not theirs (NGINX keeps
	// the length of the declaring location's name in clcf->alias), and a
	// regex location's alias, the whole path, stays whole.
	aliasIn *Location
	// docRoot is $document_root where root has no variables: made once,
	// when the level is merged, for the requests that read it (FastCGI's
	// parameters, twice each); docRootFixed says it is.
	docRoot       string
	docRootFixed  bool
	internal      bool
	tryFiles      []string
	steps         *[]RewriteStep // return, rewrite, set, if...: not inherited
	errorPages    map[int]errorPage
	clientMaxBody Setting[int64]
	keepalive     Setting[time.Duration]
	// "Keep-Alive" value from keepalive_timeout's second parameter, nil
	// for none. NGINX merges it apart from the timeout: a line without it
	// keeps the level above's.
	keepaliveHdr  Setting[[]string]
	keepaliveReqs Setting[int]
	// keepaliveOff is keepalive_disable: the browsers whose connection
	// closes after the response (kaMSIE6, kaSafari).
	keepaliveOff Setting[uint8]
	// keepaliveTime is keepalive_time: how long one connection may go on
	// serving requests.
	keepaliveTime Setting[time.Duration]
	headerBufs    Setting[OutputBuffers] // large_client_header_buffers
	lingerMode    Setting[http1.LingerMode]
	lingerTime    Setting[time.Duration]
	lingerTimeout Setting[time.Duration]
	headerTimeout Setting[time.Duration]
	bodyTimeout   Setting[time.Duration]
	sendTimeout   Setting[time.Duration]
	types         Setting[*Types]
	defaultType   Setting[string]
	outputBufs    Setting[OutputBuffers]
	subOutput     Setting[int64] // subrequest_output_buffer_size
	errorLog      Setting[*slog.Logger]
	ownPages      bool
	sslProtocols  Setting[[2]uint16]
	sslCerts      Setting[sslFiles] // ssl_certificate
	sslKeys       Setting[sslFiles] // ssl_certificate_key
	sslOn         Setting[bool]     // the deprecated "ssl on"
	sslOnAt       string            // where "ssl" was set, for its error
	// URI and redirects.
	mergeSlashes   Setting[bool]
	absRedirect    Setting[bool]
	portInRedirect Setting[bool]
	nameInRedirect Setting[bool]        // server_name_in_redirect
	recursivePages Setting[bool]        // recursive_error_pages
	msiePadding    Setting[bool]        // msie_padding
	resetTimedOut  Setting[bool]        // reset_timedout_connection
	chunkedOff     Setting[bool]        // chunked_transfer_encoding off
	msieRefresh    Setting[bool]        // msie_refresh
	symlinks       Setting[symlinkConf] // disable_symlinks
	// The charset directives (charset.go).
	charset         Setting[string] // "" for off
	charsetAt       string
	sourceCharset   Setting[string]
	sourceCharsetAt string
	overrideCharset Setting[bool]
	charsetTypes    Setting[charsetTypes]
	// charsetMaps are the configuration's charset_map tables, set with
	// charset or source_charset and inherited with them: what
	// checkCharsets looks in once the levels are merged.
	charsetMaps *charsetMaps
	// Request buffers.
	bodyBuffer    Setting[int64] // client_body_buffer_size
	bodyTemp      Setting[TempPath]
	bodyFileOnly  Setting[bodyFileOnly] // client_body_in_file_only
	bodySingle    Setting[bool]         // client_body_in_single_buffer
	headerBuffer  Setting[int64]        // client_header_buffer_size
	underscores   Setting[bool]         // underscores_in_headers
	ignoreInvalid Setting[bool]         // ignore_invalid_headers
	maxHeaders    Setting[int]          // max_headers
	// The access phase (access.go).
	satisfy   Setting[bool] // satisfyAny for "satisfy any"
	authDelay Setting[time.Duration]
	// postAction is post_action's URI or @name, run once the response
	// has gone out (postaction.go); not set: none.
	postAction Setting[string]
}

// OutputBuffers is the "number size" of output_buffers (and of
// large_client_header_buffers).
type OutputBuffers struct {
	Number int
	Size   int
}

var coreModule = &Module{
	Name:     "core",
	NewLoc:   func() any { return &coreLoc{} },
	MergeLoc: mergeCoreLoc,
}

func init() {
	coreModule.Directives = []Directive{
		{Name: "worker_processes", Context: CtxMain, MinArgs: 1, MaxArgs: 1, Set: setWorkerProcesses},
		{Name: "worker_shutdown_timeout", Context: CtxMain, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			return Put(c, &c.Config().shutdownLimit, d)
		}},
		{Name: "pid", Context: CtxMain, MinArgs: 1, MaxArgs: 1, Set: setPid},
		{Name: "error_log", Context: CtxMain | CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setErrorLog},
		{Name: "events", Context: CtxMain, Block: true, Set: func(c *Cmd) error { return c.Walk(CtxEvents, c.Block, nil) }},
		{Name: "http", Context: CtxMain, Block: true, Set: setHTTP},
		{Name: "thread_pool", Context: CtxMain, MinArgs: 2, MaxArgs: 3, Set: setThreadPool},
		{Name: "server", Context: CtxHTTP, Block: true, Set: setServer},
		{Name: "listen", Context: CtxServer, MinArgs: 1, MaxArgs: Unlimited, Set: setListen},
		{Name: "server_name", Context: CtxServer, MinArgs: 1, MaxArgs: Unlimited, Set: setServerName},
		{Name: "ssl_certificate", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: setCertificate(false)},
		{Name: "ssl_certificate_key", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: setCertificate(true)},
		{Name: "ssl", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: setSSL},
		{Name: "ssl_protocols", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: Unlimited, Set: setSSLProtocols},
		{Name: "location", Context: CtxServer | CtxLocation, Block: true, MinArgs: 1, MaxArgs: 2, Set: setLocation},
		{Name: "types", Context: CtxHTTPAll, Block: true, Set: setTypes},
		{Name: "default_type", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			return Put(c, &c.Loc().(*coreLoc).defaultType, c.Args[0])
		}},
		{Name: "root", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: setRoot(false)},
		{Name: "post_action", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			// Any text, as NGINX's string slot takes it: "off" too, which
			// names a location "off" (see postaction.go).
			return Put(c, &c.Loc().(*coreLoc).postAction, c.Args[0])
		}},
		{Name: "alias", Context: CtxLocation, MinArgs: 1, MaxArgs: 1, Set: setRoot(true)},
		{Name: "internal", Context: CtxLocation, MaxArgs: 0, Set: func(c *Cmd) error {
			cl := c.Loc().(*coreLoc)
			if cl.internal {
				return c.Duplicate() // as NGINX, which refuses a second line
			}
			cl.internal = true
			return nil
		}},
		{Name: "try_files", Context: CtxServer | CtxLocation, MinArgs: 2, MaxArgs: Unlimited, Set: setTryFiles},
		{Name: "return", Context: CtxServer | CtxLocation | CtxServerIf | CtxLocationIf, MinArgs: 1, MaxArgs: 2, Set: setReturn},
		{Name: "error_page", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 2, MaxArgs: Unlimited, Set: setErrorPage},
		{Name: "client_max_body_size", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Offset(c.Args[0])
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).clientMaxBody, n)
		}},
		{Name: "keepalive_timeout", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setKeepalive},
		{Name: "keepalive_requests", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Int(c.Args[0], 0, int(^uint(0)>>1))
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).keepaliveReqs, n)
		}},
		{Name: "keepalive_time", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).keepaliveTime, d)
		}},
		{Name: "large_client_header_buffers", Context: CtxHTTP | CtxServer, MinArgs: 2, MaxArgs: 2, Set: setHeaderBuffers},
		{Name: "underscores_in_headers", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.underscores })},
		{Name: "ignore_invalid_headers", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.ignoreInvalid })},
		// Debian's NGINX 1.22.1 has it from a security update (upstream
		// 1.29): how many header fields a request may have.
		{Name: "max_headers", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Int(c.Args[0], 0, int(^uint(0)>>1))
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).maxHeaders, n)
		}},
		{Name: "lingering_close", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setLingeringClose},
		{Name: "lingering_time", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetTime(func(cl *coreLoc) *Setting[time.Duration] { return &cl.lingerTime })},
		{Name: "lingering_timeout", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetTime(func(cl *coreLoc) *Setting[time.Duration] { return &cl.lingerTimeout })},
		{Name: "client_header_timeout", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: SetTime(func(cl *coreLoc) *Setting[time.Duration] { return &cl.headerTimeout })},
		{Name: "client_body_timeout", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetTime(func(cl *coreLoc) *Setting[time.Duration] { return &cl.bodyTimeout })},
		{Name: "send_timeout", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetTime(func(cl *coreLoc) *Setting[time.Duration] { return &cl.sendTimeout })},
		{Name: "merge_slashes", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.mergeSlashes })},
		{Name: "absolute_redirect", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.absRedirect })},
		{Name: "port_in_redirect", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.portInRedirect })},
		{Name: "server_name_in_redirect", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.nameInRedirect })},
		{Name: "recursive_error_pages", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.recursivePages })},
		{Name: "msie_padding", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.msiePadding })},
		{Name: "reset_timedout_connection", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.resetTimedOut })},
		{Name: "chunked_transfer_encoding", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			on, err := c.Flag()
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).chunkedOff, !on)
		}},
		{Name: "msie_refresh", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.msieRefresh })},
		{Name: "disable_symlinks", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setDisableSymlinks},
		{Name: "charset", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: setCharset(false)},
		{Name: "source_charset", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: setCharset(true)},
		{Name: "override_charset", Context: CtxHTTPAll | CtxLocationIf, MinArgs: 1, MaxArgs: 1, Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.overrideCharset })},
		{Name: "charset_types", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: Unlimited, Set: setCharsetTypes},
		{Name: "charset_map", Context: CtxHTTP, Block: true, MinArgs: 2, MaxArgs: 2, Set: setCharsetMap},
		{Name: "client_body_buffer_size", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).bodyBuffer, n)
		}},
		{Name: "client_body_temp_path", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 4, Set: setBodyTempPath},
		{Name: "client_body_in_file_only", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setBodyFileOnly},
		// NGINX sizes its reading buffer so that a small body ends up in
		// one piece; mosaic keeps a body in memory in one piece always,
		// and $request_body is the same either way. The setting is kept
		// for NGINX's check of a second line ("is duplicate").
		{Name: "client_body_in_single_buffer", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: SetFlag(func(cl *coreLoc) *Setting[bool] { return &cl.bodySingle })},
		{Name: "client_header_buffer_size", Context: CtxHTTP | CtxServer, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil || n < 1 || n > 1<<20 {
				return c.Invalid(c.Args[0], "")
			}
			return Put(c, &c.Loc().(*coreLoc).headerBuffer, n)
		}},
		{Name: "satisfy", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setSatisfy},
		{Name: "auth_delay", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setAuthDelay},
		{Name: "limit_except", Context: CtxLocation, Block: true, MinArgs: 1, MaxArgs: Unlimited, Set: setLimitExcept},
		// One or two values, as NGINX (NGX_CONF_TAKE12).
		{Name: "keepalive_disable", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 2, Set: setKeepaliveDisable},
		{Name: "subrequest_output_buffer_size", Context: CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *Cmd) error {
			n, err := c.Size(c.Args[0])
			if err != nil {
				return err
			}
			if n < 1 || n > 1<<30 {
				return c.Invalid(c.Args[0], "it must be 1..1g")
			}
			return Put(c, &c.Loc().(*coreLoc).subOutput, n)
		}},
		{Name: "output_buffers", Context: CtxHTTPAll, MinArgs: 2, MaxArgs: 2, Set: func(c *Cmd) error {
			b, err := c.buffers(1<<16, 1, 1<<30)
			if err != nil {
				return err
			}
			return Put(c, &c.Loc().(*coreLoc).outputBufs, b)
		}},
	}
	Register(coreModule)
}

func mergeCoreLoc(p, c any) error {
	parent, child := p.(*coreLoc), c.(*coreLoc)
	// "internal" is inherited by the locations inside, and by the
	// implicit ones of "if" and "limit_except", as NGINX merges it.
	child.internal = child.internal || parent.internal
	if !child.root.Set {
		child.root, child.aliasIn = parent.root, parent.aliasIn
	}
	if !child.ownPages {
		child.errorPages = parent.errorPages
	}
	child.clientMaxBody.Merge(parent.clientMaxBody)
	child.keepaliveHdr.Merge(parent.keepaliveHdr)
	child.keepalive.Merge(parent.keepalive)
	child.keepaliveReqs.Merge(parent.keepaliveReqs)
	child.keepaliveOff.Merge(parent.keepaliveOff)
	child.keepaliveTime.Merge(parent.keepaliveTime)
	child.headerBufs.Merge(parent.headerBufs)
	child.lingerMode.Merge(parent.lingerMode)
	child.lingerTime.Merge(parent.lingerTime)
	child.lingerTimeout.Merge(parent.lingerTimeout)
	child.headerTimeout.Merge(parent.headerTimeout)
	child.bodyTimeout.Merge(parent.bodyTimeout)
	child.sendTimeout.Merge(parent.sendTimeout)
	child.types.Merge(parent.types)
	child.defaultType.Merge(parent.defaultType)
	child.outputBufs.Merge(parent.outputBufs)
	child.subOutput.Merge(parent.subOutput)
	child.errorLog.Merge(parent.errorLog)
	child.sslProtocols.Merge(parent.sslProtocols)
	child.sslCerts.Merge(parent.sslCerts)
	child.sslKeys.Merge(parent.sslKeys)
	if !child.sslOn.Set {
		child.sslOn, child.sslOnAt = parent.sslOn, parent.sslOnAt
	}
	child.underscores.Merge(parent.underscores)
	child.ignoreInvalid.Merge(parent.ignoreInvalid)
	child.maxHeaders.Merge(parent.maxHeaders)
	child.mergeSlashes.Merge(parent.mergeSlashes)
	child.absRedirect.Merge(parent.absRedirect)
	child.msiePadding.Merge(parent.msiePadding)
	child.resetTimedOut.Merge(parent.resetTimedOut)
	child.chunkedOff.Merge(parent.chunkedOff)
	child.msieRefresh.Merge(parent.msieRefresh)
	child.symlinks.Merge(parent.symlinks)
	child.portInRedirect.Merge(parent.portInRedirect)
	child.nameInRedirect.Merge(parent.nameInRedirect)
	child.recursivePages.Merge(parent.recursivePages)
	child.overrideCharset.Merge(parent.overrideCharset)
	if !child.charset.Set {
		child.charset, child.charsetAt = parent.charset, parent.charsetAt
	}
	if !child.sourceCharset.Set {
		child.sourceCharset, child.sourceCharsetAt = parent.sourceCharset, parent.sourceCharsetAt
	}
	if child.charsetMaps == nil {
		child.charsetMaps = parent.charsetMaps
	}
	child.charsetTypes.Merge(parent.charsetTypes)
	child.bodyBuffer.Merge(parent.bodyBuffer)
	child.bodyTemp.Merge(parent.bodyTemp)
	child.bodyFileOnly.Merge(parent.bodyFileOnly)
	child.bodySingle.Merge(parent.bodySingle)
	child.headerBuffer.Merge(parent.headerBuffer)
	child.satisfy.Merge(parent.satisfy)
	child.authDelay.Merge(parent.authDelay)
	child.postAction.Merge(parent.postAction)
	// Defaults, applied where neither level set a value.
	if !child.root.Set {
		child.root.V = vars.MustCompile("html")
	}
	if !child.clientMaxBody.Set {
		child.clientMaxBody.V = 1 << 20
	}
	if !child.keepalive.Set {
		child.keepalive.V = 75 * time.Second
	}
	if !child.keepaliveReqs.Set {
		child.keepaliveReqs.V = 1000
	}
	if !child.keepaliveOff.Set {
		child.keepaliveOff.V = kaMSIE6 // NGINX's default
	}
	if !child.keepaliveTime.Set {
		child.keepaliveTime.V = time.Hour
	}
	if !child.lingerTime.Set {
		child.lingerTime.V = 30 * time.Second
	}
	if !child.lingerTimeout.Set {
		child.lingerTimeout.V = 5 * time.Second
	}
	if !child.headerBufs.Set {
		child.headerBufs.V = OutputBuffers{Number: 4, Size: 8 << 10}
	}
	for _, t := range []*Setting[time.Duration]{&child.headerTimeout, &child.bodyTimeout, &child.sendTimeout} {
		if !t.Set {
			t.V = 60 * time.Second // NGINX's default for all three
		}
	}
	if !child.ignoreInvalid.Set {
		child.ignoreInvalid.V = true
	}
	if !child.maxHeaders.Set {
		child.maxHeaders.V = 1000
	}
	if !child.defaultType.Set {
		child.defaultType.V = "text/plain"
	}
	if !child.outputBufs.Set {
		child.outputBufs.V = OutputBuffers{Number: 2, Size: 32 << 10}
	}
	if !child.subOutput.Set {
		child.subOutput.V = int64(os.Getpagesize()) // NGINX's 4k|8k
	}
	for _, f := range []*Setting[bool]{&child.mergeSlashes, &child.absRedirect, &child.portInRedirect, &child.msiePadding} {
		if !f.Set {
			f.V = true // on by default, as in NGINX
		}
	}
	if !child.charsetTypes.Set {
		child.charsetTypes.V = defaultCharsetTypes
	}
	if !child.bodyBuffer.Set {
		child.bodyBuffer.V = 16 << 10 // NGINX's two pages on 64-bit systems
	}
	if !child.headerBuffer.Set {
		child.headerBuffer.V = 1 << 10
	}
	if t := child.root.V; t != nil && t.Static() {
		child.docRoot, child.docRootFixed = documentRoot(t.Literal(), t.String(), child.aliasIn != nil), true
	}
	return checkCharsets(child)
}

// setKeepalive reads "keepalive_timeout timeout [header_timeout]": the
// second value is announced to clients in "Keep-Alive: timeout=N".
func setKeepalive(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	if err := Put(c, &cl.keepalive, d); err != nil {
		return err
	}
	if len(c.Args) == 2 {
		h, err := c.Seconds(c.Args[1])
		if err != nil {
			return err
		}
		// NGINX sends the header only for a time of a second or more.
		var hdr []string
		if secs := int64(h / time.Second); secs > 0 {
			hdr = []string{"timeout=" + strconv.FormatInt(secs, 10)}
		}
		cl.keepaliveHdr.Put(hdr)
	}
	return nil
}

// setLingeringClose reads "lingering_close off | on | always".
func setLingeringClose(c *Cmd) error {
	modes := map[string]http1.LingerMode{"on": http1.LingerOn, "off": http1.LingerOff, "always": http1.LingerAlways}
	m, ok := modes[strings.ToLower(c.Args[0])] // NGINX's enum values ignore case
	if !ok {
		return c.Invalid(c.Args[0], `it must be "on", "off" or "always"`)
	}
	return Put(c, &c.Loc().(*coreLoc).lingerMode, m)
}

// setHeaderBuffers reads "large_client_header_buffers number size": a
// request line or header field may not exceed size, the whole header
// number times size.
func setHeaderBuffers(c *Cmd) error {
	b, err := c.buffers(1<<10, 64, 1<<20)
	c.Loc().(*coreLoc).headerBufs.Put(b)
	return err
}

// buffers reads the "number size" of a buffers directive, number in
// 1..maxN and size in minSize..maxSize.
func (c *Cmd) buffers(maxN int, minSize, maxSize int64) (OutputBuffers, error) {
	n, err := c.Int(c.Args[0], 1, maxN)
	if err != nil {
		return OutputBuffers{}, err
	}
	sz, err := c.Size(c.Args[1])
	if err != nil || sz < minSize || sz > maxSize {
		return OutputBuffers{}, c.Invalid(c.Args[1], "")
	}
	return OutputBuffers{Number: n, Size: int(sz)}, nil
}

// ShutdownTimeout is how long a graceful stop, or the retirement of this
// configuration after a reload, waits for the requests in flight:
// worker_shutdown_timeout, else the package's ShutdownTimeout (NGINX,
// without the directive, waits for as long as they last). A time of 0 is
// as no directive: NGINX arms its shutdown timer only for another, where
// a limit of 0 would cut every request in flight at once.
func (c *Config) ShutdownTimeout() time.Duration {
	if c.shutdownLimit.Set && c.shutdownLimit.V > 0 {
		return c.shutdownLimit.V
	}
	return ShutdownTimeout
}

func setWorkerProcesses(c *Cmd) error {
	if c.Args[0] == "auto" {
		c.Config().WorkerProcesses = 0
		return nil
	}
	n, err := c.Int(c.Args[0], 1, 1<<16)
	if err != nil {
		return err
	}
	c.Config().WorkerProcesses = n
	return nil
}

// setPid takes "pid file". A relative path is taken from the working
// directory, as the log files' are, and made absolute while it is known:
// "mosaic -s" finds the file by it.
func setPid(c *Cmd) error {
	if c.Config().PidFile != "" {
		return c.Duplicate()
	}
	p, err := filepath.Abs(c.Args[0])
	if err != nil {
		return c.Errorf("pid %q: %v", c.Args[0], err)
	}
	c.Config().PidFile = p
	return nil
}

// ApplyWorkerProcesses sets GOMAXPROCS from worker_processes. A number
// sets it, plus the threads of the thread pools that the configuration's
// locations use, as far as the CPUs the process may run on go: an NGINX
// worker runs its pools' threads beside its event loop, and with
// GOMAXPROCS at the number of workers alone a pool's goroutines could
// never run beside the requests' (worker_processes 1 cut no response into
// parallel segments). "auto" keeps, or after a reload restores, the value
// the process started with: Go's choice (the CPUs the process may run on)
// or the GOMAXPROCS environment variable's.
func (c *Config) ApplyWorkerProcesses() {
	if c.WorkerProcesses <= 0 {
		runtime.GOMAXPROCS(startProcs)
		return
	}
	runtime.GOMAXPROCS(c.WorkerProcesses + min(c.poolThreads(), max(runtime.NumCPU()-c.WorkerProcesses, 0)))
}

// startProcs is GOMAXPROCS as the process started.
var startProcs = runtime.GOMAXPROCS(0)

// poolThreads is the number of threads of the thread pools in use.
func (c *Config) poolThreads() int {
	n := 0
	for _, p := range c.threadPools {
		if p.used {
			n += p.Threads
		}
	}
	return n
}

func setHTTP(c *Cmd) error {
	cfg := c.Config()
	if cfg.http != nil {
		return c.Duplicate()
	}
	cfg.http = c.b.newLevel(levelHTTP, nil, nil, c.Directive)
	if err := c.b.walk(c.Block, CtxHTTP, cfg.http, nil); err != nil {
		return err
	}
	if cfg.mergeErr != "" {
		return &conf.Error{Msg: cfg.mergeErr, File: c.File, Line: c.EndLine}
	}
	return nil
}

func setServer(c *Cmd) error {
	cfg := c.Config()
	s := &VServer{cfg: cfg, locs: newLocationTree(), named: map[string]*Location{}, file: c.File, line: c.Line}
	s.level = c.b.newLevel(levelServer, cfg.http, s, c.Directive)
	if err := c.b.walk(c.Block, CtxServer, s.level, nil); err != nil {
		return err
	}
	if len(s.listens) == 0 {
		s.listens = []Listen{{Addr: ":80"}}
	}
	if len(s.names) == 0 {
		s.names = []serverName{{raw: ""}}
	}
	cfg.servers = append(cfg.servers, s)
	return nil
}

func setListen(c *Cmd) error {
	l, notices, err := parseListen(c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	l.dir = c.Directive
	for _, n := range notices {
		c.Notice(n)
	}
	s := c.level.server
	for _, o := range s.listens {
		if o.Addr == l.Addr {
			shown := l.Addr
			if strings.HasPrefix(shown, ":") { // a bare port: NGINX names the wildcard
				shown = "0.0.0.0" + shown
			}
			return c.Errorf("a duplicate listen %s", shown)
		}
	}
	s.listens = append(s.listens, l)
	return nil
}

func setServerName(c *Cmd) error {
	s := c.level.server
	for _, a := range c.Args {
		n, err := parseServerName(c, a)
		if err != nil {
			return c.Errorf("%v", err)
		}
		s.names = append(s.names, n)
	}
	return nil
}

func setRoot(alias bool) func(*Cmd) error {
	return func(c *Cmd) error {
		cl := c.Loc().(*coreLoc)
		if cl.root.Set {
			if (cl.aliasIn != nil) != alias {
				if alias {
					return c.Errorf("\"alias\" directive is duplicate, \"root\" directive was specified earlier")
				}
				return c.Errorf("\"root\" directive is duplicate, \"alias\" directive was specified earlier")
			}
			return c.Duplicate()
		}
		var in *Location
		if alias {
			// The context lets "alias" into locations only.
			if in = c.Location(); in.kind == levelNamed {
				return c.Errorf("\"alias\" directive cannot be used inside the named location")
			}
		}
		t, err := c.Template(c.Args[0])
		if err != nil {
			return err
		}
		cl.root.Put(t)
		cl.aliasIn = in
		return nil
	}
}

func setTryFiles(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	if cl.tryFiles != nil {
		return c.Duplicate()
	}
	for _, a := range c.Args[:len(c.Args)-1] {
		if _, err := c.Template(a); err != nil {
			return err
		}
	}
	last := c.Args[len(c.Args)-1]
	if strings.HasPrefix(last, "=") {
		// ngx_atoi takes digits only (no sign), and NGINX bounds the
		// code at 999.
		if code, ok := conf.Atoi(last[1:]); !ok || code > 999 {
			return c.Errorf("invalid code %q", last)
		}
	} else if _, err := c.Template(last); err != nil {
		return err
	}
	cl.tryFiles = c.Args
	return nil
}

func setLocation(c *Cmd) error {
	parent := c.level
	srv := parent.server
	var l *Location
	mod, pat := "", c.Args[0]
	if len(c.Args) == 2 {
		mod, pat = c.Args[0], c.Args[1]
	} else if len(pat) > 1 && (pat[0] == '=' || pat[0] == '~') {
		// "=/exact" and "~regex" written without a space.
		switch {
		case strings.HasPrefix(pat, "~*"):
			mod, pat = "~*", pat[2:]
		case strings.HasPrefix(pat, "^~"):
			mod, pat = "^~", pat[2:]
		default:
			mod, pat = pat[:1], pat[1:]
		}
	}
	kind := levelPrefix
	var re *regex
	switch mod {
	case "":
		if strings.HasPrefix(pat, "@") {
			kind = levelNamed
		}
	case "=":
		kind = levelExact
	case "^~":
		kind = levelNoRegex
	case "~", "~*":
		kind = levelRegex
		var err error
		if re, err = compileRegex(c, pat, mod == "~*"); err != nil {
			return c.Errorf("%v", err)
		}
	default:
		return c.Errorf("invalid location modifier %q", mod)
	}
	if parent.kind == levelExact {
		return c.Errorf("location %q cannot be inside the exact location %q", pat, parent.pattern)
	}
	if parent.kind == levelNamed {
		return c.Errorf("location %q cannot be inside the named location %q", pat, parent.pattern)
	}
	if kind == levelNamed && parent.kind != levelServer {
		return c.Errorf("named location %q can be on the server level only", pat)
	}
	// NGINX holds a prefix inside a regex location to the regex's text
	// too, so such a location is nearly always refused; one that loads is
	// never searched (matchRegex).
	if (parent.kind == levelPrefix || parent.kind == levelNoRegex || parent.kind == levelRegex) && kind != levelRegex && kind != levelNamed && !strings.HasPrefix(pat, parent.pattern) {
		return c.Errorf("location %q is outside location %q", pat, parent.pattern)
	}
	l = c.b.newLevel(kind, parent, srv, c.Directive)
	l.pattern, l.re = pat, re
	if kind == levelNamed {
		// NGINX looks for duplicates among prefix and exact locations
		// only: a second named location of the same name loads, and a
		// jump to that name reaches the first (ngx_http_named_location).
		if _, dup := srv.named[pat]; !dup {
			srv.named[pat] = l
		}
	} else {
		tree := srv.locs
		if parent.kind != levelServer {
			if parent.nested == nil {
				parent.nested = newLocationTree()
			}
			tree = parent.nested
		}
		if !tree.add(l) {
			return c.Errorf("duplicate location %q", pat)
		}
	}
	return c.b.walk(c.Block, CtxLocation, l, nil)
}

func setErrorLog(c *Cmd) error {
	lg, err := openErrorLog(c.Config(), c.Args)
	if err != nil {
		return c.Errorf("%v", err)
	}
	if c.ctx == CtxMain {
		c.Config().Logger = lg
		return nil
	}
	c.Loc().(*coreLoc).errorLog.Put(lg)
	return nil
}

func setThreadPool(c *Cmd) error {
	name := c.Args[0]
	cfg := c.Config()
	if _, dup := cfg.threadPools[name]; dup {
		return c.Errorf("duplicate thread pool %q", name)
	}
	threads, queue := 0, 65536
	for _, a := range c.Args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return c.Errorf("invalid parameter %q", a)
		}
		n, err := strconv.Atoi(v)
		switch {
		// max_queue=0 is NGINX's too: a task is taken only by a thread
		// that is idle.
		case err != nil || n < 0 || n == 0 && k == "threads":
			return c.Errorf("invalid %s value %q", k, a)
		case k == "threads":
			threads = n
		case k == "max_queue":
			queue = n
		default:
			return c.Errorf("invalid parameter %q", a)
		}
	}
	if threads == 0 {
		return c.Errorf("\"%s\" must have \"threads\" parameter", c.Name)
	}
	cfg.threadPools[name] = NewThreadPool(name, threads, queue)
	return nil
}

// defaultThreadPool creates the pool named "default" (32 threads, as in
// NGINX) unless the configuration declared it.
func (b *builder) defaultThreadPool() error {
	if _, ok := b.cfg.threadPools["default"]; !ok {
		b.cfg.threadPools["default"] = NewThreadPool("default", 32, 65536)
	}
	for _, p := range b.cfg.threadPools {
		b.cfg.OnClose(func() error { p.Close(); return nil })
	}
	return nil
}

// ThreadPool returns the pool declared by thread_pool (or the default),
// which then counts as used (ApplyWorkerProcesses): modules call it while
// the configuration is built, for the pools their locations name.
func (c *Config) ThreadPool(name string) (*ThreadPool, bool) {
	p, ok := c.threadPools[name]
	if ok {
		p.used = true
	}
	return p, ok
}

// Accessors that modules use to read the core's per-location settings.

// Root returns the root or alias template and whether it is an alias.
func (l *Location) Root() (*vars.Template, bool) {
	cl := LocConf[*coreLoc](l, coreModule)
	return cl.root.V, cl.aliasIn != nil
}

// AliasPrefix is the length of the URI prefix an alias replaces: that of
// the location that declared it (NGINX's clcf->alias, which the locations
// inside it inherit), 0 without an alias or for one that names the whole
// path (AliasWhole).
func (l *Location) AliasPrefix() int {
	in := LocConf[*coreLoc](l, coreModule).aliasIn
	if in == nil || in.IsRegex() {
		return 0
	}
	return len(in.pattern)
}

// AliasWhole reports an alias that names the whole path, the URI
// replaced whole: one declared in a regex location (usually built from
// captures), which the locations inside it inherit as it is.
func (l *Location) AliasWhole() bool {
	in := LocConf[*coreLoc](l, coreModule).aliasIn
	return in != nil && in.IsRegex()
}

// aliasTail is what follows, in uri, the prefix an alias replaces: that
// of the location that declared it. A URI outside the prefix (a
// try_files candidate written another way) is kept whole, as NGINX's
// try_files keeps a name that does not start with it.
func (cl *coreLoc) aliasTail(uri string) string {
	return strings.TrimPrefix(uri, cl.aliasIn.pattern)
}

// Types returns the MIME table in force.
func (l *Location) Types() *Types {
	cl := LocConf[*coreLoc](l, coreModule)
	if cl.types.Set {
		return cl.types.V
	}
	return defaultTypes()
}

// DefaultType returns default_type.
func (l *Location) DefaultType() string { return LocConf[*coreLoc](l, coreModule).defaultType.V }

// ContentType maps a file name to its type with types and default_type.
func (l *Location) ContentType(name string) string {
	if t := l.Types().ByName(name); t != "" {
		return t
	}
	return l.DefaultType()
}

// The browsers of keepalive_disable.
const (
	kaMSIE6 = 1 << iota
	kaSafari
)

// setKeepaliveDisable reads "keepalive_disable none | msie6 | safari ...".
func setKeepaliveDisable(c *Cmd) error {
	var v uint8
	for _, a := range c.Args {
		switch strings.ToLower(a) { // NGINX's bitmask values ignore case
		case "none":
		case "msie6":
			v |= kaMSIE6
		case "safari":
			v |= kaSafari
		default:
			return c.Invalid(a, "")
		}
	}
	// A bitmask in NGINX: each line at a level adds its browsers.
	s := &c.Loc().(*coreLoc).keepaliveOff
	s.Put(s.V | v)
	return nil
}

// keepaliveDisabled reports whether keepalive_disable (off, the bits
// kaMSIE6 and kaSafari) closes r's connection after its response: a POST
// from an old MSIE, which may wait for a while when the answer comes over
// a kept connection, or anything from Safari on macOS, which may send a
// POST on a connection the server has closed. HTTP/1 only.
func keepaliveDisabled(r *http.Request, off uint8) bool {
	if off == 0 || r.ProtoMajor != 1 {
		return false
	}
	// The default (msie6) looks at the field of a POST only.
	return off&kaMSIE6 != 0 && r.Method == http.MethodPost && useragent.MSIE6(r.Header.Get("User-Agent")) ||
		off&kaSafari != 0 && useragent.Safari(r.Header.Get("User-Agent"))
}

// SubrequestOutputBufferSize is subrequest_output_buffer_size in force
// for r, a subrequest's request (an http.Response's Request from
// Subrequest): the most of its answer that a caller keeping it in memory
// may hold (SSI's include set=). 0 for a request that is not the
// server's.
func SubrequestOutputBufferSize(r *http.Request) int64 {
	if cl := requestLoc(r); cl != nil {
		return cl.subOutput.V
	}
	return 0
}

// OutputBuffers returns output_buffers.
func (l *Location) OutputBuffers() OutputBuffers {
	return LocConf[*coreLoc](l, coreModule).outputBufs.V
}

// Logger returns the error log in force for the location.
func (l *Location) Logger() *slog.Logger {
	if lg := LocConf[*coreLoc](l, coreModule).errorLog; lg.Set {
		return lg.V
	}
	if l.server != nil {
		return l.server.cfg.Logger
	}
	return slog.Default()
}

// IsInternal reports an "internal" location.
func (l *Location) IsInternal() bool { return LocConf[*coreLoc](l, coreModule).internal }

// headerNames returns the header names cl's server keeps
// (underscores_in_headers, ignore_invalid_headers).
func (cl *coreLoc) headerNames() reqrule.HeaderNames {
	return reqrule.HeaderNames{Underscores: cl.underscores.V, IgnoreInvalid: cl.ignoreInvalid.V}
}
