package server

import (
	"crypto/tls"
	"fmt"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

func setCertificate(i int) func(*Cmd) error {
	return func(c *Cmd) error {
		s := c.level.server
		if s.certKey[i] != "" {
			return c.Duplicate()
		}
		s.certKey[i] = c.Args[0]
		return nil
	}
}

// loadCert reads the server's certificate and key once its block is read.
func (s *VServer) loadCert(d *conf.Directive) error {
	if s.certKey[0] == "" {
		return conf.Errorf(d, "no \"ssl_certificate\" is defined for server")
	}
	if s.certKey[1] == "" {
		return conf.Errorf(d, "no \"ssl_certificate_key\" is defined for certificate %q", s.certKey[0])
	}
	cert, err := tls.LoadX509KeyPair(s.certKey[0], s.certKey[1])
	if err != nil {
		return &conf.Error{Msg: fmt.Sprintf("cannot load certificate %q: %v", s.certKey[0], err), File: d.File, Line: d.Line, Err: err}
	}
	s.cert = &cert
	return nil
}

var tlsVersions = map[string]uint16{
	"TLSv1":   tls.VersionTLS10,
	"TLSv1.1": tls.VersionTLS11,
	"TLSv1.2": tls.VersionTLS12,
	"TLSv1.3": tls.VersionTLS13,
}

func setSSLProtocols(c *Cmd) error {
	var lo, hi uint16
	for _, a := range c.Args {
		v, ok := tlsVersions[a]
		if !ok {
			if a == "SSLv2" || a == "SSLv3" {
				c.Notice(fmt.Sprintf("ignoring %q: not supported", a))
				continue
			}
			return c.Invalid(a, "")
		}
		if lo == 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	c.Loc().(*coreLoc).sslProtocols.Put([2]uint16{lo, hi})
	return nil
}

// tlsConfig returns the TLS settings of a listener. Certificates are
// chosen by SNI among the servers of the address, read from the current
// configuration so that a reload changes them without a new socket.
func tlsConfig(cur *atomic.Pointer[Config], bound string) *tls.Config {
	return &tls.Config{
		NextProtos: []string{"h2", "http/1.1"},
		GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
			cfg := cur.Load()
			g := cfg.groupFor(bound, func() string {
				if hello.Conn == nil {
					return ""
				}
				return hello.Conn.LocalAddr().String()
			})
			if g == nil {
				return nil, fmt.Errorf("no server for %s", bound)
			}
			s := g.def
			if name, ok := reqrule.Host(hello.ServerName); ok {
				s = g.find(name)
			}
			if s.cert == nil {
				s = g.def
			}
			if s.cert == nil {
				return nil, fmt.Errorf("no certificate for %q", hello.ServerName)
			}
			out := &tls.Config{
				Certificates: []tls.Certificate{*s.cert},
				// HTTP/2 is offered on every TLS listener, as Go's server
				// does; "listen ... http2" is accepted for compatibility.
				NextProtos: []string{"h2", "http/1.1"},
			}
			if p := LocConf[*coreLoc](s.level, coreModule).sslProtocols; p.Set {
				out.MinVersion, out.MaxVersion = p.V[0], p.V[1]
			} else {
				out.MinVersion = tls.VersionTLS12
			}
			return out, nil
		},
	}
}
