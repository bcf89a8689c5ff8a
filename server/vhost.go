package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

type serverName struct {
	raw string
	re  *regex // for "~regex" names
}

// addrGroup is the set of servers listening on one address, and the
// tables that pick one of them by Host, with NGINX's priority:
// exact name, longest "*.suffix", longest "prefix.*", first regex, and
// the default server.
type addrGroup struct {
	addr      string
	ssl       bool
	proxyProt bool // listen ... proxy_protocol on any of its servers
	sock      *SocketOpts
	http2     bool
	servers   []*VServer
	def       *VServer
	exact     map[string]*VServer
	wildStart []wildName // "*.example.com" stored as ".example.com"
	wildEnd   []wildName // "www.example.*" stored as "www.example."
	regexes   []regexName
	conflicts []string // names a later server also claimed
	// via is the wildcard address whose socket serves this specific
	// address; covers marks a wildcard group serving such addresses, the
	// only case where a connection's local address must be looked at.
	via    string
	covers bool
}

type wildName struct {
	part string
	srv  *VServer
}

type regexName struct {
	re  *regex
	srv *VServer
}

func (g *addrGroup) add(s *VServer, l Listen) error {
	for _, o := range g.servers {
		if o == s {
			return nil
		}
	}
	g.servers = append(g.servers, s)
	if l.DefaultServer {
		if g.def != nil && g.def != s {
			return fmt.Errorf("a duplicate default server for %s in %s:%d", g.addr, s.file, s.line)
		}
		g.def = s
	}
	// The first server to claim a name keeps it, as in NGINX, which
	// warns about the others once the address has several servers.
	conflict := func(name string) { g.conflicts = append(g.conflicts, name) }
	claim := func(name, as string) bool {
		if _, ok := g.exact[name]; ok {
			conflict(as)
			return false
		}
		g.exact[name] = s
		return true
	}
	wild := func(list []wildName, part, name string) []wildName {
		for _, w := range list {
			if w.part == part {
				conflict(name)
				return list
			}
		}
		return append(list, wildName{part, s})
	}
	for _, n := range s.names {
		switch {
		case n.re != nil:
			g.regexes = append(g.regexes, regexName{n.re, s})
		case strings.HasPrefix(n.raw, "*."):
			g.wildStart = wild(g.wildStart, n.raw[1:], n.raw)
		case strings.HasPrefix(n.raw, "."):
			// ".example.com" is both "example.com" and "*.example.com".
			if claim(n.raw[1:], n.raw) {
				g.wildStart = wild(g.wildStart, n.raw, n.raw)
			}
		case strings.HasSuffix(n.raw, ".*"):
			g.wildEnd = wild(g.wildEnd, n.raw[:len(n.raw)-1], n.raw)
		default:
			claim(n.raw, n.raw)
		}
	}
	return nil
}

// finish sets the default server and sorts the wildcards; notice gets
// the conflicting names, which NGINX reports only where names choose a
// server.
func (g *addrGroup) finish(notice func(string)) {
	if g.def == nil && len(g.servers) > 0 {
		g.def = g.servers[0]
	}
	if len(g.servers) > 1 {
		for _, name := range g.conflicts {
			notice(fmt.Sprintf("conflicting server name %q on %s, ignored", name, g.addr))
		}
	}
	sort.SliceStable(g.wildStart, func(i, j int) bool { return len(g.wildStart[i].part) > len(g.wildStart[j].part) })
	sort.SliceStable(g.wildEnd, func(i, j int) bool { return len(g.wildEnd[i].part) > len(g.wildEnd[j].part) })
}

// find picks the server for a host name as reqrule.Host returns it
// (lower-case, no port, no trailing dot), for TLS's server name: a regex
// that cannot complete its match counts as no match.
func (g *addrGroup) find(host string) *VServer {
	s, _ := g.lookup(host, nil)
	return s
}

// initial is the server a connection's requests start in, before a Host
// chooses one: the server that the TLS handshake's server name chose, as
// NGINX switches the connection's configuration to it, or else the
// default server.
func (g *addrGroup) initial(cs *tls.ConnectionState) *VServer {
	if cs != nil && cs.ServerName != "" {
		if name, ok := reqrule.Host(cs.ServerName); ok {
			return g.find(name)
		}
	}
	return g.def
}

