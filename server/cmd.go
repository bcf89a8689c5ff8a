package server

import (
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/vars"
)

// Cmd is one directive being applied: its arguments, its position and the
// level of the configuration it appears at.
type Cmd struct {
	*conf.Directive
	ctx   Context
	mod   *Module
	b     *builder
	level *Location // the http, server or location level being read
	state any       // the state of the enclosing module block (upstream {...})
}

// Loc returns the module's settings at the current http, server or
// location level.
func (c *Cmd) Loc() any {
	if c.level == nil {
		return nil
	}
	return c.level.confs[c.mod.index]
}

// Main returns the module's main settings.
func (c *Cmd) Main() any { return c.b.cfg.mains[c.mod.index] }

// Config returns the configuration being built.
func (c *Cmd) Config() *Config { return c.b.cfg }

// Context returns the context the directive appears in.
func (c *Cmd) Context() Context { return c.ctx }

// Location returns the location being read, or nil at http and server level.
func (c *Cmd) Location() *Location {
	if c.level == nil || c.level.kind == levelHTTP || c.level.kind == levelServer {
		return nil
	}
	return c.level
}

// AutoRedirect marks the location being read, when it is a prefix or
// exact one whose name ends with "/", as one that a request for its name
// without that slash is redirected to (301) rather than matched against
// the other locations: NGINX's proxy_pass and the other *_pass directives
// set auto_redirect so, since "location /app/ { proxy_pass ...; }" would
// otherwise leave "/app" to another location. In an "if" or
// "limit_except" block it marks nothing, as NGINX marks the block's own
// settings, which the location search never reads.
func (c *Cmd) AutoRedirect() {
	l := c.level
	if l != nil && (l.kind == levelPrefix || l.kind == levelExact || l.kind == levelNoRegex) && strings.HasSuffix(l.pattern, "/") {
		l.autoRedirect = true
	}
}

// Server returns the server being read, or nil at http level: a module
// whose setting depends on the server's names (valid_referers
// server_names) keeps it.
func (c *Cmd) Server() *VServer {
	if c.level == nil {
		return nil
	}
	return c.level.server
}

// BlockState returns what the enclosing module block passed to Walk.
func (c *Cmd) BlockState() any { return c.state }

// Walk applies the directives of a block in context ctx, passing state to
// them through BlockState. Modules use it for blocks they own (upstream).
func (c *Cmd) Walk(ctx Context, block []*conf.Directive, state any) error {
	return c.b.walk(block, ctx, c.level, state)
}

// Errorf returns an error at the directive's position.
func (c *Cmd) Errorf(format string, args ...any) error {
	return conf.Errorf(c.Directive, format, args...)
}

// Invalid reports a bad argument the way NGINX words it, with why
// (for example "it must be 0..11") when not empty.
func (c *Cmd) Invalid(arg, why string) error {
	if why != "" {
		return c.Errorf("invalid value %q in %q directive, %s", arg, c.Name, why)
	}
	return c.Errorf("invalid value %q in %q directive", arg, c.Name)
}

// Duplicate reports a directive that may appear once per level.
func (c *Cmd) Duplicate() error { return c.Errorf("%q directive is duplicate", c.Name) }

// Notice logs a configuration notice naming the directive's position.
func (c *Cmd) Notice(msg string) { c.NoticeAt(c.Directive, msg) }

// NoticeAt logs a configuration notice naming d's position: a line of
// the directive's block.
func (c *Cmd) NoticeAt(d *conf.Directive, msg string) {
	c.b.cfg.notices = append(c.b.cfg.notices, fmt.Sprintf("%s in %s", msg, d.Pos()))
}

// AppendTypes reads a filter's list of media types (ssi_types,
// esi_types): each argument a type or "*". Several lines at one level add
// up, as NGINX's types lists do; a level that sets none inherits its
// parent's list. As NGINX's ngx_http_types_slot, any word is taken: one
// that is no media type ("text") never matches a response's.
func AppendTypes(c *Cmd, s *Setting[[]string]) error {
	if !s.Set {
		s.Put(nil)
	}
	s.V = append(s.V, c.Args...)
	return nil
}

