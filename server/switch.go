package server

import "net/http"

// switchConf holds a location's own line of a RegisterSwitch module.
type switchConf struct{ on bool }

// RegisterSwitch registers a module whose one directive, name, takes no
// arguments and makes content the content handler of the location that
// has the line ("empty_gif;", "flv;"). Like NGINX's content handlers, the
// line is the location's own: nested locations do not inherit it, the
// "if" blocks inside the location do (Location.Own). content is asked
// only for such a location, when the configuration is built.
func RegisterSwitch(name string, content func(loc *Location) (http.Handler, error)) {
	m := &Module{
		Name: name,
		Directives: []Directive{{Name: name, Context: CtxLocation, Set: func(c *Cmd) error {
			c.Loc().(*switchConf).on = true
			return nil
		}}},
		NewLoc: func() any { return &switchConf{} },
	}
	m.Content = func(l *Location) (http.Handler, error) {
		if !LocConf[*switchConf](l.Own(), m).on {
			return nil, nil
		}
		return content(l)
	}
	Register(m)
}
