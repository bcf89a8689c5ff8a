package conf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// These tests run NGINX ("nginx -t") on the same text as mosaic's parser
// and compare what each makes of it. NGINX stops at its first complaint,
// which names what it read: an unknown directive's name and the file and
// line it placed it at, or the syntax error with its line. They are
// skipped where NGINX is not installed.

// nginxPath returns NGINX's binary, or "" where it is not installed.
func nginxPath() string {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	return ""
}

func nginxBinary(t *testing.T) string {
	t.Helper()
	p := nginxPath()
	if p == "" {
		t.Skip("nginx is not installed")
	}
	return p
}

var nginxComplaint = regexp.MustCompile(`\[(?:emerg|crit)\] (?:\d+#\d+: )?`)

// nginxCheck runs "nginx -t" on the main file and returns its first error
// ("message in file:line", as mosaic's errors read), or "" when the test
// passed.
func nginxCheck(t *testing.T, bin, file string) string {
	t.Helper()
	out, _ := exec.Command(bin, "-p", filepath.Dir(file)+"/", "-e", "stderr", "-c", file, "-t").CombinedOutput()
	s := string(out)
	if strings.Contains(s, "test is successful") {
		return ""
	}
	loc := nginxComplaint.FindStringIndex(s)
	end := strings.LastIndex(s, "\nnginx: configuration file ")
	if loc == nil || end < loc[1] {
		t.Fatalf("cannot read nginx's answer:\n%s", s)
	}
	// The message may hold a word's raw newlines; it ends where NGINX's
	// summary line begins.
	return s[loc[1]:end]
}

// nameComplaint is what NGINX says when it reaches a directive it cannot
// take at the top level: mosaic must have read the same name, placed on
// the same line. Which of the two messages NGINX gives does not matter.
func nameComplaint(msg, name, file string, line int) bool {
	pos := fmt.Sprintf(" in %s:%d", file, line)
	return msg == `unknown directive "`+name+`"`+pos ||
		msg == `"`+name+`" directive is not allowed here`+pos
}

type lexedStmt struct {
	words []word
	line  int
}

// lexAll returns every statement of src in the order NGINX reads them,
// blocks flattened, stopping at the first error.
func lexAll(src string) []lexedStmt {
	lx := newLexer("", src)
	var out []lexedStmt
	for {
		words, end, err := lx.statement()
		if err != nil || end == endEOF {
			return out
		}
		if end != endClose {
			out = append(out, lexedStmt{words, lx.line})
		}
	}
}

// TestLexerMatchesNGINX runs every case of the lexer table through NGINX.
// A case mosaic refuses must fail in NGINX with the same message and
// line. For a case mosaic accepts, NGINX's complaint about the first
// directive must name it at its line; then each word is checked on its
// own: the text from where mosaic says the word begins is given to NGINX,
// whose complaint then names the word NGINX read there, which must be
// mosaic's word (so the splitting, the quotes and the escapes are NGINX's).
func TestLexerMatchesNGINX(t *testing.T) {
	bin := nginxBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "t.conf")
	check := func(src string) string {
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return nginxCheck(t, bin, file)
	}
	for _, c := range lexCases {
		t.Run(c.name, func(t *testing.T) {
			got := check(c.src)
			_, err := ParseString(file, c.src, Options{})
			if err != nil {
				if got != err.Error() {
					t.Fatalf("nginx: %q\nmosaic: %q", got, err.Error())
				}
				return
			}
			stmts := lexAll(c.src)
			if len(stmts) == 0 {
				if got != `no "events" section in configuration` {
					t.Fatalf("nginx: %q, mosaic read nothing", got)
				}
				return
			}
			first := stmts[0]
			if !nameComplaint(got, first.words[0].text, file, first.line) {
				t.Fatalf("nginx: %q\nmosaic: directive %q at line %d", got, first.words[0].text, first.line)
			}
			for _, s := range stmts {
				for _, w := range s.words {
					if len(w.text) > 1024 {
						continue // NGINX cuts its messages at 2048 bytes
					}
					rest := c.src[w.off:]
					line := s.line - strings.Count(c.src[:w.off], "\n")
					if got := check(rest); !nameComplaint(got, w.text, file, line) {
						t.Errorf("word at offset %d (%.20q...): nginx: %q\nmosaic: %q at line %d", w.off, rest, got, w.text, line)
					}
				}
			}
		})
	}
}

