package server

import (
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
	"github.com/mosaic-edge/mosaic/vars"
)

// symlinkConf is disable_symlinks: what links on the way to a file do
// (0: followed), and the part of the path (from=) that is not checked.
type symlinkConf struct {
	mode nolinks.Mode
	from *vars.Template // nil: the whole path is checked
}

// setDisableSymlinks reads "disable_symlinks off | on | if_not_owner
// [from=part]", with NGINX's errors.
func setDisableSymlinks(c *Cmd) error {
	var conf symlinkConf
	mode, fromSet := "", false
	for _, a := range c.Args {
		switch {
		case a == "off", a == "on", a == "if_not_owner":
			mode = a
		case strings.HasPrefix(a, "from="):
			t, err := c.Template(a[len("from="):])
			if err != nil {
				return err
			}
			conf.from, fromSet = t, true
		default:
			return c.Errorf("invalid parameter %q", a)
		}
	}
	switch {
	case mode == "":
		return c.Errorf(`"%s" must have "off", "on" or "if_not_owner" parameter`, c.Name)
	case len(c.Args) == 2 && !fromSet:
		return c.Errorf("duplicate parameters %q", c.Args[0]+" "+c.Args[1])
	case mode == "off" && fromSet:
		return c.Errorf(`"from=" cannot be used with "off" parameter`)
	}
	switch mode {
	case "on":
		conf.mode = nolinks.Refuse
	case "if_not_owner":
		conf.mode = nolinks.IfNotOwner
	}
	return Put(c, &c.Loc().(*coreLoc).symlinks, conf)
}

// Symlinks tells a module that opens files below dir for r what
// disable_symlinks asks of it: mode is what a symbolic link on the way
// does (0: it is followed; nolinks.Refuse: 403 at the file, 404 on the
// way; nolinks.IfNotOwner: 403 unless its owner owns what it leads to);
// from is the leading part of dir's own path that is not checked, "" for
// all of dir's path checked, dir for only what lies below it. NGINX skips
// the from= part of the file's whole path; where that part reaches below
// dir, mosaic still checks every component below dir, which refuses more.
func (l *Location) Symlinks(r *http.Request, dir string) (mode nolinks.Mode, from string) {
	sc := LocConf[*coreLoc](l, coreModule).symlinks.V
	if sc.mode == 0 || sc.from == nil {
		return sc.mode, ""
	}
	f := sc.from.Eval(r)
	if f == "" {
		return sc.mode, ""
	}
	f = filepath.Clean(f)
	d := filepath.Clean(dir)
	switch {
	case f == d || d == "/" || below(f, d):
		return sc.mode, d
	case f == "/" || below(d, f):
		return sc.mode, f
	}
	return sc.mode, "" // not a part of the path: all of it is checked
}

// below reports whether the clean path p lies below the directory dir,
// without building dir + "/" on every request.
func below(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// Stat examines the file name for r as the tests of "if" do, following
// symbolic links, unless disable_symlinks refuses a link on the way
// (checked from its from= part, or from the file system's root).
func (l *Location) Stat(r *http.Request, name string) (fs.FileInfo, error) {
	if mode, from := l.Symlinks(r, filepath.Dir(name)); mode != 0 {
		if err := nolinks.InPath(name, from, mode); err != nil {
			return nil, err
		}
	}
	return os.Stat(name)
}
