package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

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
		// NGINX lowers ASCII letters only: a KELVIN SIGN is no "k".
		"/a/x.\u212Amz": "",
		"/a/x.KMZ":      "application/vnd.google-earth.kmz",
	} {
		if got := types.ByName(name); got != want {
			t.Errorf("ByName(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestTypesByNameRecent checks the slots that keep recent extensions
// against the map they stand for: hits, misses, a case the map answers
// only by its lowercase entry, two extensions that share a slot served
// in turn, and lookups from several goroutines at once (under -race).
func TestTypesByNameRecent(t *testing.T) {
	types := &Types{byExt: map[string]*extType{}}
	exts := []string{"html", "css", "js", "json", "png", "jpg", "svg", "woff2", "ico", "txt", "xml", "gif", "webp", "mp4"}
	for _, ext := range exts {
		types.add(ext, "type/"+ext)
	}
	// Two known extensions that share a slot, found rather than assumed.
	var a, b string
	slots := map[int]string{}
	for i := 0; a == "" && i < 1000; i++ {
		ext := fmt.Sprintf("x%d", i)
		if other, ok := slots[typeSlot(ext)]; ok {
			a, b = other, ext
			types.add(a, "type/"+a)
			types.add(b, "type/"+b)
		}
		slots[typeSlot(ext)] = ext
	}
	if a == "" {
		t.Fatal("no two extensions share a slot")
	}
	want := func(ext string) string {
		if e := types.byExt[strings.ToLower(ext)]; e != nil {
			return e.typ
		}
		return ""
	}
	names := []string{"/a." + a, "/b." + b, "/c.JSON", "/d.nosuch", "/e.Css"}
	for _, ext := range exts {
		names = append(names, "/f/g."+ext)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for round := range 50 {
				for i := range names {
					name := names[(i+g+round)%len(names)]
					ext := name[strings.LastIndexByte(name, '.')+1:]
					if got := types.ByName(name); got != want(ext) {
						t.Errorf("ByName(%q) = %q, want %q", name, got, want(ext))
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if e := types.recent[typeSlot("nosuch")].Load(); e != nil && e.ext == "nosuch" {
		t.Error("an unknown extension was kept")
	}
	if n := testing.AllocsPerRun(100, func() { types.ByName(names[0]); types.ByName(names[1]); types.ByName(names[5]) }); n != 0 {
		t.Errorf("ByName allocates %v times", n)
	}
}