// TestIncludeMatchesNGINX checks how includes are found: relative to the
// main file's directory, masks expanded as glob(3) does, and the failures,
// with NGINX's messages. Each case states what mosaic reads; where NGINX is
// installed, it must read the same.
func TestIncludeMatchesNGINX(t *testing.T) {
	bin := nginxPath()
	cases := []struct {
		name  string
		files map[string]string // relative to the case's directory; "dir/" makes a directory
		want  string            // mosaic's first directive as "name file:line", or its error; %D is the directory
	}{
		{"relative to the main file", map[string]string{
			"main.conf": "include sub/a.conf;", "sub/a.conf": "\ninclude b.conf;",
			"b.conf": "w_prefix;", "sub/b.conf": "w_including;",
		}, "w_prefix %D/b.conf:1"},
		{"dot-dot kept as written", map[string]string{
			"main.conf": "include sub/../b.conf;", "sub/": "", "b.conf": "\nw_b;",
		}, "w_b %D/sub/../b.conf:2"},
		{"mask skips hidden files", map[string]string{
			"main.conf": "include inc/*.conf;", "inc/.h.conf": "w_hidden;", "inc/z.conf": "w_z;",
		}, "w_z %D/inc/z.conf:1"},
		{"mask skips hidden directories", map[string]string{
			"main.conf": "include */x.conf;", ".b/x.conf": "w_hidden;", "c/x.conf": "w_c;",
		}, "w_c %D/c/x.conf:1"},
		{"mask order is bytewise", map[string]string{
			"main.conf": "include inc/*;", "inc/a.conf": "w_a;", "inc/B.conf": "w_B;",
		}, "w_B %D/inc/B.conf:1"},
		{"mask negated class", map[string]string{
			"main.conf": "include inc/[!a]*;", "inc/a.conf": "w_a;", "inc/b.conf": "w_b;",
		}, "w_b %D/inc/b.conf:1"},
		{"mask matching nothing", map[string]string{
			"main.conf": "include none/*.conf;\ninclude inc/*.x;\nw_after;", "inc/a.conf": "w_a;",
		}, "w_after %D/main.conf:3"},
		{"mask matching a directory", map[string]string{
			"main.conf": "include inc/*;", "inc/a/": "", "inc/b.conf": "w_b;",
		}, `pread() "%D/inc/a" failed (21: Is a directory)`},
		{"dot mask matches the directory itself", map[string]string{
			"main.conf": "include inc/.*;", "inc/.h": "w_h;",
		}, `pread() "%D/inc/." failed (21: Is a directory)`},
		{"plain directory", map[string]string{
			"main.conf": "include inc;", "inc/": "",
		}, `pread() "%D/inc" failed (21: Is a directory)`},
		{"missing file", map[string]string{
			"main.conf": "events {}\ninclude nope.conf;",
		}, `open() "%D/nope.conf" failed (2: No such file or directory) in %D/main.conf:2`},
		{"missing file in an included file", map[string]string{
			"main.conf": "include sub/a.conf;", "sub/a.conf": "include nope.conf;",
		}, `open() "%D/nope.conf" failed (2: No such file or directory) in %D/sub/a.conf:1`},
		{"escaped wildcard", map[string]string{
			"main.conf": `include inc/\*.conf;`, "inc/*.conf": "w_star;", "inc/a.conf": "w_a;",
		}, "w_star %D/inc/*.conf:1"},
		{"include with a block", map[string]string{
			"main.conf": "include a.conf {}", "a.conf": "w;",
		}, `directive "include" is not terminated by ";" in %D/main.conf:1`},
		{"include with two names", map[string]string{
			"main.conf": "include a.conf\n b.conf;",
		}, `invalid number of arguments in "include" directive in %D/main.conf:2`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range c.files {
				p := filepath.Join(dir, name)
				if strings.HasSuffix(name, "/") {
					if err := os.MkdirAll(p, 0o755); err != nil {
						t.Fatal(err)
					}
					continue
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			main := filepath.Join(dir, "main.conf")
			want := strings.ReplaceAll(c.want, "%D", dir)
			var got string
			dirs, err := ParseFile(main, Options{})
			switch {
			case err != nil:
				got = err.Error()
			case len(dirs) == 0:
				got = "nothing"
			default:
				got = dirs[0].Name + " " + dirs[0].Pos()
			}
			if got != want {
				t.Errorf("mosaic: %s\nwant:   %s", got, want)
			}
			if bin == "" {
				return
			}
			ng := nginxCheck(t, bin, main)
			if err != nil {
				if ng != err.Error() {
					t.Errorf("nginx:  %s\nmosaic: %s", ng, err)
				}
			} else if len(dirs) > 0 && !nameComplaint(ng, dirs[0].Name, dirs[0].File, dirs[0].Line) {
				t.Errorf("nginx:  %s\nmosaic: %s", ng, got)
			}
		})
	}
}
