// Package all links every module of the mosaic binary: importing it
// registers their directives with the server. cmd/mosaic imports it, and
// so do the benchmarks that drive the whole server in process, so that
// every per-request hook of the modules is on the path they measure, as
// it is in the binary.
package all

import (
	_ "github.com/mosaic-edge/mosaic/modules/accesslogmod"
	_ "github.com/mosaic-edge/mosaic/modules/accessmod"
	_ "github.com/mosaic-edge/mosaic/modules/additionmod"
	_ "github.com/mosaic-edge/mosaic/modules/authmod"
	_ "github.com/mosaic-edge/mosaic/modules/browsermod"
	_ "github.com/mosaic-edge/mosaic/modules/cachemod"
	_ "github.com/mosaic-edge/mosaic/modules/charsetmod"
	_ "github.com/mosaic-edge/mosaic/modules/compressmod"
	_ "github.com/mosaic-edge/mosaic/modules/davmod"
	_ "github.com/mosaic-edge/mosaic/modules/emptygifmod"
	_ "github.com/mosaic-edge/mosaic/modules/esimod"
	_ "github.com/mosaic-edge/mosaic/modules/fastcgimod"
	_ "github.com/mosaic-edge/mosaic/modules/flvmod"
	_ "github.com/mosaic-edge/mosaic/modules/geoipmod"
	_ "github.com/mosaic-edge/mosaic/modules/geomod"
	_ "github.com/mosaic-edge/mosaic/modules/grpcmod"
	_ "github.com/mosaic-edge/mosaic/modules/gunzipmod"
	_ "github.com/mosaic-edge/mosaic/modules/headersmod"
	_ "github.com/mosaic-edge/mosaic/modules/imagefiltermod"
	_ "github.com/mosaic-edge/mosaic/modules/limitmod"
	_ "github.com/mosaic-edge/mosaic/modules/mapmod"
	_ "github.com/mosaic-edge/mosaic/modules/memcachedmod"
	_ "github.com/mosaic-edge/mosaic/modules/mirrormod"
	_ "github.com/mosaic-edge/mosaic/modules/mp4mod"
	_ "github.com/mosaic-edge/mosaic/modules/proxymod"
	_ "github.com/mosaic-edge/mosaic/modules/randomindexmod"
	_ "github.com/mosaic-edge/mosaic/modules/realipmod"
	_ "github.com/mosaic-edge/mosaic/modules/referermod"
	_ "github.com/mosaic-edge/mosaic/modules/rewritemod"
	_ "github.com/mosaic-edge/mosaic/modules/scgimod"
	_ "github.com/mosaic-edge/mosaic/modules/securelinkmod"
	_ "github.com/mosaic-edge/mosaic/modules/slicemod"
	_ "github.com/mosaic-edge/mosaic/modules/splitmod"
	_ "github.com/mosaic-edge/mosaic/modules/ssimod"
	_ "github.com/mosaic-edge/mosaic/modules/staticmod"
	_ "github.com/mosaic-edge/mosaic/modules/statusmod"
	_ "github.com/mosaic-edge/mosaic/modules/submod"
	_ "github.com/mosaic-edge/mosaic/modules/throttlemod"
	_ "github.com/mosaic-edge/mosaic/modules/useridmod"
	_ "github.com/mosaic-edge/mosaic/modules/uwsgimod"
)