// Flag parses the single on|off argument.
func (c *Cmd) Flag() (bool, error) {
	switch strings.ToLower(c.Args[0]) {
	case "on":
		return true, nil
	case "off":
		return false, nil
	}
	return false, c.Errorf("invalid value %q in %q directive, it must be \"on\" or \"off\"", c.Args[0], c.Name)
}

// Int parses an integer argument within [min, max].
func (c *Cmd) Int(arg string, min, max int) (int, error) {
	// A number as NGINX's ngx_atoi reads it: digits only, so that "+1"
	// is refused as NGINX does; a directive that takes a negative one
	// (min < 0) may have a minus sign.
	v, ok := conf.Atoi(strings.TrimPrefix(arg, "-"))
	// Compared before it becomes an int: on a 32-bit platform a number
	// beyond int's range would wrap into range (4294967297 into 1), where
	// NGINX's ngx_atoi refuses it as too large.
	ok = ok && v <= math.MaxInt
	n := int(v)
	if strings.HasPrefix(arg, "-") {
		n, ok = -n, ok && min < 0
	}
	if !ok || n < min || n > max {
		if max == int(^uint(0)>>1) {
			return 0, c.Invalid(arg, fmt.Sprintf("it must be at least %d", min))
		}
		return 0, c.Invalid(arg, fmt.Sprintf("it must be %d..%d", min, max))
	}
	return n, nil
}

// MaxCount is where Count stops: more than any request, connection or
// cache entry reaches, and safe from overflow in the arithmetic of those
// who compare with it.
const MaxCount = 1<<31 - 1

// Count parses a count that NGINX reads as any number (ngx_atoi, at
// most int64's): at least least, and MaxCount where it is larger, which
// counts the same (max_ranges, *_min_uses, *_next_upstream_tries).
func (c *Cmd) Count(arg string, least int) (int, error) {
	n, ok := conf.Atoi(arg)
	if !ok || n < int64(least) {
		return 0, c.Invalid(arg, fmt.Sprintf("it must be at least %d", least))
	}
	return int(min(n, MaxCount)), nil
}

// Size parses an NGINX size: a number with an optional k or m suffix
// (ngx_parse_size).
func (c *Cmd) Size(arg string) (int64, error) {
	n, err := ParseSize(arg)
	if err != nil {
		return 0, c.Invalid(arg, "")
	}
	return n, nil
}

// Offset parses an NGINX offset: a number with an optional k, m or g
// suffix (ngx_parse_offset).
func (c *Cmd) Offset(arg string) (int64, error) {
	n, err := ParseOffset(arg)
	if err != nil {
		return 0, c.Invalid(arg, "")
	}
	return n, nil
}

// Duration parses an NGINX time: "30", "10s", "1h 30m", "500ms".
func (c *Cmd) Duration(arg string) (time.Duration, error) {
	d, err := ParseDuration(arg)
	if err != nil {
		return 0, c.Invalid(arg, "")
	}
	return d, nil
}

// Seconds parses an NGINX time in seconds mode ("30", "1h", "1y"; no
// "ms"), that of ngx_conf_set_sec_slot and of expires-like values.
func (c *Cmd) Seconds(arg string) (time.Duration, error) {
	d, err := ParseSeconds(arg)
	if err != nil {
		return 0, c.Invalid(arg, "")
	}
	return d, nil
}

// Template compiles an argument with variables, in the configuration's
// scope: it may name a variable that a later directive defines (map).
func (c *Cmd) Template(arg string) (*vars.Template, error) {
	t, err := c.b.cfg.vars.Compile(arg, c.Directive)
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	return t, nil
}

