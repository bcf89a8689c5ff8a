// Package mp4mod wires package mp4 to the server as NGINX's
// ngx_http_mp4_module: "mp4;" in a location makes its files answer
// "?start=&end=" with the MP4 file cut between those times (mp4.Process
// through a static.Cutter), the rest as the static module does;
// mp4_buffer_size, mp4_max_buffer_size and mp4_start_key_frame set
// mp4.Options.
package mp4mod

import (
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/mosaic-edge/mosaic/modules/staticmod"
	"github.com/mosaic-edge/mosaic/mp4"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/static"
	"github.com/mosaic-edge/mosaic/vars"
)

// locConf holds the mp4 module's directives at one level. "mp4" itself
// is the location's own, as NGINX's content handlers are: a nested
// location does not inherit it, an "if" block inside the location does.
type locConf struct {
	on            bool
	bufferSize    server.Setting[int64]
	maxBufferSize server.Setting[int64]
	startKeyFrame server.Setting[bool]
}

func setSize(get func(*locConf) *server.Setting[int64]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		n, err := c.Size(c.Args[0])
		if err != nil {
			return err
		}
		return server.Put(c, get(c.Loc().(*locConf)), n)
	}
}

var module = &server.Module{
	Name: "mp4",
	Directives: []server.Directive{
		{Name: "mp4", Context: server.CtxLocation, Set: func(c *server.Cmd) error {
			c.Loc().(*locConf).on = true
			return nil
		}},
		{Name: "mp4_buffer_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setSize(func(l *locConf) *server.Setting[int64] { return &l.bufferSize })},
		{Name: "mp4_max_buffer_size", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: setSize(func(l *locConf) *server.Setting[int64] { return &l.maxBufferSize })},
		{Name: "mp4_start_key_frame", Context: server.CtxHTTPAll, MinArgs: 1, MaxArgs: 1,
			Set: server.SetFlag(func(l *locConf) *server.Setting[bool] { return &l.startKeyFrame })},
	},
	NewLoc: func() any { return &locConf{} },
	MergeLoc: func(p, c any) error {
		parent, child := p.(*locConf), c.(*locConf)
		child.bufferSize.Merge(parent.bufferSize)
		child.maxBufferSize.Merge(parent.maxBufferSize)
		child.startKeyFrame.Merge(parent.startKeyFrame)
		return nil
	},
}

func init() {
	module.Content = content
	server.Register(module)
}

func content(l *server.Location) (http.Handler, error) {
	if !server.LocConf[*locConf](l.Own(), module).on {
		return nil, nil
	}
	lc := server.LocConf[*locConf](l, module)
	// A size of 0 is NGINX's too (no read is ever large enough: every
	// cut fails); 1 byte does the same where mp4.Options reads 0 as
	// its default.
	opts := mp4.Options{
		BufferSize:    max(lc.bufferSize.Or(512<<10), 1),
		MaxBufferSize: max(lc.maxBufferSize.Or(10<<20), 1),
		StartKeyFrame: lc.startKeyFrame.V,
	}
	files, err := staticmod.CutContent(l, cutter(opts, l.Logger()))
	if err != nil {
		return nil, err
	}
	return staticmod.GetOrHead(files), nil
}

// cutter answers "?start=&end=" as NGINX's mp4 handler does: without a
// start (or an end) that parses, the file goes whole; otherwise the file
// is cut, at most one range of the answer is served, and a file that
// cannot be cut is a 500.
func cutter(opts mp4.Options, log *slog.Logger) static.Cutter {
	return func(r *http.Request, f io.ReaderAt, size int64) (static.Cut, int) {
		start, haveStart := timeArg(r, "start")
		end, haveEnd := timeArg(r, "end")
		startMS, lengthMS, ok := mp4.Range(start, haveStart, end, haveEnd)
		if !ok {
			return static.Cut{To: size}, 0
		}
		c, err := mp4.Process(f, size, startMS, lengthMS, opts)
		if errors.Is(err, mp4.ErrWhole) {
			return static.Cut{To: size, SingleRange: true}, 0
		}
		if err != nil {
			log.LogAttrs(r.Context(), slog.LevelError, "mp4: cannot cut file",
				slog.String("uri", r.URL.Path), slog.Any("error", err))
			return static.Cut{}, http.StatusInternalServerError
		}
		return static.Cut{Head: c.Head, From: c.From, To: c.To, SingleRange: true}, 0
	}
}

// timeArg reads the argument name as seconds with a fraction; ok is false
// when it is missing or does not parse.
func timeArg(r *http.Request, name string) (ms int64, ok bool) {
	v, found := vars.Arg(r, name)
	if !found {
		return 0, false
	}
	return mp4.ParseTime(v)
}
