package throttlemod

import "github.com/mosaic-edge/mosaic/server"

// Dynamic says whether MayLimit was called for cfg.
func Dynamic(cfg *server.Config) bool {
	return server.MainConf[*mainConf](cfg, module).dynamic.Load()
}
