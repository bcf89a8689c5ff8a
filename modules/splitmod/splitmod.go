// Package splitmod wires splitclients to the server: the split_clients
// block (NGINX's ngx_http_split_clients_module), which defines a variable
// that puts each value of a key in one of several groups, for A/B tests.
package splitmod

import (
	"net/http"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/server"
	"github.com/mosaic-edge/mosaic/splitclients"
	"github.com/mosaic-edge/mosaic/vars"
)

var module = &server.Module{
	Name: "split_clients",
	Directives: []server.Directive{
		{Name: "split_clients", Context: server.CtxHTTP, Block: true, MinArgs: 2, MaxArgs: 2, Set: setSplit},
	},
}

func init() { server.Register(module) }

type splitVar struct {
	key   *vars.Template
	split *splitclients.Split
}

func setSplit(c *server.Cmd) error {
	scope := c.Config().Vars()
	key, err := scope.Compile(c.Args[0], c.Directive)
	if err != nil {
		return c.Errorf("%v", err)
	}
	target := c.Args[1]
	if target == "" || target[0] != '$' {
		return c.Errorf("invalid variable name %q", target)
	}
	var b splitclients.Builder
	for _, d := range c.Block {
		if d.Block != nil {
			return conf.Errorf(d, "unexpected \"{\"")
		}
		if err := b.Line(d.Name, d.Args); err != nil {
			return conf.Errorf(d, "%v", err)
		}
	}
	split, err := b.Split()
	if err != nil {
		return c.Errorf("%v", err)
	}
	s := &splitVar{key: key, split: split}
	if _, err := scope.Define(target[1:], s.get, false); err != nil {
		return c.Errorf("%v", err)
	}
	return nil
}

func (s *splitVar) get(r *http.Request, st *vars.State) string {
	return s.split.Pick(s.key.EvalState(r, st))
}
