package server

import "testing"

// TestTypesByNameExtension pins the extension as NGINX's
// ngx_http_set_exten finds it: after the last dot of the last path
// segment, unless that dot begins the segment, so a dotfile such as
// "/.css" has none and gets default_type (static files, return's text).
func TestTypesByNameExtension(t *testing.T) {
	types := defaultTypes()
	for name, want := range map[string]string{
		"/a/x.css":    "text/css",
		"x.CSS":       "text/css",
		"/a/x.b.css":  "text/css",
		"/a/.css":     "",
		".css":        "",
		"/a/.x/y":     "",
		"/a.css/":     "",
		"/a/x.":       "",
		"/a/.x.css":   "text/css",
		"/a/x.nosuch": "",
	} {
		if got := types.ByName(name); got != want {
			t.Errorf("ByName(%q) = %q, want %q", name, got, want)
		}
	}
}