// lookup is find for a request: the captures of a server_name regex go to
// st, as NGINX sets them; an error is a regex match that could not be
// completed, in the words of the error log, with the default server.
func (g *addrGroup) lookup(host string, st *vars.State) (*VServer, error) {
	if len(g.servers) == 1 {
		return g.servers[0], nil
	}
	if s, ok := g.exact[host]; ok {
		return s, nil
	}
	for _, w := range g.wildStart {
		if strings.HasSuffix(host, w.part) && len(host) > len(w.part) {
			return w.srv, nil
		}
		if w.part[0] == '.' && host == w.part[1:] {
			return w.srv, nil
		}
	}
	for _, w := range g.wildEnd {
		if strings.HasPrefix(host, w.part) && len(host) > len(w.part) {
			return w.srv, nil
		}
	}
	for _, r := range g.regexes {
		ok, err := r.re.exec(host, st)
		if err != nil {
			return g.def, pcre.MatchError(err, host, r.re.Regexp)
		}
		if ok {
			return r.srv, nil
		}
	}
	return g.def, nil
}

func parseServerName(c *Cmd, n string) (serverName, error) {
	if strings.HasPrefix(n, "~") {
		// The host is lower-case by now, so NGINX makes a regex with an
		// upper-case letter anywhere in it caseless, lest it never match.
		caseless := strings.ContainsFunc(n, func(r rune) bool { return r >= 'A' && r <= 'Z' })
		re, err := compileRegex(c, n[1:], caseless)
		if err != nil {
			return serverName{}, err
		}
		return serverName{raw: n, re: re}, nil
	}
	n = strings.ToLower(n)
	if strings.Count(n, "*") > 1 || (strings.Contains(n, "*") && !strings.HasPrefix(n, "*.") && !strings.HasSuffix(n, ".*")) {
		return serverName{}, fmt.Errorf("invalid server name or wildcard %q", n)
	}
	return serverName{raw: n}, nil
}

// checkIPv6Listen is NGINX's ngx_parse_inet6_url on a listen address that
// opens a bracket: what it finds wrong ("invalid host", "invalid port",
// "no host", "invalid IPv6 address", in its order), or "".
func checkIPv6Listen(a string) string {
	end := strings.IndexByte(a, ']')
	switch {
	case end < 0 || strings.Contains(a[end:], "/") || end+1 < len(a) && a[end+1] != ':':
		return "invalid host"
	case end+1 < len(a) && !validPort(a[end+2:]):
		return "invalid port"
	case end == 1:
		return "no host"
	}
	// NGINX's parser takes no zone and no IPv4 address in brackets; an
	// IPv4-mapped one (::ffff:127.0.0.1) is IPv6.
	if ip, err := netip.ParseAddr(a[1:end]); err != nil || !ip.Is6() || ip.Zone() != "" {
		return "invalid IPv6 address"
	}
	return ""
}

// parseListen reads "listen" arguments into a Listen.
func parseListen(args []string) (Listen, []string, error) {
	var l Listen
	var notices []string
	a := args[0]
	switch {
	case strings.HasPrefix(a, "unix:"):
		l.Addr = a
	default:
		if strings.HasPrefix(a, "[") {
			if why := checkIPv6Listen(a); why != "" {
				return l, nil, fmt.Errorf("%s in %q of the \"listen\" directive", why, a)
			}
		}
		host, port, err := net.SplitHostPort(a)
		if err != nil {
			// A bare port, or a bare address (port 80).
			if isDigits(a) {
				host, port = "", a
			} else {
				host, port = strings.Trim(a, "[]"), "80"
			}
		}
		if host == "*" {
			host = ""
		}
		// A port past 65535 is refused here, as NGINX does, rather than
		// by the bind of a start that "-t" said would work. Port 0, a
		// free port, which NGINX refuses, stays accepted: tests use it.
		if !validPort(port) {
			return l, nil, fmt.Errorf("invalid port in %q of the \"listen\" directive", a)
		}
		l.Addr = net.JoinHostPort(host, port)
	}
	for _, p := range args[1:] {
		switch {
		case p == "ssl":
			l.SSL = true
		case p == "http2":
			l.HTTP2 = true
		case p == "default_server" || p == "default":
			l.DefaultServer = true
		case p == "proxy_protocol":
			l.ProxyProtocol = true
		case p == "bind":
			// Every address is bound on its own already, or served
			// through its port's wildcard socket (coverSpecific).
			notices = append(notices, fmt.Sprintf("ignoring listen parameter %q", p))
		default:
			var o SocketOpts
			if l.Opts != nil {
				o = *l.Opts
			}
			ok, err := parseSocketOpt(p, &o)
			if err != nil {
				return l, nil, err
			}
			if !ok {
				return l, nil, fmt.Errorf("invalid parameter %q", p)
			}
			l.Opts = &o
		}
	}
	if l.Opts != nil && strings.HasPrefix(l.Addr, "unix:") {
		// NGINX takes them there too; a Unix socket has no use for most.
		notices = append(notices, "socket parameters of a unix: listen are ignored")
		l.Opts = nil
	}
	return l, notices, nil
}

