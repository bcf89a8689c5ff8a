package gatewaymod

import (
	"fmt"
	"net/http"

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
	// Adjust, when set, changes the options the module needs changed
	// (uwsgi passes the Status header that FastCGI hides).
	Adjust func(*proxy.Options)
}

// NewHandler builds the gateway of location l, and false when l has no
// *_pass. An "if" block without a *_pass of its own uses its location's.
// adjust, when set, changes the proxy options last (the cache reports
// failures through them).
func (gw Gateway) NewHandler(l *server.Location, adjust func(*proxy.Options)) (*proxy.Handler, bool, error) {
	pass := l
	for gw.Conf(pass).Pass == nil && pass.IsImplicit() {
		pass = pass.Parent()
	}
	pc := gw.Conf(pass)
	if pc.Pass == nil {
		return nil, false, nil
	}
	g := *gw.Conf(l)
	g.Pass, g.PassPos = pc.Pass, pc.PassPos
	opts, err := Options(l, &g, gw.Wire(l, &g))
	if err != nil {
		return nil, false, err
	}
	if gw.Adjust != nil {
		gw.Adjust(&opts)
	}
	if adjust != nil {
		adjust(&opts)
	}
	h, err := proxy.New(opts)
	if err != nil {
		return nil, false, fmt.Errorf("%s_pass in %s: %w", g.Pass.Scheme, g.PassPos, err)
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
	return h, nil
}
