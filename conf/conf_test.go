package conf

import (
	"errors"
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

func TestParseValid(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"simple", "a b c;", "a [b] [c]"},
		{"block", "http { server { listen 80; } }", "http {server {listen [80]}}"},
		{"empty block", "events {}", "events {}"},
		{"comments", "# top\na 1; # trailing\n#b 2;\nc 3;", "a [1]; c [3]"},
		{"double quotes", `add_header X "a b;c";`, "add_header [X] [a b;c]"},
		{"single quotes", `log_format main '$remote_addr "x"';`, `log_format [main] [$remote_addr "x"]`},
		{"escapes in quotes", `a "q\"t\\b\n";`, "a [q\"t\\b\n]"},
		{"regex escapes kept", `location ~ "\.php$" {}`, `location [~] [\.php$] {}`},
		{"unquoted regex", `location ~ \.(gif|jpg)$ {}`, `location [~] [\.(gif|jpg)$] {}`},
		{"escaped semicolon", `a b\;c;`, "a [b;c]"},
		{"hash inside word", `a b#c;`, "a [b#c]"},
		{"variable braces", `a ${host}x;`, "a [${host}x]"},
		{"empty quoted arg", `proxy_set_header Connection "";`, "proxy_set_header [Connection] []"},
		{"multiline args", "a\n  b\n  c;", "a [b] [c]"},
		{"quote inside word", `a b"c;`, `a [b"c]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dirs, err := ParseString("t.conf", c.src, Options{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if got := flat(dirs); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unexpected close", "a;\n}", `unexpected "}" in t.conf:2`},
		{"eof in block", "http {\n a;\n", `unexpected end of file, expecting "}" in t.conf:3`},
		{"eof in directive", "a b", `unexpected end of file, expecting ";" or "}" in t.conf:1`},
		{"close in directive", "http { a b }", `unexpected "}" in t.conf:1`},
		{"stray semicolon", "a;\n;", `unexpected ";" in t.conf:2`},
		{"stray brace", "{", `unexpected "{" in t.conf:1`},
		{"no space after quote", "a \"b\"c;", `unexpected "c" in t.conf:1`},
		{"unterminated quote", "a \"b;\n\n", `unexpected end of file, expecting terminating quote in t.conf:3`},
		{"unterminated variable", "a ${b;", `unexpected end of file, expecting "}" of a variable in t.conf:1`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseString("t.conf", c.src, Options{})
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if err.Error() != c.want {
				t.Fatalf("got  %q\nwant %q", err.Error(), c.want)
			}
		})
	}
}

func TestLineNumbers(t *testing.T) {
	src := "a;\n\n# c\nhttp {\n  server {\n    listen\n      80;\n  }\n}\n"
	dirs, err := ParseString("n.conf", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	listen := dirs[1].Block[0].Block[0]
	if listen.Line != 6 || listen.Pos() != "n.conf:6" {
		t.Fatalf("listen at %s", listen.Pos())
	}
	if dirs[1].Line != 4 {
		t.Fatalf("http at line %d", dirs[1].Line)
	}
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
	write("main.conf", "http {\n include sites/*.conf;\n include types.conf;\n}\n")
	write("sites/b.conf", "server { listen 2; }\n")
	write("sites/a.conf", "server { listen 1; include ../inner.conf; }\n")
	write("types.conf", "types { text/html html; }\n")
	write("inner.conf", "\n\nroot /x;\n")
	dirs, err := ParseFile(filepath.Join(dir, "main.conf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "http {server {listen [1]; root [/x]}; server {listen [2]}; types {text/html [html]}}"
	if got := flat(dirs); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	root := dirs[0].Block[0].Block[1]
	if root.File != filepath.Join(dir, "inner.conf") || root.Line != 3 {
		t.Fatalf("root at %s", root.Pos())
	}

	// A glob matching nothing is fine; a missing plain file is an error
	// naming the including file and line.
	write("glob.conf", "include none/*.conf;\na;\n")
	if _, err := ParseFile(filepath.Join(dir, "glob.conf"), Options{}); err != nil {
		t.Fatalf("empty glob: %v", err)
	}
	write("missing.conf", "\ninclude nope.conf;\n")
	_, err = ParseFile(filepath.Join(dir, "missing.conf"), Options{})
	if err == nil || !strings.Contains(err.Error(), "nope.conf") || !strings.HasSuffix(err.Error(), "missing.conf:2") {
		t.Fatalf("missing include: %v", err)
	}

	// A built-in fallback answers a relative name absent from disk.
	write("fb.conf", "include mime.types;\n")
	dirs, err = ParseFile(filepath.Join(dir, "fb.conf"), Options{Fallback: func(n string) (string, bool) {
		return "types { a b; }", n == "mime.types"
	}})
	if err != nil || flat(dirs) != "types {a [b]}" {
		t.Fatalf("fallback: %v %s", err, flat(dirs))
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
			if !errors.As(err, &ce) || ce.File != "fuzz.conf" || ce.Line < 1 {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		var walk func([]*Directive)
		walk = func(ds []*Directive) {
			for _, d := range ds {
				if d.Line < 1 {
					t.Fatalf("directive %q without line", d.Name)
				}
				walk(d.Block)
			}
		}
		walk(dirs)
	})
}
