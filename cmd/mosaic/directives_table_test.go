package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/server"
)

// The README's table of NGINX directives is a promise to users about what
// loads; this package links every module, so its registry is the one the
// binary has, and the test keeps the table from drifting away from it.

// directiveRow is one line of a table in the "NGINX directives" section.
type directiveRow struct {
	name, status, group string
	line                int
}

var directiveRowRE = regexp.MustCompile("^\\| `([a-z0-9_]+)` \\| (supported|notice|refused) \\|(.*)\\|$")

// readDirectiveTable returns the rows of the "NGINX directives" section of
// the README at path, failing on a table line it cannot read.
func readDirectiveTable(t *testing.T, path string) []directiveRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []directiveRow
	in, group, n := false, "", 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case l == "## NGINX directives":
			in = true
			continue
		case in && strings.HasPrefix(l, "## "):
			in = false
		}
		if !in {
			continue
		}
		if strings.HasPrefix(l, "### ") {
			group = l[4:]
			continue
		}
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		m := directiveRowRE.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("%s:%d: unreadable row %q", path, n, l)
			continue
		}
		rows = append(rows, directiveRow{name: m[1], status: m[2], group: group, line: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no \"## NGINX directives\" table", path)
	}
	return rows
}

// probeWrappers place a directive in a context, outermost first.
var probeWrappers = []struct {
	ctx  server.Context
	wrap string
}{
	{server.CtxMain, "%s"},
	{server.CtxEvents, "events { %s }"},
	{server.CtxHTTP, "http { %s }"},
	{server.CtxServer, "http { server { %s } }"},
	{server.CtxLocation, "http { server { location / { %s } } }"},
	{server.CtxUpstream, "http { upstream u { server 127.0.0.1:1; %s } }"},
}

// probeDirective loads a configuration holding d once, in the outermost
// context it is registered for, with its minimum number of arguments, all
// equal to arg.
func probeDirective(d server.DirectiveInfo, arg string) (*server.Config, error) {
	line := d.Name + strings.Repeat(" "+arg, d.MinArgs)
	if d.Block {
		line += " { }"
	} else {
		line += ";"
	}
	for _, w := range probeWrappers {
		if d.Context&w.ctx != 0 {
			return server.LoadString("probe.conf", fmt.Sprintf(w.wrap, line))
		}
	}
	return nil, fmt.Errorf("%q: no context to probe it in (%v)", d.Name, d.Context)
}

// probeArgs are tried in turn as a probed directive's arguments: one of
// them suits each of the directives that load with a notice ("root" is
// a user and a group, "1" a CPU mask, "4096 4096" buffers that pass
// NGINX's checks of buffer sizes).
var probeArgs = []string{"64", "on", "off", "1s", "4k", "root", "1", "4096"}

func TestDirectiveTableMatchesRegistry(t *testing.T) {
	checkDirectiveTable(t, filepath.Join("..", "..", "server", "README.md"))
}

