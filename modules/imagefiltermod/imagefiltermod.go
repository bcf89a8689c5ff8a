// Package imagefiltermod makes package imagefilter a module of the mosaic
// server: the image_filter* directives, merged http -> server -> location
// as NGINX merges them, and the "image_filter" filter of each location
// where image_filter is on.
package imagefiltermod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/imagefilter"
	"github.com/mosaic-edge/mosaic/server"
)

// filterConf is image_filter's setting: the mode and its arguments,
// inherited together, as NGINX inherits them.
type filterConf struct {
	mode                 imagefilter.Mode
	width, height, angle imagefilter.Value
}

type locConf struct {
	filter       server.Setting[filterConf]
	jpegQuality  server.Setting[imagefilter.Value]
	webpQuality  server.Setting[imagefilter.Value]
	sharpen      server.Setting[imagefilter.Value]
	transparency server.Setting[bool]
	interlace    server.Setting[bool]
	buffer       server.Setting[int64]
}

var module = &server.Module{
	Name:   "image_filter",
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.filter.Merge(parent.filter)
		child.jpegQuality.Merge(parent.jpegQuality)
		child.webpQuality.Merge(parent.webpQuality)
		child.sharpen.Merge(parent.sharpen)
		child.transparency.Merge(parent.transparency)
		child.interlace.Merge(parent.interlace)
		child.buffer.Merge(parent.buffer)
		return nil
	},
}

func init() {
	module.Directives = []server.Directive{
		{Name: "image_filter", Context: server.CtxLocation, MinArgs: 1, MaxArgs: 3, Set: setFilter},
		{Name: "image_filter_jpeg_quality", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setValue(func(l *locConf) *server.Setting[imagefilter.Value] { return &l.jpegQuality }, false)},
		{Name: "image_filter_webp_quality", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setValue(func(l *locConf) *server.Setting[imagefilter.Value] { return &l.webpQuality }, false)},
		{Name: "image_filter_sharpen", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setValue(func(l *locConf) *server.Setting[imagefilter.Value] { return &l.sharpen }, true)},
		{Name: "image_filter_transparency", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.transparency })},
		{Name: "image_filter_interlace", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.interlace })},
		{Name: "image_filter_buffer", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1, Set: setBuffer},
	}
	module.Filter = &server.Filter{
		// NGINX's filter looks at every response of the location, an
		// SSI include's too.
		InSubrequest: true,
		Wrap: func(l *server.Location, next http.Handler) (http.Handler, error) {
			lc := server.LocConf[*locConf](l, module)
			f := lc.filter.V
			if f.mode == imagefilter.Off {
				return next, nil
			}
			return imagefilter.New(next, imagefilter.Options{
				Mode: f.mode, Width: f.width, Height: f.height, Angle: f.angle,
				JPEGQuality:      lc.jpegQuality.Or(imagefilter.Num(75)),
				WebPQuality:      lc.webpQuality.Or(imagefilter.Num(80)),
				Sharpen:          lc.sharpen.V,
				DropTransparency: !lc.transparency.Or(true),
				Interlace:        lc.interlace.V,
				Buffer:           lc.buffer.Or(imagefilter.DefaultBuffer),
				Error:            server.FilterError,
			}), nil
		},
	}
	server.Register(module)
}

// value reads an argument as NGINX's handlers do: with variables, a
// template evaluated per response; otherwise a number, "-" (Unbounded),
// or 0 for anything else, which the caller judges.
func value(c *server.Cmd, arg string) (imagefilter.Value, error) {
	t, err := c.Template(arg)
	if err != nil {
		return imagefilter.Value{}, err
	}
	if !t.Static() {
		return imagefilter.Value{T: t}, nil
	}
	return imagefilter.Num(imagefilter.ParseValue(arg)), nil
}

// setValue is a quality or sharpen directive; a repeated one replaces
// the level's value, as in NGINX. NGINX reads "-" as -1 there, which
// neither takes; a quality must be positive, a sharpening may be 0.
func setValue(get func(*locConf) *server.Setting[imagefilter.Value], zeroOK bool) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		v, err := value(c, c.Args[0])
		if err != nil {
			return err
		}
		if v.T == nil && (v.N == imagefilter.Unbounded || v.N == 0 && !zeroOK) {
			return c.Errorf("invalid value %q", c.Args[0])
		}
		get(c.Loc().(*locConf)).Put(v)
		return nil
	}
}

// setFilter is NGINX's ngx_http_image_filter. A level may have several
// lines: the last mode wins, except that "rotate" adds its angle to a
// resize or crop rather than replacing it.
func setFilter(c *server.Cmd) error {
	lc := c.Loc().(*locConf)
	f := lc.filter.V
	bad := func(arg string) error { return c.Errorf("invalid parameter %q", arg) }
	a := c.Args
	switch {
	case len(a) == 1:
		switch a[0] {
		case "off":
			f.mode = imagefilter.Off
		case "test":
			f.mode = imagefilter.Test
		case "size":
			f.mode = imagefilter.Size
		default:
			return bad(a[0])
		}
	case len(a) == 2:
		if a[0] != "rotate" {
			return bad(a[0])
		}
		if f.mode != imagefilter.Resize && f.mode != imagefilter.Crop {
			f.mode = imagefilter.Rotate
		}
		v, err := value(c, a[1])
		if err != nil {
			return err
		}
		if v.T == nil && v.N != 90 && v.N != 180 && v.N != 270 {
			return bad(a[1])
		}
		f.angle = v
	default:
		switch a[0] {
		case "resize":
			f.mode = imagefilter.Resize
		case "crop":
			f.mode = imagefilter.Crop
		default:
			return bad(a[0])
		}
		var err error
		if f.width, err = value(c, a[1]); err != nil {
			return err
		}
		if f.width.T == nil && f.width.N == 0 {
			return bad(a[1])
		}
		if f.height, err = value(c, a[2]); err != nil {
			return err
		}
		if f.height.T == nil && f.height.N == 0 {
			return bad(a[2])
		}
	}
	lc.filter.Put(f)
	return nil
}

// setBuffer is image_filter_buffer, a size as ngx_conf_set_size_slot
// reads it, once per level.
func setBuffer(c *server.Cmd) error {
	n, err := server.ParseSize(c.Args[0])
	if err != nil {
		return c.Errorf("%q directive invalid value", c.Name)
	}
	return server.Put(c, &c.Loc().(*locConf).buffer, n)
}

// Unranged returns, for static.Options.Unranged, the proxy's forced
// ranges and the cache's Transformed, the test of the types l's image
// filter rebuilds (all of them, told by their bytes), or nil when it is
// off: NGINX offers no range of a filtered response.
func Unranged(l *server.Location) func(contentType string) bool {
	if server.LocConf[*locConf](l, module).filter.V.mode == imagefilter.Off {
		return nil
	}
	return func(string) bool { return true }
}
