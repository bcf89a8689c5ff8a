package proxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/inet"
)

// NGINX's defaults for an upstream group.
const (
	DefaultFailTimeout       = 10 * time.Second
	DefaultKeepaliveTimeout  = 60 * time.Second
	DefaultKeepaliveRequests = 1000
	DefaultKeepaliveTime     = time.Hour
)

// NoFailTimeout as a Server's FailTimeout takes a server that failed out
// of rotation only until the second of its failure ends, its failures
// still lowering its weight for a while: NGINX's fail_timeout=0, whose
// window ends with the second it began in (NGINX's clock counts whole
// seconds).
const NoFailTimeout time.Duration = -1

// Server is one server of an upstream group, with the parameters of a
// server line. Its fields mean what the parameters mean, so the zero
// MaxFails disables failure accounting (max_fails=0): NGINX's defaults,
// weight=1 max_fails=1 fail_timeout=10s, are Server{Addr: a, MaxFails: 1}.
type Server struct {
	Addr        string        // host:port; without a port, port 80
	Name        string        // the server line's address when Addr is one it resolved to (ResolveServers); "" means Addr
	Weight      int           // share in the weighted round robin; 0 means 1
	MaxFails    int           // failures within FailTimeout that take the server out; 0: never
	FailTimeout time.Duration // window for MaxFails and time out of rotation, whole seconds counted as NGINX's clock does; 0 means 10s, NoFailTimeout the rest of the second
	MaxConns    int           // requests served at once; 0: no limit
	Backup      bool          // used only while every primary server is unavailable
	Down        bool          // permanently unavailable
}

// Upstream is a group of servers that requests are balanced over, with its
// passive health state and its cache of idle keepalive connections. One
// Upstream is shared by every handler that proxies to it, as an NGINX
// upstream block is shared by the locations that name it.
type Upstream struct {
	Name      string // the group's name; $proxy_host when proxy_pass names it
	Keepalive int    // idle connections kept for reuse, across all servers; 0 keeps none

	// KeepaliveTimeout and KeepaliveRequests bound an idle connection's
	// age and a connection's number of requests (NGINX's keepalive_timeout
	// and keepalive_requests). NewUpstream sets NGINX's defaults; change
	// them before the group serves requests. As in NGINX, 0 is a bound
	// too: no connection is reused.
	KeepaliveTimeout  time.Duration
	KeepaliveRequests int
	// KeepaliveTime bounds the time since a connection was opened after
	// which it is not reused (NGINX's keepalive_time); NewUpstream sets
	// NGINX's default, one hour, and 0 reuses none.
	KeepaliveTime time.Duration

	servers     []Server
	primary     []*peer
	backup      []*peer
	single      bool   // one primary server and no backup: never taken out
	tries       int    // servers a request may try: those not marked down
	totalWeight uint32 // of the primary servers, down ones included

	method  Method                     // see SetMethod
	hashKey func(*http.Request) string // Hash, ConsistentHash
	ring    []ringPoint                // ConsistentHash

	mu   sync.Mutex // guards the balancer state of every peer
	idle idlePool
}

// NewUpstream builds a group from its servers. keepalive is the number of
// idle connections the group keeps (the keepalive directive); NGINX keeps
// none without it.
func NewUpstream(name string, servers []Server, keepalive int) (*Upstream, error) {
	if name == "" {
		return nil, errors.New("upstream needs a name")
	}
	if keepalive < 0 {
		return nil, fmt.Errorf("upstream %q: keepalive must not be negative", name)
	}
	u := &Upstream{
		Name:              name,
		Keepalive:         keepalive,
		KeepaliveTimeout:  DefaultKeepaliveTimeout,
		KeepaliveRequests: DefaultKeepaliveRequests,
		KeepaliveTime:     DefaultKeepaliveTime,
		servers:           append([]Server(nil), servers...),
	}
	for i, s := range servers {
		p, err := newPeer(s)
		if err != nil {
			return nil, fmt.Errorf("upstream %q, server %d: %w", name, i+1, err)
		}
		if s.Backup {
			p.index = len(u.backup)
			u.backup = append(u.backup, p)
		} else {
			p.index = len(u.primary)
			u.primary = append(u.primary, p)
			u.totalWeight += uint32(p.weight)
		}
		if !s.Down {
			u.tries++
		}
	}
	if len(u.primary) == 0 {
		return nil, fmt.Errorf("no servers in upstream %q", name)
	}
	u.single = len(u.primary) == 1 && len(u.backup) == 0
	return u, nil
}

