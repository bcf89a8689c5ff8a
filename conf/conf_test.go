package conf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// flat renders a tree as "name arg arg {child; child}" for compact comparisons.
func flat(dirs []*Directive) string {
	var parts []string
	for _, d := range dirs {
		s := d.Name
		for _, a := range d.Args {
			s += " [" + a + "]"
		}
		if d.Block != nil {
			s += " {" + flat(d.Block) + "}"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func TestInclude(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// sites/a.conf includes inner.inc: NGINX takes it from the main
	// file's directory, not from sites/ (whose inner.inc is a decoy).
	write("main.conf", "http {\n include sites/*.conf;\n include types.conf;\n}\n")
	write("sites/b.conf", "server { listen 2; }\n")
	write("sites/a.conf", "server { listen 1; include inner.inc; }\n")
	write("sites/inner.inc", "root /wrong;\n")
	write("types.conf", "types { text/html html; }\n")
	write("inner.inc", "\n\nroot /x;\n")
	dirs, err := ParseFile(filepath.Join(dir, "main.conf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "http {server {listen [1]; root [/x]}; server {listen [2]}; types {text/html [html]}}"
	if got := flat(dirs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	root := dirs[0].Block[0].Block[1]
	if root.File != filepath.Join(dir, "inner.inc") || root.Line != 3 {
		t.Fatalf("root at %s", root.Pos())
	}

	// ParseString takes its name as the main file's.
	dirs, err = ParseString(filepath.Join(dir, "virtual.conf"), "include inner.inc;", Options{})
	if err != nil || flat(dirs) != "root [/x]" {
		t.Fatalf("ParseString: %v %s", err, flat(dirs))
	}

	// A main file named without a directory: includes are found from the
	// working directory, and named as written.
	t.Chdir(dir)
	dirs, err = ParseFile("main.conf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f := dirs[0].Block[0].Block[1].File; f != "inner.inc" {
		t.Fatalf("relative main file: root in %s", f)
	}

	// A glob matching nothing is fine; a missing plain file is an error
	// naming the including file and line.
	write("glob.conf", "include none/*.conf;\na;\n")
	if _, err := ParseFile(filepath.Join(dir, "glob.conf"), Options{}); err != nil {
		t.Fatalf("empty glob: %v", err)
	}
	write("missing.conf", "\ninclude nope.conf;\n")
	_, err = ParseFile(filepath.Join(dir, "missing.conf"), Options{})
	if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "missing.conf:2") {
		t.Fatalf("missing include: %v", err)
	}
	_, err = ParseFile(filepath.Join(dir, "absent.conf"), Options{})
	if want := `open() "` + filepath.Join(dir, "absent.conf") + `" failed (2: No such file or directory)`; err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing main file: %v", err)
	}

	// A built-in fallback answers a relative name absent from the main
	// file's directory, even where the including file's directory has it;
	// a file in the main file's directory wins over the fallback.
	fallback := Options{Fallback: func(n string) (string, bool) {
		return "types { a b; }", n == "mime.types"
	}}
	write("fb.conf", "include sub/fb.conf;\n")
	write("sub/fb.conf", "include mime.types;\n")
	write("sub/mime.types", "types { wrong x; }\n")
	dirs, err = ParseFile(filepath.Join(dir, "fb.conf"), fallback)
	if err != nil || flat(dirs) != "types {a [b]}" || dirs[0].File != "mime.types (built-in)" {
		t.Fatalf("fallback: %v %s", err, flat(dirs))
	}
	write("mime.types", "types { text/x y; }\n")
	dirs, err = ParseFile(filepath.Join(dir, "fb.conf"), fallback)
	if err != nil || flat(dirs) != "types {text/x [y]}" {
		t.Fatalf("file over fallback: %v %s", err, flat(dirs))
	}

	// Cycles stop with an error instead of recursing forever.
	write("loop.conf", "include loop.conf;\n")
	if _, err := ParseFile(filepath.Join(dir, "loop.conf"), Options{}); err == nil || !strings.Contains(err.Error(), "include nesting") {
		t.Fatalf("loop: %v", err)
	}
}

func TestRealConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.conf")
	if len(files) == 0 {
		t.Fatal("no testdata configs")
	}
	for _, f := range files {
		dirs, err := ParseFile(f, Options{})
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(dirs) == 0 {
			t.Errorf("%s: no directives", f)
		}
	}
}

func TestDirectiveHelpers(t *testing.T) {
	d := &Directive{Name: "x", File: "f", Line: 3}
	if err := Errorf(d, "bad %q", "v"); err.Error() != `bad "v" in f:3` {
		t.Fatal(err)
	}
	if !reflect.DeepEqual((&Directive{Block: []*Directive{}}).HasBlock(), true) {
		t.Fatal("HasBlock")
	}
}

func FuzzParse(f *testing.F) {
	seeds := []string{
		"http { server { listen 80; location / { root /x; } } }",
		`a "b\"c" 'd' e\;f ${g};`,
		"# c\n{}};\"",
		"map $http_upgrade $c { default upgrade; '' close; }",
		`if ($request_method = 'OPTIONS') { return 204; }`,
		`if ( $a ~* "x" ){ set $b "${a}\n"; }`,
		"a b\\\nc \"d\\\"\" 'e\n\tf' g}h ${{i;",
	}
	for _, c := range lexCases {
		if len(c.src) < 200 {
			seeds = append(seeds, c.src)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "include") {
			// Includes read the file system (TestInclude covers them); a
			// fuzzer could name /dev/zero.
			t.Skip()
		}
		dirs, err := ParseString("fuzz.conf", src, Options{})
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "fuzz.conf" || ce.Line < 1 || ce.Line > strings.Count(src, "\n")+1 {
				t.Fatalf("error without a position in the text: %v", err)
			}
			return
		}
		var walk func([]*Directive)
		walk = func(ds []*Directive) {
			for _, d := range ds {
				if d.Line < 1 || d.Line > strings.Count(src, "\n")+1 {
					t.Fatalf("directive %q at line %d", d.Name, d.Line)
				}
				walk(d.Block)
			}
		}
		walk(dirs)
		// Every word begins where the lexer says: read from there, the
		// text yields the same word first (TestLexerMatchesNGINX relies
		// on this to show NGINX one word at a time).
		for _, s := range lexAll(src) {
			for _, w := range s.words {
				words, _, err := newLexer("", src[w.off:]).statement()
				if err != nil || len(words) == 0 || words[0].text != w.text {
					t.Fatalf("word %q at %d reads back as %v (%v)", w.text, w.off, words, err)
				}
			}
		}
	})
}
