package all

import (
	"testing"

	"github.com/mosaic-edge/mosaic/server"
)

// NGINX reads the values of its enum and bitmask directives
// (ngx_conf_set_enum_slot, ngx_conf_set_bitmask_slot) with
// ngx_strcasecmp: "satisfy ANY" and "ssl_protocols tlsv1.2" load in
// NGINX 1.22.1 and mean what their lowercase spelling does.
func TestEnumValuesIgnoreCaseAsNGINX(t *testing.T) {
	for _, line := range []string{
		"satisfy ANY;",
		"lingering_close ALWAYS;",
		"keepalive_disable MSIE6 Safari;",
		"if_modified_since Before;",
		"limit_req_log_level WARN;",
		"limit_conn_log_level Notice;",
		"gzip_proxied EXPIRED No-Cache;",
		"gzip_proxied OFF;",
		"proxy_cache_use_stale Error Updating;",
		"proxy_cache_use_stale OFF;",
		"autoindex_format JSON;",
		"ssl_verify_client OPTIONAL;",
		"ssl_ocsp LEAF;",
		"ssl_protocols tlsv1.2 TLSV1.3;",
	} {
		cfg, err := server.LoadString("t.conf", "http { server {\n"+line+"\n} }")
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		cfg.Close()
	}
}
