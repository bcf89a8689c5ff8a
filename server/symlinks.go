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

// symlinkConf is disable_symlinks: whether links on the way to a file are
// refused, and the part of the path (from=) that is not checked.
type symlinkConf struct {
	refuse bool
	from   *vars.Template // nil: the whole path is checked
}

// setDisableSymlinks reads "disable_symlinks off | on | if_not_owner
// [from=part]", with NGINX's errors. if_not_owner, which allows a link
// whose owner is the owner of what it points to, is refused: mosaic
// cannot yet compare the owners along the way.
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
	case mode == "if_not_owner":
		return c.Errorf(`"disable_symlinks if_not_owner" is not supported: links are either followed (off) or refused (on)`)
	}
	conf.refuse = mode == "on"
	return Put(c, &c.Loc().(*coreLoc).symlinks, conf)
}

// Symlinks tells a module that opens files below dir for r what
// disable_symlinks asks of it: refuse says whether a symbolic link on
// the way refuses the file (403); then from is the leading part of dir's
// own path that is not checked, "" for all of dir's path checked, dir
// for only what lies below it. NGINX skips the from= part of the file's
// whole path; where that part reaches below dir, mosaic still checks
// every component below dir, which refuses more.
func (l *Location) Symlinks(r *http.Request, dir string) (refuse bool, from string) {
	sc := LocConf[*coreLoc](l, coreModule).symlinks.V
	if !sc.refuse {
		return false, ""
	}
	if sc.from == nil {
		return true, ""
	}
	f := sc.from.Eval(r)
	if f == "" {
		return true, ""
	}
	f = filepath.Clean(f)
	d := filepath.Clean(dir)
	switch {
	case f == d || strings.HasPrefix(f, d+"/") || d == "/":
		return true, d
	case strings.HasPrefix(d, f+"/") || f == "/":
		return true, f
	}
	return true, "" // not a part of the path: all of it is checked
}

// Stat examines the file name for r as the tests of "if" do, following
// symbolic links, unless disable_symlinks refuses a link on the way
// (checked from its from= part, or from the file system's root).
func (l *Location) Stat(r *http.Request, name string) (fs.FileInfo, error) {
	if refuse, from := l.Symlinks(r, filepath.Dir(name)); refuse {
		if err := nolinks.InPath(name, from); err != nil {
			return nil, err
		}
	}
	return os.Stat(name)
}