// checkDirectiveTable compares the README at path with the registry.
func checkDirectiveTable(t *testing.T, path string) {
	rows := readDirectiveTable(t, path)
	// The probes below load directives with made-up arguments, some of
	// which name files (access_log 64): they land in a temporary directory.
	t.Chdir(t.TempDir())

	regs := map[string][]server.DirectiveInfo{}
	for _, d := range server.Directives() {
		regs[d.Name] = append(regs[d.Name], d)
	}
	ignored := map[string]bool{}
	for _, n := range server.IgnoredDirectives() {
		ignored[n] = true
	}

	listed := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range rows {
		at := fmt.Sprintf("server/README.md:%d: %q", r.line, r.name)
		if key := r.group + "/" + r.name; seen[key] {
			t.Errorf("%s listed twice under %q", at, r.group)
		}
		seen[r.group+"/"+r.name] = true
		listed[r.name] = true
		ds, registered := regs[r.name]

		switch r.status {
		case "supported":
			switch {
			case r.name == "include":
				checkInclude(t, at)
			case !registered:
				t.Errorf("%s is marked supported but no module registers it", at)
			case loadsWithNotice(ds[0]):
				t.Errorf("%s is marked supported but loads with an \"ignoring\" notice", at)
			case alwaysUnsupported(ds[0]):
				t.Errorf("%s is marked supported but is registered only to say it is not", at)
			}

		case "notice":
			if !registered {
				if !ignored[r.name] {
					t.Errorf("%s is marked notice but is neither registered nor in the core's ignored list", at)
					continue
				}
				ds = []server.DirectiveInfo{{Name: r.name, Context: server.CtxMain}}
			}
			if !loadsWithNotice(ds[0]) {
				t.Errorf("%s is marked notice but loads without an \"ignoring\" notice", at)
			}

		case "refused":
			switch {
			case ignored[r.name]:
				t.Errorf("%s is marked refused but loads with a notice", at)
			case registered:
				// Registered only to refuse with a clearer error than
				// "unknown directive" (charset_map): loading must fail.
				if ok, why := refusedClearly(ds[0]); !ok {
					t.Errorf("%s is marked refused but is registered (%s) and %s", at, ds[0].Module, why)
				}
			default:
				_, err := server.LoadString("probe.conf", r.name+";")
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown directive %q", r.name)) {
					t.Errorf("%s is marked refused; loading it gave %v", at, err)
				}
			}
		}
	}

	for n, ds := range regs {
		if !listed[n] {
			t.Errorf("directive %q (module %s) is registered but missing from the README's NGINX directives table", n, ds[0].Module)
		}
	}
	for n := range ignored {
		if !listed[n] {
			t.Errorf("directive %q is accepted with a notice but missing from the README's NGINX directives table", n)
		}
	}
}

// loadsWithNotice reports whether d loads, with one of probeArgs, and
// prints the notice that says it is ignored.
func loadsWithNotice(d server.DirectiveInfo) bool {
	want := fmt.Sprintf("ignoring %q", d.Name)
	for _, a := range probeArgs {
		cfg, err := probeDirective(d, a)
		if err != nil {
			continue
		}
		cfg.Close()
		for _, n := range cfg.Notices() {
			if strings.Contains(n, want) {
				return true
			}
		}
	}
	return false
}

// refusedClearly reports whether a registered directive fails to load with
// every one of probeArgs, naming itself.
func refusedClearly(d server.DirectiveInfo) (bool, string) {
	for _, a := range probeArgs {
		cfg, err := probeDirective(d, a)
		if err == nil {
			cfg.Close()
			return false, fmt.Sprintf("loads with argument %q", a)
		}
		if !strings.Contains(err.Error(), d.Name) {
			return false, fmt.Sprintf("fails without naming itself: %v", err)
		}
	}
	return true, ""
}

// alwaysUnsupported reports whether every probe of d fails with an error
// that calls it unsupported, as a directive registered to refuse does.
func alwaysUnsupported(d server.DirectiveInfo) bool {
	for _, a := range probeArgs {
		cfg, err := probeDirective(d, a)
		if err == nil {
			cfg.Close()
			return false
		}
		if !strings.Contains(err.Error(), "not supported") {
			return false
		}
	}
	return true
}

// checkInclude makes sure "include", which the parser handles rather than
// a module, still brings in another file's directives.
func checkInclude(t *testing.T, at string) {
	t.Helper()
	dir := t.TempDir()
	main := filepath.Join(dir, "main.conf")
	if err := os.WriteFile(main, []byte("include part.conf;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "part.conf"), []byte("daemon off;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := server.Load(main)
	if err != nil {
		t.Errorf("%s is marked supported but a file with it does not load: %v", at, err)
		return
	}
	defer cfg.Close()
	if len(cfg.Notices()) != 1 || !strings.Contains(cfg.Notices()[0], "part.conf:1") {
		t.Errorf("%s is marked supported but the included file was not read: notices %v", at, cfg.Notices())
	}
}
