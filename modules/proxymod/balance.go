package proxymod

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/proxy"
	core "github.com/mosaic-edge/mosaic/server"
)

// balanceDirectives are the upstream block's balancing directives and the
// proxy_next_upstream family of a location.
func balanceDirectives() []core.Directive {
	return []core.Directive{
		{Name: "least_conn", Context: core.CtxUpstream, MinArgs: 0, MaxArgs: 0, Set: func(c *core.Cmd) error {
			return setMethod(c, proxy.LeastConn, nil)
		}},
		{Name: "ip_hash", Context: core.CtxUpstream, MinArgs: 0, MaxArgs: 0, Set: func(c *core.Cmd) error {
			return setMethod(c, proxy.IPHash, nil)
		}},
		{Name: "hash", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 2, Set: setHash},
		{Name: "random", Context: core.CtxUpstream, MinArgs: 0, MaxArgs: 2, Set: setRandom},
		{Name: "zone", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 2, Set: setZone},
		{Name: "keepalive_time", Context: core.CtxUpstream, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			d, err := c.Duration(c.Args[0])
			if err != nil {
				return err
			}
			return core.Put(c, &c.BlockState().(*upstreamConf).keepaliveTime, d)
		}},
		{Name: "proxy_next_upstream", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: core.Unlimited, Set: setNextUpstream},
		{Name: "proxy_next_upstream_tries", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: func(c *core.Cmd) error {
			lc := c.Loc().(*locConf)
			if lc.nextTries.Set {
				return c.Duplicate()
			}
			n, err := c.Count(c.Args[0], 0)
			lc.nextTries.Put(n)
			return err
		}},
		{Name: "proxy_next_upstream_timeout", Context: core.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: func(c *core.Cmd) error { return PutNextTimeout(c, &c.Loc().(*locConf).nextTimeout) }},
	}
}

// PutNextTimeout reads a *_next_upstream_timeout line into s. Unlike the
// other timeouts it may be 0: NGINX's default, no limit, which is what
// proxy.Options.NextUpstreamTimeout 0 says too.
func PutNextTimeout(c *core.Cmd, s *core.Setting[time.Duration]) error {
	d, err := c.Duration(c.Args[0])
	if err != nil {
		return err
	}
	return core.Put(c, s, d)
}

// setMethod records the balancing method of the upstream block being
// read. As in NGINX, a second method replaces the first with a warning,
// and the method decides which server parameters the lines after it may
// use.
func setMethod(c *core.Cmd, m proxy.Method, key func(*http.Request) string) error {
	u := c.BlockState().(*upstreamConf)
	if u.methodSet {
		c.Notice("load balancing method redefined")
	}
	u.method, u.methodSet, u.hashKey = m, true, key
	return nil
}

func setHash(c *core.Cmd) error {
	m := proxy.Hash
	if len(c.Args) == 2 {
		if c.Args[1] != "consistent" {
			return c.Errorf("invalid parameter %q", c.Args[1])
		}
		m = proxy.ConsistentHash
	}
	v, err := templateValue(c, c.Args[0])
	if err != nil {
		return err
	}
	return setMethod(c, m, v)
}

func setRandom(c *core.Cmd) error {
	m := proxy.Random
	if len(c.Args) >= 1 {
		if c.Args[0] != "two" {
			return c.Errorf("invalid parameter %q", c.Args[0])
		}
		// least_conn is the only method of choosing between the two, and
		// the default.
		if len(c.Args) == 2 && c.Args[1] != "least_conn" {
			return c.Errorf("invalid parameter %q", c.Args[1])
		}
		m = proxy.RandomTwo
	}
	return setMethod(c, m, nil)
}

// setZone accepts zone: a group's balancing state already lives in the
// one mosaic process and is shared by all its requests, which is what an
// NGINX zone gives a group across worker processes.
func setZone(c *core.Cmd) error {
	u := c.BlockState().(*upstreamConf)
	if u.zone != "" {
		return c.Duplicate()
	}
	if len(c.Args) == 2 {
		n, err := c.Size(c.Args[1])
		if err != nil {
			return err
		}
		// NGINX's smallest shared memory zone: eight 4 KiB pages.
		if n < 8*4096 {
			return c.Errorf("zone %q is too small", c.Args[0])
		}
		// One zone, one size: NGINX refuses a second line that sizes
		// the zone of the same name otherwise.
		for _, o := range c.Main().(*mainConf).order {
			if o.zone == c.Args[0] && o.zoneSize > 0 && o.zoneSize != n {
				return c.Errorf("the size %d of shared memory zone %q conflicts with already declared size %d", n, c.Args[0], o.zoneSize)
			}
		}
		u.zoneSize = n
	}
	u.zone = c.Args[0]
	return nil
}

// nextConditions are proxy_next_upstream's parameters. "updating" is the
// cache's condition of proxy_cache_use_stale; NGINX accepts it here too,
// where it never applies.
var nextConditions = map[string]proxy.NextUpstream{
	"error":          proxy.NextError,
	"timeout":        proxy.NextTimeout,
	"invalid_header": proxy.NextInvalidHeader,
	"non_idempotent": proxy.NextNonIdempotent,
	"http_500":       proxy.NextHTTP500,
	"http_502":       proxy.NextHTTP502,
	"http_503":       proxy.NextHTTP503,
	"http_504":       proxy.NextHTTP504,
	"http_403":       proxy.NextHTTP403,
	"http_404":       proxy.NextHTTP404,
	"http_429":       proxy.NextHTTP429,
	"updating":       0,
	"off":            proxy.NextOff,
}

func setNextUpstream(c *core.Cmd) error {
	return AddNextUpstream(c, &c.Loc().(*locConf).next)
}

// AddNextUpstream adds the conditions of a *_next_upstream line
// (proxy_next_upstream, and the gateways' fastcgi_next_upstream...) to s.
// NGINX reads the directive as a bitmask: the lines at one level add up,
// and "off" on any of them overrides the others. s holds no condition
// after lines of "updating" alone; NextUpstreamOf reads that as off.
func AddNextUpstream(c *core.Cmd, s *core.Setting[proxy.NextUpstream]) error {
	return AddNextConditions(c, s, nextConditions)
}

// AddNextConditions is AddNextUpstream for a module whose
// *_next_upstream names its conditions otherwise (memcached's
// "invalid_response" and "not_found"): conditions maps each parameter to
// its condition.
func AddNextConditions(c *core.Cmd, s *core.Setting[proxy.NextUpstream], conditions map[string]proxy.NextUpstream) error {
	mask := s.V
	seen := map[string]bool{}
	for _, a := range c.Args {
		bit, ok := conditions[strings.ToLower(a)]
		if !ok {
			return c.Errorf("invalid value %q", a)
		}
		if seen[strings.ToLower(a)] {
			// Only a warning in NGINX's bitmask slot: the line loads.
			c.Notice(fmt.Sprintf("duplicate value %q", a))
		}
		seen[strings.ToLower(a)] = true
		mask |= bit
	}
	if mask&proxy.NextOff != 0 {
		mask = proxy.NextOff
	}
	s.Put(mask)
	return nil
}

// NextUpstreamOf returns the conditions that a *_next_upstream setting
// says: the zero value, NGINX's default, when no line set it, and
// NextOff after lines of "updating" alone, no condition that applies to
// a try.
func NextUpstreamOf(s core.Setting[proxy.NextUpstream]) proxy.NextUpstream {
	if s.Set && s.V == 0 {
		return proxy.NextOff
	}
	return s.V
}
