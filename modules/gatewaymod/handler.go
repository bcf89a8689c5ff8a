package gatewaymod

import (
	"fmt"
	"net/http"

	"github.com/mosaic-edge/mosaic/modules/throttlemod"
	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/server"
)

// Gateway describes a gateway module for NewHandler: how to find its
// settings in a location and how to build its Wire.
type Gateway struct {
	// Conf returns the module's gateway settings of a location.
	Conf func(l *server.Location) *Conf
	// Wire builds the protocol of location l, whose *_pass is in g.
	Wire func(l *server.Location, g *Conf) proxy.Wire
	// Adjust, when set, changes the options of location l that the
	// module needs changed (uwsgi passes the Status header that FastCGI
	// hides; memcached never buffers).
	Adjust func(l *server.Location, o *proxy.Options)
	// TLS returns the TLS settings of location l (its *_ssl_*
	// directives), for a *_pass with PassTLS; nil for a module whose
	// protocol has no TLS form.
	TLS func(l *server.Location) (proxy.TLSOptions, error)
}

// NewHandler builds the gateway of location l, and false when l has no
// *_pass. An "if" block without a *_pass of its own uses its location's.
// adjust, when set, changes the proxy options last (the cache reports
// failures through them).
func (gw Gateway) NewHandler(l *server.Location, adjust func(*proxy.Options)) (*proxy.Handler, bool, error) {
	pc := gw.passConf(l)
	if pc.Pass == nil {
		return nil, false, nil
	}
	g := *gw.Conf(l)
	g.Pass, g.PassPos, g.PassTLS = pc.Pass, pc.PassPos, pc.PassTLS
	opts, err := Options(l, &g, gw.Wire(l, &g))
	if err != nil {
		return nil, false, err
	}
	if g.PassTLS {
		if gw.TLS == nil {
			return nil, false, fmt.Errorf("%s_pass in %s: TLS is not supported", g.Pass.Scheme, g.PassPos)
		}
		if opts.TLS, err = gw.TLS(l); err != nil {
			return nil, false, err
		}
		opts.WireTLS = true
	}
	if gw.Adjust != nil {
		gw.Adjust(l, &opts)
	}
	if adjust != nil {
		adjust(&opts)
	}
	h, err := proxy.New(opts)
	if err != nil {
		return nil, false, fmt.Errorf("%s_pass in %s: %w", g.Pass.Scheme, g.PassPos, err)
	}
	if !opts.IgnoreAccelLimitRate {
		throttlemod.MayLimit(l.Server().Config())
	}
	return h, true, nil
}

// Content is the gateway module's content factory: the gateway of a
// location that passes to it, nothing for one that does not.
func (gw Gateway) Content(l *server.Location) (http.Handler, error) {
	h, ok, err := gw.NewHandler(l, nil)
	if err != nil || !ok {
		return nil, err
	}
	// The store takes the level's *_store with the *_pass that serves it
	// (an "if" block's may be its location's).
	g := *gw.Conf(l)
	if g.Pass == nil {
		g.Pass = gw.passConf(l).Pass
	}
	return g.WrapStore(l, h), nil
}

// passConf returns the settings of the level whose *_pass serves l: its
// own, or for an "if" block without one, its location's.
func (gw Gateway) passConf(l *server.Location) *Conf {
	for gw.Conf(l).Pass == nil && l.IsImplicit() {
		l = l.Parent()
	}
	return gw.Conf(l)
}
