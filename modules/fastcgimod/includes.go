package fastcgimod

import (
	"embed"

	"github.com/mosaic-edge/mosaic/server"
)

// files are the support files Debian's NGINX package puts beside
// nginx.conf for FastCGI, served to "include" when a configuration has
// none of its own.
//
//go:embed nginx/fastcgi_params nginx/fastcgi.conf nginx/snippets/fastcgi-php.conf
var files embed.FS

func init() {
	for _, name := range []string{"fastcgi_params", "fastcgi.conf", "snippets/fastcgi-php.conf"} {
		b, err := files.ReadFile("nginx/" + name)
		if err != nil {
			panic(err)
		}
		server.RegisterInclude(name, string(b))
	}
}