// Servers returns the group's servers as given to NewUpstream.
func (u *Upstream) Servers() []Server {
	return append([]Server(nil), u.servers...)
}

// CloseIdle closes the group's idle connections, for a group that a new
// configuration has replaced.
func (u *Upstream) CloseIdle() {
	u.idle.closeAll()
}

func newPeer(s Server) (*peer, error) {
	addr, err := withDefaultPort(s.Addr)
	if err != nil {
		return nil, err
	}
	if s.Weight < 0 {
		return nil, fmt.Errorf("invalid weight %d", s.Weight)
	}
	if s.MaxFails < 0 {
		return nil, fmt.Errorf("invalid max_fails %d", s.MaxFails)
	}
	if s.MaxConns < 0 {
		return nil, fmt.Errorf("invalid max_conns %d", s.MaxConns)
	}
	p := &peer{
		addr:        addr,
		server:      cmp.Or(s.Name, s.Addr),
		weight:      s.Weight,
		maxFails:    s.MaxFails,
		maxConns:    s.MaxConns,
		failTimeout: s.FailTimeout,
		down:        s.Down,
	}
	if p.weight == 0 {
		p.weight = 1
	}
	switch {
	case p.failTimeout == 0:
		p.failTimeout = DefaultFailTimeout
	case p.failTimeout < 0:
		p.failTimeout = 0
	}
	p.effective = p.weight
	return p, nil
}

// ResolveServers returns servers with each host name replaced by the
// addresses it resolves to, as NGINX resolves a server line when its
// configuration loads: one Server per address, with the line's
// parameters (weight, max_fails, backup, down, ...) and Name set to the
// address as written. A name that does not resolve is an error, which
// says "host not found". Unix-domain sockets and IP addresses are kept
// as they are. Without it, a Server's host name is resolved each time a
// connection is made, and all its addresses are one server.
func ResolveServers(ctx context.Context, servers []Server) ([]Server, error) {
	out := make([]Server, 0, len(servers))
	for _, s := range servers {
		if hasPrefixFold(s.Addr, "unix:") {
			if err := checkUnixPath(s.Addr[len("unix:"):]); err != nil {
				return nil, fmt.Errorf("%v in upstream %q", err, s.Addr)
			}
			out = append(out, s)
			continue
		}
		addr, err := withDefaultPort(s.Addr)
		switch {
		case strings.ContainsAny(s.Addr, "/?"):
			// NGINX reads a URI there, which a server line may not have.
			return nil, fmt.Errorf("invalid host in upstream %q", s.Addr)
		case errors.Is(err, errInvalidPort):
			return nil, fmt.Errorf("%w in upstream %q", errInvalidPort, s.Addr)
		case err != nil:
			return nil, err
		}
		host, port, _ := splitAuthority(addr, checkHost)
		ips, err := inet.ResolveHost(ctx, host)
		if err != nil {
			return nil, fmt.Errorf("%w in upstream %q", err, s.Addr)
		}
		for _, ip := range ips {
			r := s
			r.Addr = net.JoinHostPort(ip.String(), port)
			r.Name = cmp.Or(s.Name, s.Addr)
			out = append(out, r)
		}
	}
	return out, nil
}

// withDefaultPort adds port 80 to an address that names none, as NGINX
// does for server lines.
func withDefaultPort(addr string) (string, error) {
	if addr == "" {
		return "", errors.New("empty server address")
	}
	if hasPrefixFold(addr, "unix:") {
		// A socket path, dialled as such (see dialAddr); it has no port.
		if err := checkUnixPath(addr[len("unix:"):]); err != nil {
			return "", fmt.Errorf("%v %q", err, addr)
		}
		return "unix:" + addr[len("unix:"):], nil
	}
	// As NGINX's server line, the address is a host and a port between 1
	// and 65535: no path or query after them.
	host, port, err := splitAuthority(addr, checkHost)
	if err == nil && strings.ContainsAny(addr, "/?") {
		err = errors.New("invalid host")
	}
	if err != nil {
		return "", fmt.Errorf("invalid server address %q: %w", addr, err)
	}
	if port == "" {
		port = "80"
	}
	return host + ":" + port, nil
}
