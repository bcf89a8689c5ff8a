package server

import (
	"log/slog"
	"net/http"

	"github.com/mosaic-edge/mosaic/internal/reqrule"
	"github.com/mosaic-edge/mosaic/vars"
)

// admit applies the request rules of package reqrule to a client request,
// whatever listener it came from, before a location is chosen. It returns
// the server that answers, the host name for $host, and 0 or the status
// that refuses the request. The order is NGINX's: the request line
// (method, target), then the header (Host, header names), and only then
// the methods it will not serve (405), so a request refused on two counts
// gets the status NGINX gives it.
func admit(r *http.Request, g *addrGroup, st *vars.State) (*VServer, string, int) {
	method := reqrule.Method(r.Method)
	if method == http.StatusBadRequest || !reqrule.Target(r) {
		return g.def, "", http.StatusBadRequest
	}
	host, ok := reqrule.Host(r.Host)
	// HTTP/1.1 requires a Host; one that is there but empty names no
	// server, and NGINX refuses it.
	if !ok || host == "" && r.ProtoMajor == 1 && r.ProtoMinor > 0 {
		return g.def, "", http.StatusBadRequest
	}
	srv, err := g.lookup(host, st)
	if err != nil {
		srv.level.Logger().Error(err.Error())
		return srv, host, http.StatusInternalServerError
	}
	cl := LocConf[*coreLoc](srv.level, coreModule)
	names := reqrule.HeaderNames{Underscores: cl.underscores.V, IgnoreInvalid: cl.ignoreInvalid.V}
	if dropped := names.Filter(r.Header); dropped != nil {
		srv.level.Logger().LogAttrs(r.Context(), slog.LevelInfo, "client sent invalid header names, ignored",
			slog.Any("names", dropped))
	}
	return srv, host, method
}
