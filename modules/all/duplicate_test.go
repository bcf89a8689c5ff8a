package all

import (
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/server"
)

// NGINX refuses a second line of a single-valued directive at one level
// ('"max_ranges" directive is duplicate'), whatever the values: reading
// one of the two would silently drop what the other says.
func TestSingleValuedDirectiveDuplicateAsNGINX(t *testing.T) {
	for _, line := range []string{
		"default_type text/plain;",
		"internal;",
		"client_max_body_size 1m;",
		"keepalive_timeout 5s;",
		"keepalive_requests 10;",
		"keepalive_time 1h;",
		"lingering_close on;",
		"output_buffers 2 32k;",
		"if_modified_since off;",
		"max_ranges 1;",
		"open_file_cache_valid 5s;",
		"open_file_cache_min_uses 2;",
		"open_file_cache_errors on;",
		"proxy_http_version 1.1;",
	} {
		name, _, _ := strings.Cut(strings.TrimSuffix(line, ";"), " ")
		want := `"` + name + `" directive is duplicate in t.conf:4`
		cfg, err := server.LoadString("t.conf", "http { server {\nlocation / {\n"+line+"\n"+line+"\n} } }")
		if err == nil {
			cfg.Close()
			t.Errorf("%s twice: loaded, want %s", line, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s twice:\n got  %v\n want %s", line, err, want)
		}
	}
}
