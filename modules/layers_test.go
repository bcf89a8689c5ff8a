package modules

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/mosaic-edge/mosaic/"

// libraries are the packages usable as net/http handlers on their own.
var libraries = []string{"access", "accesslog", "addition", "auth", "autoindex", "browser", "cache", "compress", "dav", "emptygif", "esi", "fastcgi", "geo", "grpcproxy", "gunzip", "headers", "limit", "memcached", "proxy", "realip", "referer", "rewrite", "scgi", "securelink", "slice", "splitclients", "ssi", "static", "status", "sub", "throttle", "userid", "uwsgi", "vmap"}

// codecs are public packages that are not handlers: formats any layer
// may use, which themselves import nothing of the repository but internal/*
// (the layer rule for libraries checks that).
var codecs = []string{"brotli", "charset", "geoip", "mp4", "zstdenc"}

// allowed says which of the repository's packages a layer may import
// (directly or not): a library, the standard library and its chosen
// dependencies aside, only vars, internal/* and the codecs; the server, no
// library and no wiring (its test helpers under server/ import the server
// itself).
func allowed(layer, dep string) bool {
	switch {
	case dep == "vars" || strings.HasPrefix(dep, "internal/") || slices.Contains(codecs, dep):
		return true
	case layer == "server":
		return dep == "conf" || dep == "http1" || dep == "server"
	case layer == "modules":
		return !strings.HasPrefix(dep, "cmd/")
	}
	return false // a library, http1, conf, vars or internal/*
}

func layerOf(pkg string) string {
	switch {
	case pkg == "server" || strings.HasPrefix(pkg, "server/"):
		return "server"
	case strings.HasPrefix(pkg, "modules/"):
		return "modules"
	}
	return "library"
}

// TestLayers fails when a package imports across the layers: a library
// that imports the server or another library, the server a module.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Name,Deps", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := map[string]bool{}
	for dec.More() {
		var p struct {
			ImportPath string
			Name       string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkg, ok := strings.CutPrefix(p.ImportPath, mod)
		if !ok || p.Name == "main" { // commands: the binary, benchmark tools
			continue
		}
		seen[pkg] = true
		layer := layerOf(pkg)
		for _, d := range p.Deps {
			dep, ok := strings.CutPrefix(d, mod)
			if ok && !allowed(layer, dep) {
				t.Errorf("%s (%s) imports %s", pkg, layer, dep)
			}
		}
	}
	for _, lib := range append(append(libraries, codecs...), "server", "http1", "conf", "vars") {
		if !seen[lib] {
			t.Errorf("package %s not found by go list", lib)
		}
	}
}