// MergeTemplate is Template for a value that NGINX compiles only when it
// merges the http block's levels (proxy_set_header's, fastcgi_param's):
// its error ("invalid variable name" for "a$") fails the configuration
// once the http block has been read, placed at the block's closing "}"
// as nginx -t places it, and an error that the reading finds first wins.
// The template is nil then, and the directive is skipped.
func (c *Cmd) MergeTemplate(arg string) *vars.Template {
	t, err := c.b.cfg.vars.Compile(arg, c.Directive)
	if err != nil {
		if c.b.cfg.mergeErr == "" {
			c.b.cfg.mergeErr = err.Error()
		}
		return nil
	}
	return t
}

// Logger returns the error logger of the configuration being read.
func (c *Cmd) Logger() *slog.Logger { return c.b.cfg.Logger }

// ParseSize reads an NGINX size ("512", "16k", "8m"; no g).
func ParseSize(s string) (int64, error) { return conf.ParseSize(s) }

// ParseOffset reads an NGINX offset ("512", "16k", "8m", "1g").
func ParseOffset(s string) (int64, error) { return conf.ParseOffset(s) }

// ParseDuration reads an NGINX time in milliseconds mode ("30", "500ms",
// "1h 30m"), that of the timeouts.
func ParseDuration(s string) (time.Duration, error) { return conf.ParseTime(s) }

// ParseSeconds reads an NGINX time in seconds mode ("30", "1h", "1y"),
// that of expires, validity times and ngx_conf_set_sec_slot.
func ParseSeconds(s string) (time.Duration, error) { return conf.ParseSeconds(s) }

// Put stores v in a single-valued directive's setting, refusing a second
// occurrence at the same level as NGINX does ("... directive is duplicate").
func Put[T any](c *Cmd, s *Setting[T], v T) error {
	if s.Set {
		return c.Duplicate()
	}
	s.Put(v)
	return nil
}

// PutNum reads a non-negative number into s, once per level, as NGINX's
// ngx_conf_set_num_slot ("... directive invalid number").
func PutNum(c *Cmd, s *Setting[int]) error {
	n, err := strconv.Atoi(c.Args[0])
	if err != nil || n < 0 || c.Args[0][0] == '+' {
		return c.Errorf("%q directive invalid number", c.Name)
	}
	return Put(c, s, n)
}

// PutFlag reads the on|off argument into s, once per level.
func PutFlag(c *Cmd, s *Setting[bool]) error {
	on, err := c.Flag()
	if err != nil {
		return err
	}
	return Put(c, s, on)
}

// What a timeout of 0 is stored as, where a zero Duration would mean no
// timeout at all to the libraries. NGINX takes 0 for its timeouts
// (ngx_conf_set_msec_slot) and arms a timer of 0 when it must wait,
// which expires before the peer can answer: a connect, a response header
// or a request body that must be waited for times out at once (504, 408).
// A send waits only when the socket buffer is full, so that under
// send_timeout 0 a response that fits goes out and a stalled client is
// cut at once.
const (
	// ZeroTimeout is a deadline that has passed when the wait begins.
	ZeroTimeout = time.Nanosecond
	// ZeroSendTimeout lets a write into a socket with room complete.
	ZeroSendTimeout = time.Millisecond
)

// PutTime reads a timeout (milliseconds mode) into s, once per level: 0
// is stored as ZeroSendTimeout for a directive whose name ends in
// "send_timeout", else as ZeroTimeout.
func PutTime(c *Cmd, s *Setting[time.Duration]) error {
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	if d == 0 {
		d = ZeroTimeout
		if strings.HasSuffix(c.Name, "send_timeout") {
			d = ZeroSendTimeout
		}
	}
	return Put(c, s, d)
}

// SetFlag returns a directive setter that stores its on|off argument in
// the Setting that get selects from the module's settings at the level.
func SetFlag[T any](get func(T) *Setting[bool]) func(*Cmd) error {
	return func(c *Cmd) error { return PutFlag(c, get(c.Loc().(T))) }
}

// SetTime returns a directive setter that stores its timeout argument
// (PutTime) in the Setting that get selects.
func SetTime[T any](get func(T) *Setting[time.Duration]) func(*Cmd) error {
	return func(c *Cmd) error { return PutTime(c, get(c.Loc().(T))) }
}
