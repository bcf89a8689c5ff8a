package conf

import (
	"strconv"
	"strings"
	"testing"
)

// lexCase is a configuration text and what NGINX 1.22 makes of it: the
// directives (rendered by flat) or the error. TestLexer checks mosaic
// against want/err; TestLexerMatchesNGINX (nginx_test.go) checks every case
// against NGINX itself, so the expectations below are NGINX's, not ours.
//
// The first directive of every case is a name NGINX does not know (or a
// directive not allowed at the top level), so that NGINX's complaint
// reveals the name and line it read; error cases put the fault in the
// first statement or after a valid "events {}".
type lexCase struct {
	name string
	src  string
	want string // flat rendering of the directives
	err  string // the error, "msg in t.conf:N", instead of want
}

var lexCases = []lexCase{
	// Empty quoted words are words.
	{name: "empty double quotes", src: `w a "" b;`, want: "w [a] [] [b]"},
	{name: "empty single quotes", src: `w '';`, want: "w []"},
	{name: "empty name", src: `"" x;`, want: " [x]"},
	{name: "websocket map", src: "map $http_upgrade $connection_upgrade {\n  default upgrade;\n  '' close;\n}",
		want: "map [$http_upgrade] [$connection_upgrade] {default [upgrade];  [close]}"},
	{name: "quoted regex key", src: `map $uri $x { "~*\.(?:css|js)$" 1; }`, want: `map [$uri] [$x] {~*\.(?:css|js)$ [1]}`},

	// A ")" after a closing quote starts a new word; rewrite's "if"
	// strips the parentheses from the first and last words.
	{name: "if quoted then paren", src: `if ($request_method = 'OPTIONS') { }`, want: "if [($request_method] [=] [OPTIONS] [)] {}"},
	{name: "if variable", src: `if ($a) {}`, want: "if [($a)] {}"},
	{name: "if file test", src: `if (-f $x) {}`, want: "if [(-f] [$x)] {}"},
	{name: "if spaced", src: `if ( $a ~* "x" ){}`, want: "if [(] [$a] [~*] [x] [)] {}"},
	{name: "if unquoted glued brace", src: `if ($a = b){}`, want: "if [($a] [=] [b)] {}"},
	{name: "paren word continues", src: `w 'b')c "d"))e;`, want: "w [b] [)c] [d] [))e]"},
	{name: "paren then quote is plain", src: `w "b")"c";`, want: `w [b] [)"c"]`},

	// Quoted strings hold spaces, separators and the other quote.
	{name: "double quotes", src: `add_header X "a b;c";`, want: "add_header [X] [a b;c]"},
	{name: "single quotes", src: `log_format main '$remote_addr "$request"';`, want: `log_format [main] [$remote_addr "$request"]`},
	{name: "multiline arguments", src: "w\n  b\n  c;", want: "w [b] [c]"},
	{name: "unquoted regex", src: `location ~* \.(gif|jpg)$ {}`, want: `location [~*] [\.(gif|jpg)$] {}`},

	// Quotes are special only at the start of a word.
	{name: "quote inside word", src: `w a"b";`, want: `w [a"b"]`},
	{name: "quote splits nothing", src: `w b"c d";`, want: `w [b"c] [d"]`},
	{name: "name with quotes", src: `w"a" b;`, want: `w"a" [b]`},
	{name: "quoted name", src: `"w" 'a';`, want: "w [a]"},
	{name: "apostrophe inside word", src: `w it's;`, want: "w [it's]"},

	// After a closing quote: space, ";", "{" or ")"; anything else fails.
	{name: "quote then semicolon", src: `w "a";`, want: "w [a]"},
	{name: "quote then brace", src: `w "a"{}`, want: "w [a] {}"},
	{name: "quote then tab and newline", src: "w \"a\"\t'b'\n;", want: "w [a] [b]"},
	{name: "quote then letter", src: `w "a"b;`, err: `unexpected "b" in t.conf:1`},
	{name: "quote then close brace", src: `w "a"}`, err: `unexpected "}" in t.conf:1`},
	{name: "quote then hash", src: `w "a"#c;`, err: `unexpected "#" in t.conf:1`},
	{name: "quote then quote", src: `w "a""b";`, err: `unexpected """ in t.conf:1`},
	{name: "quote then other quote", src: `w "a"'b';`, err: `unexpected "'" in t.conf:1`},
	{name: "quote then backslash", src: `w "a"\;`, err: `unexpected "\" in t.conf:1`},
	{name: "quote error line", src: "w \"a\nb\"c;", err: `unexpected "c" in t.conf:2`},

	// Escapes.
	{name: "escapes in double quotes", src: `w "\"\'\\|\t|\r|\n|\x\d\.\$";`, want: "w [\"'\\|\t|\r|\n|\\x\\d\\.\\$]"},
	{name: "escapes in single quotes", src: `w '\'\"\\|\t|\n|\w';`, want: "w ['\"\\|\t|\n|\\w]"},
	{name: "escapes unquoted", src: `w \"a\' b\\c d\te \n \.php$;`, want: "w [\"a'] [b\\c] [d\te] [\n] [\\.php$]"},
	{name: "escaped semicolon kept", src: `w b\;c;`, want: `w [b\;c]`},
	{name: "escaped space joins", src: `w b\ c;`, want: `w [b\ c]`},
	{name: "escaped braces", src: `w \{ a\};`, want: `w [\{] [a\}]`},
	{name: "escaped quote at start", src: `w \"b";`, want: `w ["b"]`},
	{name: "escaped quote inside quotes", src: `w "b\"c" 'd\'e';`, want: `w [b"c] [d'e]`},
	{name: "escaped hash", src: `w \#a;`, want: `w [\#a]`},
	{name: "backslash newline", src: "w b\\\nc;\nx;", want: "w [b\\\nc]; x"},
	{name: "backslash newline in quotes", src: "w \"b\\\nc\";", want: "w [b\\\nc]"},
	{name: "brace in unquoted regex opens a block", src: `w ~ ^/a{2}$; }`, want: `w [~] [^/a] {2}$}`},
	{name: "brace in quoted regex", src: `w ~ "^/a{2}$";`, want: `w [~] [^/a{2}$]`},

	// Variables: "{" right after "$" does not open a block; "}" never ends
	// a word.
	{name: "variable braces", src: `w ${host}x;`, want: "w [${host}x]"},
	{name: "variable braces quoted", src: `w "${a}-{;}";`, want: "w [${a}-{;}]"},
	{name: "brace after name opens", src: `w $b{ c; }`, want: "w [$b] {c}"},
	{name: "dollar brace alone", src: `w ${ c;`, want: "w [${] [c]"},
	{name: "dollar brace unclosed", src: `w ${b;`, want: "w [${b]"},
	{name: "two braces after dollar", src: `w ${{b;`, want: "w [${{b]"},
	{name: "close brace in word", src: `w b}c d};`, want: "w [b}c] [d}]"},
	{name: "close brace starting word", src: "w {\n x;\n}", want: "w {x}"},

	// Separators.
	{name: "semicolons and braces glued", src: `w;x{y;}z;`, want: "w; x {y}; z"},
	{name: "in quotes", src: `w "{;}" '#' ";";`, want: "w [{;}] [#] [;]"},
	{name: "carriage return", src: "w\ra\r\n;", want: "w [a]"},
	{name: "empty block", src: "w {}", want: "w {}"},
	{name: "nested blocks", src: "w { x { y 1; } z; }", want: "w {x {y [1]}; z}"},

	// Comments start only at the start of a word.
	{name: "hash inside word", src: `w b#c;`, want: "w [b#c]"},
	{name: "comment inside statement", src: "w a # c;\n b;", want: "w [a] [b]"},
	{name: "comment after statement", src: "w; # x\n#y;\nz;", want: "w; z"},
	{name: "comment at end without newline", src: "w;#x", want: "w"},
	{name: "comment inside block", src: "w { # }\n}", want: "w {}"},
	{name: "only comments", src: "# a\n  # b\n", want: ""},
	{name: "empty", src: "", want: ""},

	// Errors, with NGINX's messages and lines.
	{name: "stray semicolon", src: "events {}\n;", err: `unexpected ";" in t.conf:2`},
	{name: "stray open brace", src: "\n{", err: `unexpected "{" in t.conf:2`},
	{name: "close brace after words", src: "w a }", err: `unexpected "}" in t.conf:1`},
	{name: "close brace at top", src: "events {}\n\n}", err: `unexpected "}" in t.conf:3`},
	{name: "eof in statement", src: "w a", err: `unexpected end of file, expecting ";" or "}" in t.conf:1`},
	{name: "eof after words and newline", src: "w a\n\n", err: `unexpected end of file, expecting ";" or "}" in t.conf:3`},
	{name: "eof after quote", src: `w "a"`, err: `unexpected end of file, expecting ";" or "}" in t.conf:1`},
	{name: "unterminated quote", src: "w \"b;\n\n", err: `unexpected end of file, expecting ";" or "}" in t.conf:3`},
	{name: "eof after backslash", src: `w a\`, err: `unexpected end of file, expecting ";" or "}" in t.conf:1`},
	{name: "eof in block", src: "events {\n", err: `unexpected end of file, expecting "}" in t.conf:2`},
	{name: "eof in comment in block", src: "events {\n# }", err: `unexpected end of file, expecting "}" in t.conf:2`},

	// NGINX reads through a 4096-byte buffer and refuses a word, or a
	// comment, that does not end within it.
	{name: "word of 4095 bytes", src: "w " + strings.Repeat("a", 4095) + ";", want: "w [" + strings.Repeat("a", 4095) + "]"},
	{name: "word of 4096 bytes", src: "w\n" + strings.Repeat("a", 4096) + ";", err: `too long parameter "aaaaaaaaaa..." started in t.conf:2`},
	{name: "word of 4096 bytes at end", src: "w " + strings.Repeat("a", 4096), err: `unexpected end of file, expecting ";" or "}" in t.conf:1`},
	{name: "quoted of 4094 bytes", src: `w "` + strings.Repeat("b", 4094) + `";`, want: "w [" + strings.Repeat("b", 4094) + "]"},
	{name: "quoted of 4095 bytes", src: `w "` + strings.Repeat("b", 4095) + `";`, err: `too long parameter "bbbbbbbbbb..." started in t.conf:1`},
	{name: "unterminated long double quote", src: "w \"c\n" + strings.Repeat("c", 5000) + ";", err: `too long parameter, probably missing terminating """ character in t.conf:1`},
	{name: "unterminated long single quote", src: "w '" + strings.Repeat("c", 5000) + ";", err: `too long parameter, probably missing terminating "'" character in t.conf:1`},
	{name: "comment of 4095 bytes", src: "#" + strings.Repeat("d", 4094) + "\nw;", want: "w"},
	{name: "comment of 4096 bytes", src: "\n#" + strings.Repeat("d", 4095) + "\nw;", err: `too long parameter "#ddddddddd..." started in t.conf:2`},
	{name: "long comment at end", src: "#" + strings.Repeat("d", 5000), err: `too long parameter "#ddddddddd..." started in t.conf:1`},
	{name: "long spaces", src: "w" + strings.Repeat(" ", 5000) + "a;", want: "w [a]"},
}

func TestLexer(t *testing.T) {
	for _, c := range lexCases {
		t.Run(c.name, func(t *testing.T) {
			dirs, err := ParseString("t.conf", c.src, Options{})
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("got error %v\nwant      %s", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := flat(dirs); got != c.want {
				t.Fatalf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestDirectiveLine checks that a directive is placed, as in NGINX's
// messages, on the line of the ";" or "{" that ends it.
func TestDirectiveLine(t *testing.T) {
	src := "a;\n\n# c\nhttp {\n  server\n  {\n    listen\n      80\n      ;\n  }\n}\nlog_format x '1\n2';\n"
	dirs, err := ParseString("n.conf", src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		d    *Directive
		line int
	}{
		{dirs[0], 1},
		{dirs[1], 4},                   // http {
		{dirs[1].Block[0], 6},          // server ... {
		{dirs[1].Block[0].Block[0], 9}, // listen ... ;
		{dirs[2], 13},                  // log_format over two lines
	} {
		if c.d.Line != c.line || c.d.Pos() != "n.conf:"+strconv.Itoa(c.line) {
			t.Errorf("%s at %s, want line %d", c.d.Name, c.d.Pos(), c.line)
		}
	}
}
