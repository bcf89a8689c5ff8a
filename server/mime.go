package server

import (
	_ "embed"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/internal/header"
)

// mimeTypes is NGINX's mime.types. It is used when a configuration has no
// "types" block, and when a configuration includes "mime.types" by a
// relative name that does not exist beside it.
//
//go:embed mime.types
var mimeTypes string

// Types maps file extensions (lowercase, without the dot) to media types.
type Types struct {
	byExt map[string]*extType
	// recent holds extensions that ByName found in byExt, one a slot by a
	// hash of the extension: a file server asks for the same few types on
	// every response, and one comparison answers them without the map's
	// lookup, whose code (hashing, probing a table of a hundred types) no
	// other part of a response runs and so misses the instruction cache
	// (compress README, small20). Only byExt's own entries are kept, so a
	// slot costs no allocation, and an extension that differs in case from
	// its entry, or that is unknown, goes to the map every time.
	recent [typeSlots]atomic.Pointer[extType]
}

// typeSlots is the size of Types.recent: a power of two, where twenty
// common extensions of the web (html, css, js, json, png, jpg, svg,
// woff2, ...) take a slot each but for two pairs.
const typeSlots = 32

// extType is one entry of a Types: an extension and its type.
type extType struct{ ext, typ string }

// typeSlot picks ext's slot in Types.recent from its first and last
// bytes and its length (ext is not empty).
func typeSlot(ext string) int {
	return int(uint(ext[0])*5+uint(ext[len(ext)-1])*3+uint(len(ext))) & (typeSlots - 1)
}

// ByName returns the type for a file name's extension, or "". The
// extension is NGINX's (ngx_http_set_exten): what follows the last dot of
// the last path segment, unless that dot begins the segment, so a dotfile
// such as "/.css" has none and gets default_type, as in NGINX.
func (t *Types) ByName(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || name[i-1] == '/' || i == len(name)-1 || strings.IndexByte(name[i:], '/') >= 0 {
		return ""
	}
	ext := name[i+1:]
	slot := &t.recent[typeSlot(ext)]
	if e := slot.Load(); e != nil && e.ext == ext {
		return e.typ
	}
	if e := t.byExt[ext]; e != nil {
		slot.Store(e)
		return e.typ
	}
	if e := t.byExt[header.LowerASCII(ext)]; e != nil {
		return e.typ
	}
	return ""
}

// Len returns the number of extensions known.
func (t *Types) Len() int { return len(t.byExt) }

// add maps ext, in any case, to typ. Types are built before any request
// looks one up: recent is empty then.
func (t *Types) add(ext, typ string) {
	ext = header.LowerASCII(ext)
	t.byExt[ext] = &extType{ext: ext, typ: typ}
}

var (
	defTypesOnce sync.Once
	defTypes     *Types
)

func defaultTypes() *Types {
	defTypesOnce.Do(func() {
		dirs, err := conf.ParseString("mime.types (built-in)", mimeTypes, conf.Options{})
		if err != nil || len(dirs) != 1 {
			panic("server: built-in mime.types does not parse")
		}
		defTypes = &Types{byExt: map[string]*extType{}}
		for _, d := range dirs[0].Block {
			for _, ext := range d.Args {
				defTypes.add(ext, d.Name)
			}
		}
	})
	return defTypes
}

// builtinInclude answers "include mime.types;" when no such file exists,
// and the files modules registered (fastcgi_params, ...).
func builtinInclude(name string) (string, bool) {
	if name == "mime.types" {
		return mimeTypes, true
	}
	includesMu.RLock()
	text, ok := includes[name]
	includesMu.RUnlock()
	return text, ok
}

var (
	includesMu sync.RWMutex
	includes   = map[string]string{}
)

// RegisterInclude makes text the content of "include name;" when the
// configuration has no file by that relative name, as mime.types is:
// a module ships the files that NGINX's packages install beside
// nginx.conf (fastcgi_params, snippets/fastcgi-php.conf). Modules call it
// from init.
func RegisterInclude(name, text string) {
	includesMu.Lock()
	defer includesMu.Unlock()
	if _, dup := includes[name]; dup || name == "mime.types" {
		panic("server: built-in include " + name + " registered twice")
	}
	includes[name] = text
}

// setTypes reads a "types { type ext ...; }" block. Several blocks at one
// level add to each other, as they do when NGINX includes mime.types and
// a site adds a type.
func setTypes(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	t := cl.types.V
	if !cl.types.Set {
		t = &Types{byExt: map[string]*extType{}}
		cl.types.Put(t)
	}
	for _, d := range c.Block {
		if d.Block != nil {
			return conf.Errorf(d, "unexpected \"{\"")
		}
		if len(d.Args) == 0 {
			return conf.Errorf(d, "invalid number of arguments in %q directive", d.Name)
		}
		for _, ext := range d.Args {
			t.add(ext, d.Name)
		}
	}
	return nil
}
