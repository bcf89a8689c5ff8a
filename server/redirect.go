package server

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// AbsoluteRedirect makes target absolute, when it starts with "/", as
// absolute_redirect, port_in_redirect and server_name_in_redirect say for
// the location serving r; other targets, and requests that the server is
// not serving, are returned as they are. The proxy applies it to the
// Location headers that proxy_redirect rewrote, as NGINX does.
func AbsoluteRedirect(r *http.Request, target string) string {
	ri := infoFrom(r.Context())
	if !strings.HasPrefix(target, "/") || ri == nil || ri.srv == nil {
		return target
	}
	return absoluteLocation(r, ri, target)
}

// absoluteLocation makes a redirect target that mosaic produced and that
// starts with "/" absolute, as NGINX's header filter does with
// absolute_redirect on: the scheme of the connection, the host the client
// named (or, with server_name_in_redirect on, the server's first name;
// without either, the local address), and the local port unless it is
// the scheme's own or port_in_redirect is off. NGINX takes the port from
// the socket, not from the Host header, and so does this.
func absoluteLocation(r *http.Request, ri *reqInfo, target string) string {
	l := ri.loc
	if l == nil {
		l = ri.srv.level // an answer given before a location was chosen
	}
	cl := LocConf[*coreLoc](l, coreModule)
	if !cl.absRedirect.V {
		return target
	}
	local := localAddr(r)
	lhost, lport, err := net.SplitHostPort(local)
	if err != nil {
		lhost, lport = "", "" // a Unix-domain socket: no port
	}
	host := ""
	switch {
	case cl.nameInRedirect.V:
		host = ri.srv.Name()
	case ri.st != nil && ri.st.Host != "":
		host = ri.st.Host
	default:
		host = lhost
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	scheme, def := "http", "80"
	if r.TLS != nil {
		scheme, def = "https", "443"
	}
	var b strings.Builder
	b.Grow(len(scheme) + 3 + len(host) + 6 + len(target))
	b.WriteString(scheme)
	b.WriteString("://")
	b.WriteString(host)
	if cl.portInRedirect.V && lport != "" && lport != def {
		if n, err := strconv.Atoi(lport); err == nil && n != 0 {
			b.WriteByte(':')
			b.WriteString(lport)
		}
	}
	b.WriteString(target)
	return b.String()
}