// validPort is a listen port NGINX takes, and 0: digits up to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return isDigits(p) && err == nil && n <= 65535
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// groupListeners builds the address groups. Servers on a specific address
// of a port that also has a wildcard listener are reached through the
// wildcard socket and told apart by the connection's local address, as
// NGINX does, since both cannot be bound at once.
func (b *builder) groupListeners() error {
	cfg := b.cfg
	tb := newTLSBuild(cfg)
	for _, s := range cfg.servers {
		if err := s.loadCerts(tb.loaded); err != nil {
			return err
		}
		if err := s.buildTLS(tb); err != nil {
			var ce *conf.Error
			if errors.As(err, &ce) {
				return err
			}
			return fmt.Errorf("%v in %s:%d", err, s.file, s.line)
		}
		for _, l := range s.listens {
			g := cfg.addrs[l.Addr]
			if g == nil {
				g = &addrGroup{addr: l.Addr, exact: map[string]*VServer{}}
				cfg.addrs[l.Addr] = g
			}
			g.ssl = g.ssl || l.SSL
			g.http2 = g.http2 || l.HTTP2
			g.proxyProt = g.proxyProt || l.ProxyProtocol
			if l.Opts != nil {
				// As NGINX: one listen line of an address sets its socket.
				if g.sock != nil {
					return conf.Errorf(l.dir, "duplicate listen options for %s", l.Addr)
				}
				g.sock = l.Opts
			}
			if err := g.add(s, l); err != nil {
				return err
			}
		}
	}
	for _, g := range cfg.addrs {
		g.finish(tb.notice)
		// As NGINX decides at accept time: an address speaks TLS when a
		// listen says ssl, or when its default server says "ssl on". Its
		// default server must have a certificate; the others fall back
		// to it.
		if LocConf[*coreLoc](g.def.level, coreModule).sslOn.V {
			g.ssl = true
		}
		if g.ssl && g.def.certs == nil && g.def.dynamic == nil && !sslOf(g.def).reject.V {
			return fmt.Errorf("no \"ssl_certificate\" is defined for the \"listen ... ssl\" directive in %s:%d", g.def.file, g.def.line)
		}
	}
	cfg.coverSpecific()
	return nil
}

// coverSpecific finds the specific addresses of a port that a wildcard
// listener of the same kind (plain or TLS) also claims: they are served
// through the wildcard socket and told apart by the connection's local
// address, since both cannot be bound at once.
func (c *Config) coverSpecific() {
	for addr, g := range c.addrs {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || host == "" || strings.HasPrefix(addr, "unix:") || g.sock != nil {
			// An address whose listen line sets socket parameters is
			// bound on its own, as NGINX binds it: served through the
			// wildcard socket, it would not have them.
			continue
		}
		wild := net.JoinHostPort("", port)
		if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
			wild = net.JoinHostPort("::", port)
		}
		if w, ok := c.addrs[wild]; ok && w != g && w.ssl == g.ssl {
			g.via, w.covers = wild, true
		}
	}
}

// bindAddrs returns the addresses to bind: every group's address except
// the specific ones served through a wildcard socket.
func (c *Config) bindAddrs() map[string]*addrGroup {
	out := map[string]*addrGroup{}
	for addr, g := range c.addrs {
		if g.via == "" {
			out[addr] = g
		}
	}
	return out
}

// groupFor returns the group that serves a connection accepted on the
// socket bound for bound; local gives the connection's local address and
// is asked only when that socket also serves specific addresses.
func (c *Config) groupFor(bound string, local func() string) *addrGroup {
	g := c.addrs[bound]
	if g != nil && g.covers {
		if sg, ok := c.addrs[local()]; ok {
			return sg
		}
	}
	return g
}
