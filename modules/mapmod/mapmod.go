// Package mapmod wires the vmap table to the server: the map block, which
// defines a variable whose value depends on another (NGINX's
// ngx_http_map_module), and the map_hash_* tuning directives.
//
// The variable is computed when a directive first uses it in a request,
// and kept for the rest of the request unless the block says "volatile":
// h5bp's "map $sent_http_content_type $expires" is read by expires as the
// response header goes out, and sees the response's Content-Type.
package mapmod

import (
	"fmt"
	"log/slog"
	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/vars"
	"github.com/mosaic-edge/mosaic/vmap"
)

// mainConf remembers the tuning directives, set at most once each.
type mainConf struct {
	maxSize, bucketSize server.Setting[int]
}

var module = &server.Module{
	Name:    "map",
	NewMain: func() any { return &mainConf{} },
	Directives: []server.Directive{
		{Name: "map", Context: server.CtxHTTP, Block: true, MinArgs: 2, MaxArgs: 2, Set: setMap},
		{Name: "map_hash_max_size", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1,
			Set: setHashSize(func(mc *mainConf) *server.Setting[int] { return &mc.maxSize })},
		{Name: "map_hash_bucket_size", Context: server.CtxHTTP, MinArgs: 1, MaxArgs: 1,
			Set: setHashSize(func(mc *mainConf) *server.Setting[int] { return &mc.bucketSize })},
	},
}

func init() { server.Register(module) }

// setHashSize accepts a map_hash_* number, which tunes NGINX's static
// hash tables; Go's maps size themselves, so it changes nothing.
func setHashSize(field func(*mainConf) *server.Setting[int]) func(*server.Cmd) error {
	return func(c *server.Cmd) error {
		if err := server.PutNum(c, field(c.Main().(*mainConf))); err != nil {
			return err
		}
		c.Notice(fmt.Sprintf("ignoring %q directive (Go's maps need no sizing)", c.Name))
		return nil
	}
}

// mapVar is one map block turned into a variable.
type mapVar struct {
	source *vars.Template
	table  *vmap.Map[*vars.Template]
	// named holds, per regular expression key, the variables of its named
	// groups (nil for unnamed ones): a match sets them, as in NGINX.
	named [][]*vars.Var
	log   *slog.Logger
}

func setMap(c *server.Cmd) error {
	source, err := c.Template(c.Args[0])
	if err != nil {
		return err
	}
	target := c.Args[1]
	if len(target) == 0 || target[0] != '$' {
		return c.Errorf("invalid variable name %q", target)
	}
	scope := c.Config().Vars()
	b := vmap.NewBuilder[*vars.Template]()
	volatile := false
	for _, d := range c.Block {
		if d.Block != nil {
			return conf.Errorf(d, "unexpected \"{\"")
		}
		if len(d.Args) == 0 && d.Name == "hostnames" {
			b.Hostnames()
			continue
		}
		if len(d.Args) == 0 && d.Name == "volatile" {
			volatile = true
			continue
		}
		if len(d.Args) != 1 {
			return conf.Errorf(d, "invalid number of the map parameters")
		}
		// The value's variables may be defined later in the file; the
		// line is named if one is never defined.
		val, err := scope.Compile(d.Args[0], d)
		if err != nil {
			return conf.Errorf(d, "%v", err)
		}
		if err := b.Add(d.Name, val); err != nil {
			return conf.Errorf(d, "%v", err)
		}
	}
	m := &mapVar{source: source, table: b.Map(), log: c.Logger()}
	for _, re := range m.table.Regexes() {
		var named []*vars.Var
		for i, name := range re.Re.Names() {
			if name == "" {
				continue
			}
			if named == nil {
				named = make([]*vars.Var, len(re.Re.Names()))
			}
			// A named group is a variable that a match sets; a name
			// that something else defined already keeps its definition.
			v, ok := scope.Lookup(name)
			if !ok {
				var err error
				if v, err = scope.Define(name, nil, false); err != nil {
					return c.Errorf("%v", err)
				}
			}
			named[i] = v
		}
		m.named = append(m.named, named)
	}
	if _, err := scope.Define(target[1:], m.get, volatile); err != nil {
		return c.Errorf("%v", err)
	}
	return nil
}

// get computes the variable: the source's value looked up in the table,
// the chosen value evaluated. A regular expression's captures replace the
// request's $1..$9 (as NGINX's do), so that the value can use them.
func (m *mapVar) get(r *http.Request, st *vars.State) string {
	src := m.source.EvalState(r, st)
	res, err := m.table.Find(src)
	if err != nil {
		m.log.Error(fmt.Sprintf("map: %v on %q", err, src))
	}
	if res.Regex >= 0 {
		if st != nil {
			st.Captures = res.Captures
		}
		for i, v := range m.named[res.Regex] {
			if v != nil && i < len(res.Captures) {
				v.Set(st, res.Captures[i])
			}
		}
	}
	if res.Value == nil {
		return "" // no default line: NGINX's empty value
	}
	return res.Value.EvalState(r, st)
}
