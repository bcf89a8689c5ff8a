package pcre

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestTable runs every case on both engines: the one Compile picks and the
// backtracking one alone, which must agree with each other and with PCRE.
func TestTable(t *testing.T) {
	for _, c := range matchCases {
		for _, bt := range []bool{false, true} {
			re, err := compile(c.pat, c.caseless, bt)
			if err != nil {
				t.Errorf("compile %q: %v", c.pat, err)
				continue
			}
			got, err := re.Match(c.subj)
			if err != nil {
				t.Errorf("%q on %q: %v", c.pat, c.subj, err)
				continue
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%q (caseless %v, backtracking only %v) on %q = %q, want %q", c.pat, c.caseless, bt, c.subj, got, c.want)
			}
			ok, err := re.MatchString(c.subj)
			if err != nil || ok != (c.want != nil) {
				t.Errorf("MatchString %q on %q = %v, %v", c.pat, c.subj, ok, err)
			}
			if len(re.Names()) != re.NumCaptures()+1 || (c.want != nil && len(c.want) != len(re.Names())) {
				t.Errorf("%q: %d names, %d captures", c.pat, len(re.Names()), re.NumCaptures())
			}
		}
	}
}

func TestEngineChoice(t *testing.T) {
	for _, c := range []struct {
		pat     string
		re2, bt bool
	}{
		{`\.(css|js)$`, true, true}, // $: subjects ending in \n go to regexp2
		{`^/api/(.*)`, true, false},
		{`^/(?!api)`, false, true},
		{`(a)\1`, false, true},
		{`^(a|)*`, false, true},
		{`a{1001}`, false, true},
	} {
		re := MustCompile(c.pat, false)
		if (re.re2 != nil) != c.re2 || (re.bt != nil) != c.bt {
			t.Errorf("%q: RE2 %v, backtracking %v; want %v, %v", c.pat, re.re2 != nil, re.bt != nil, c.re2, c.bt)
		}
	}
}

func TestNames(t *testing.T) {
	re := MustCompile(`^/(?<a>x)(y)(?P<b>z)(?:w)(?'c'v)`, false)
	if got, want := re.Names(), []string{"", "a", "", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if re.NumCaptures() != 4 || re.String() != `^/(?<a>x)(y)(?P<b>z)(?:w)(?'c'v)` {
		t.Errorf("NumCaptures %d, String %q", re.NumCaptures(), re.String())
	}
}

// TestMatchTaken: the captures end at the last group that took part, in
// both engines ((?=) forces backtracking); a group before it that took no
// part is "".
func TestMatchTaken(t *testing.T) {
	for _, c := range []struct {
		pat, s string
		want   []string
	}{
		{`(x)(y)?`, "xa", []string{"x", "x"}},
		{`(q)?(a)`, "xa", []string{"a", "", "a"}},
		{`(x)()(y)?`, "x", []string{"x", "x", ""}},
		{`(?=x)(x)(y)?`, "xa", []string{"x", "x"}},
		{`z`, "a", nil},
	} {
		got, err := MustCompile(c.pat, false).MatchTaken(c.s)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q on %q: %q, %v; want %q", c.pat, c.s, got, err, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range append(compileCases, unsupportedCases...) {
		_, err := Compile(c.pat, false)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.pat, err)
		case c.err != "" && err == nil:
			t.Errorf("%q compiled; want an error with %q", c.pat, c.err)
		case c.err != "" && !strings.Contains(err.Error(), c.err):
			t.Errorf("%q: %v; want %q", c.pat, err, c.err)
		}
	}
	_, err := Compile(`^/(a`, false)
	if want := `pcre2_compile() failed: missing closing parenthesis in "^/(a"`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// Where libpcre2 10.42 (Debian's, which NGINX links) points in these
	// errors.
	for pat, want := range map[string]string{
		`a{3,2}b`:       `numbers out of order in {} quantifier in "a{3,2}b" at "}b"`,
		`[z-a]b`:        `range out of order in character class in "[z-a]b" at "a]b"`,
		`[\d-z]`:        `invalid range in character class in "[\d-z]" at "-z]"`,
		`[[:alpha:]-z]`: `invalid range in character class in "[[:alpha:]-z]" at "-z]"`,
		`[a-[:alpha:]]`: `invalid range in character class in "[a-[:alpha:]]" at ":alpha:]]"`,
		`[a-\p{Lu}]`:    `invalid range in character class in "[a-\p{Lu}]" at "{Lu}]"`,
		`a[:alpha:]`:    `POSIX named classes are supported only within a class in "a[:alpha:]" at "[:alpha:]"`,
		`a[.x.]`:        `POSIX collating elements are not supported in "a[.x.]" at "[.x.]"`,
		`[\B]`:          `escape sequence is invalid in character class in "[\B]" at "B]"`,
		`[a\z]`:         `escape sequence is invalid in character class in "[a\z]" at "z]"`,
		`[a-\z]`:        `invalid range in character class in "[a-\z]" at "]"`,
		`[\N]`:          `\N is not supported in a class in "[\N]" at "]"`,
		`[a-\N]`:        `invalid range in character class in "[a-\N]" at "]"`,
		`[[:foo:]]`:     `unknown POSIX class name in "[[:foo:]]" at "foo:]]"`,
		`[[:^foo:]]`:    `unknown POSIX class name in "[[:^foo:]]" at "foo:]]"`,
		// A reference to no group: at the name, or at the number's last
		// character (pcre27; mosaic pointed past a name and gave no
		// offset for a number), and lookbehinds are checked first.
		`(a)\g{2}x`:          `reference to non-existent subpattern in "(a)\g{2}x" at "}x"`,
		`(a)\g12x`:           `reference to non-existent subpattern in "(a)\g12x" at "2x"`,
		`\5{2}(a)`:           `reference to non-existent subpattern in "\5{2}(a)" at "5{2}(a)"`,
		`\k<zz>x`:            `reference to non-existent subpattern in "\k<zz>x" at "zz>x"`,
		`(?P=zz)x`:           `reference to non-existent subpattern in "(?P=zz)x" at "zz)x"`,
		`\g{zz}x\2`:          `reference to non-existent subpattern in "\g{zz}x\2" at "zz}x\2"`,
		`\k<zz>(?<=a+)`:      `lookbehind assertion is not fixed length in "\k<zz>(?<=a+)" at "(?<=a+)"`,
		`(?<=\k<zz>)(?<=a+)`: `reference to non-existent subpattern in "(?<=\k<zz>)(?<=a+)" at "zz>)(?<=a+)"`,
		`(a)\g{-2}x`:         `reference to non-existent subpattern in "(a)\g{-2}x" at "{-2}x"`,
		`\g0x`:               `reference to non-existent subpattern in "\g0x" at "x"`,
		`\g{+0}x`:            `a relative value of zero is not allowed in "\g{+0}x" at "{+0}x"`,
		`\g+x`:               `\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number in "\g+x" at "+x"`,
		`\g`:                 `\g is not followed by a braced, angle-bracketed, or quoted name/number or by a plain number in "\g"`,
		`\k<>`:               `subpattern name expected in "\k<>" at ">"`,
		// Found by the differential run of pcre27: where mosaic pointed
		// past the character PCRE2 points at, or worded it otherwise.
		`a{2}{3}x`:       `quantifier does not follow a repeatable item in "a{2}{3}x" at "}x"`,
		`^{2,3}x`:        `quantifier does not follow a repeatable item in "^{2,3}x" at "}x"`,
		`\A+?x`:          `quantifier does not follow a repeatable item in "\A+?x" at "+?x"`,
		`\ix`:            `unrecognized character follows \ in "\ix" at "ix"`,
		`[\ix]`:          `unrecognized character follows \ in "[\ix]" at "ix]"`,
		`\F`:             `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u in "\F"`,
		`\N{ab}x`:        `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u in "\N{ab}x" at "{ab}x"`,
		`\N{U+41}x`:      `\N{U+dddd} is supported only in Unicode (UTF) mode in "\N{U+41}x" at "{U+41}x"`,
		`[\N{ab}]`:       `PCRE2 does not support \F, \L, \l, \N{name}, \U, or \u in "[\N{ab}]" at "{ab}]"`,
		`[\N{2}]`:        `\N is not supported in a class in "[\N{2}]" at "{2}]"`,
		`[\k]`:           `escape sequence is invalid in character class in "[\k]" at "k]"`,
		`[a-\C]`:         `invalid range in character class in "[a-\C]" at "]"`,
		`\ox`:            `missing opening brace after \o in "\ox" at "x"`,
		`\o`:             `missing opening brace after \o in "\o" at "o"`,
		`\o{19}`:         `non-octal character in \o{} (closing brace missing?) in "\o{19}" at "9}"`,
		`\x{1`:           `non-hex character in \x{} (closing brace missing?) in "\x{1" at "1"`,
		`\x{}x`:          `digits missing in \x{} or \o{} or \N{U+} in "\x{}x" at "}x"`,
		`\x{100}x`:       `character code point value in \x{} or \o{} is too large in "\x{100}x" at "}x"`,
		`\400`:           `octal value is greater than \377 in 8-bit non-UTF-8 mode in "\400"`,
		"\\c\x01x":       "\\c must be followed by a printable ASCII character in \"\\c\x01x\" at \"\x01x\"",
		`\p-x`:           `malformed \P or \p sequence in "\p-x" at "x"`,
		`\p{Lu`:          `malformed \P or \p sequence in "\p{Lu"`,
		`\pQx`:           `unknown property after \P or \p in "\pQx" at "x"`,
		`(?zi)`:          `unrecognized character after (? or (?- in "(?zi)" at "zi)"`,
		`(?Px)`:          `unrecognized character after (?P in "(?Px)" at "x)"`,
		`(?P`:            `missing closing parenthesis in "(?P"`,
		`(?<n>a)(?<n>b)`: `two named subpatterns have the same name (PCRE2_DUPNAMES not set) in "(?<n>a)(?<n>b)" at "b)"`,
		`[.z\h.]`:        `POSIX collating elements are not supported in "[.z\h.]" at "[.z\h.]"`,
		`\N{2,1}x`:       `numbers out of order in {} quantifier in "\N{2,1}x" at "{2,1}x"`,
		`[^]\`:           `\ at end of pattern in "[^]\"`,
		// PCRE2 fails at the first of a reference to no group and a \K
		// in a lookaround (mosaic failed at the \K until rv-pcre27).
		`(a)\2(?=\K)x`:     `reference to non-existent subpattern in "(a)\2(?=\K)x" at "2(?=\K)x"`,
		`(a)\k<zz>(?=\K)x`: `reference to non-existent subpattern in "(a)\k<zz>(?=\K)x" at "zz>(?=\K)x"`,
		`(?=a\K)\k<zz>x`:   `\K is not allowed in lookarounds (but see PCRE2_EXTRA_ALLOW_LOOKAROUND_BSK) in "(?=a\K)\k<zz>x"`,
		`(?=\K)(?<=\3)x`:   `reference to non-existent subpattern in "(?=\K)(?<=\3)x" at "3)x"`,
		`(?<=\g{1}?)x`:     `reference to non-existent subpattern in "(?<=\g{1}?)x" at "}?)x"`,
		`(?<=(?:b\1)*)x`:   `reference to non-existent subpattern in "(?<=(?:b\1)*)x" at "1)*)x"`,
		`(?<=(?:b+\1)*)x`:  `lookbehind assertion is not fixed length in "(?<=(?:b+\1)*)x" at "(?<=(?:b+\1)*)x"`,
		// PCRE2 refuses a lookbehind branch past 65,535 characters
		// (mosaic took them, nested repeats overflowing, until rv-pcre27).
		`(a{40000})(?<=\1\1)x`: `lookbehind assertion is too long in "(a{40000})(?<=\1\1)x" at "(?<=\1\1)x"`,
		// Groups that refer to each other, or a name to the group it
		// is in, have no fixed length (rd4: libpcre2 10.42's offsets).
		`(a\2)(b\1)(?<=\1)x`: `lookbehind assertion is not fixed length in "(a\2)(b\1)(?<=\1)x" at "(?<=\1)x"`,
		`(?<n>a(?<=\k<n>))x`: `lookbehind assertion is not fixed length in "(?<n>a(?<=\k<n>))x" at "(?<=\k<n>))x"`,
		`x(?<=(?:(?:(?:(?:a{65535}){65535}){65535}){65535}){65535})`: `lookbehind assertion is too long in "x(?<=(?:(?:(?:(?:a{65535}){65535}){65535}){65535}){65535})" at "(?<=(?:(?:(?:(?:a{65535}){65535}){65535}){65535}){65535})"`,
	} {
		_, err = Compile(pat, false)
		if want = "pcre2_compile() failed: " + want; fmt.Sprint(err) != want {
			t.Errorf("%s: error %v, want %s", pat, err, want)
		}
	}
}

// TestLookbehindReferenceChain: a lookbehind's reference to a group
// made of references to the group before, 40 deep (a client's SSI
// pattern of 542 bytes), measures each group once, as PCRE2 caches a
// group's length, and fails as libpcre2 10.42 does, at the lookbehind.
// Each group was measured again for each reference to it until rd4:
// twice as long a group, 2^39 steps for this one.
func TestLookbehindReferenceChain(t *testing.T) {
	var b strings.Builder
	b.WriteString("(a)")
	for i := 1; i < 40; i++ {
		fmt.Fprintf(&b, `(\g{%d}\g{%d})`, i, i)
	}
	lb := `(?<=\g{40})`
	b.WriteString(lb)
	pat := b.String()
	done := make(chan error, 1)
	go func() {
		_, err := CompileRequest(pat, false)
		done <- err
	}()
	select {
	case err := <-done:
		want := fmt.Sprintf(`pcre2_compile() failed: lookbehind assertion is too long in "%s" at "%s"`, pat, lb)
		if fmt.Sprint(err) != want {
			t.Errorf("error %v, want %s", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("compiling %d bytes still runs after 10 s", len(pat))
	}
	// Four deep, 8 bytes behind: taken, and it matches.
	re, err := Compile(`(a)(\1\1)(\2\2)(\3\3)(?<=\4)x`, false)
	if err != nil {
		t.Fatal(err)
	}
	subject := strings.Repeat("a", 15) + "x"
	if caps, err := re.Match(subject); err != nil || len(caps) != 5 || caps[0] != subject {
		t.Errorf("Match = %q, %v", caps, err)
	}
}

// TestRunaway: a pattern that backtracks exponentially stops at the limit
// with an error, on the backtracking engine; on RE2 it cannot run away.
func TestRunaway(t *testing.T) {
	subj := strings.Repeat("a", 40) + "!"
	re, err := compile(`^(a+)+$`, false, true)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	caps, err := re.Match(subj)
	if caps != nil || !errors.Is(err, ErrLimit) {
		t.Errorf("Match = %q, %v; want ErrLimit", caps, err)
	}
	if d := time.Since(start); d > 20*MatchTimeout {
		t.Errorf("the limit took %v", d)
	}
	// The same with look-ahead, which Compile must send to the backtracking engine.
	re = MustCompile(`^(?=a)(a+)+$`, false)
	if ok, err := re.MatchString(subj); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("MatchString = %v, %v; want ErrLimit", ok, err)
	}
	// Without look-around, RE2 answers at once.
	re = MustCompile(`^(a+)+$`, false)
	if caps, err := re.Match(subj); caps != nil || err != nil {
		t.Errorf("RE2 Match = %q, %v", caps, err)
	}
}

// TestCompileRequest: a request-time pattern runs on the backtracking
// engine, so a thousand groups (7 s a match on RE2, whose cost grows with
// pattern × subject × groups) answer at once, a runaway stops at the
// limit, and a pattern past MaxRequestPattern is refused as PCRE2 refuses
// it.
func TestCompileRequest(t *testing.T) {
	re, err := CompileRequest(strings.Repeat("(a)?", 1000)+strings.Repeat("a", 1000), false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	caps, err := re.MatchTaken(strings.Repeat("a", 2000))
	if len(caps) != 1001 || caps[1000] != "a" || err != nil {
		t.Errorf("MatchTaken = %d captures, %v", len(caps), err)
	}
	if d := time.Since(start); d > 20*MatchTimeout {
		t.Errorf("the match took %v", d)
	}
	re, err = CompileRequest(`^(a+)+$`, false)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := re.MatchString(strings.Repeat("a", 40) + "!"); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("MatchString = %v, %v; want ErrLimit", ok, err)
	}
	if _, err := CompileRequest(strings.Repeat("a{9}", MaxRequestPattern/4), true); err != nil {
		t.Errorf("at the bound: %v", err)
	}
	_, err = CompileRequest(strings.Repeat("a", MaxRequestPattern+1), false)
	if err == nil || !strings.HasPrefix(err.Error(), "pcre2_compile() failed: regular expression is too large in") {
		t.Errorf("past the bound: %.80v", err)
	}
	// The error echoes the client's pattern into the log: NGINX writes it
	// into a buffer of NGX_MAX_CONF_ERRSTR (1024) bytes, and so must we.
	for _, p := range []string{strings.Repeat("a", MaxRequestPattern+1), strings.Repeat("a", 5000) + "("} {
		_, err = CompileRequest(p, false)
		if err == nil || len(err.Error()) != maxCompileError {
			t.Errorf("%.20q...: error of %d bytes, want %d", p, len(fmt.Sprint(err)), maxCompileError)
		}
	}
}

// compiledAlloc compiles pat with compile (Compile or CompileRequest,
// case-sensitive) and says how many bytes the compile allocated.
func compiledAlloc(t *testing.T, compile func(string, bool) (*Regexp, error), pat string) (*Regexp, uint64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	re, err := compile(pat, false)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return re, after.TotalAlloc - before.TotalAlloc
}

// TestCompileRequestLoops: a client's pattern keeps a counted repeat a
// loop where a configuration's is copied (copiedRepeat), so that 11
// bytes cannot make a compile in a short slot allocate megabytes: 6.4 MB
// for (){0,3000}x as copies.
func TestCompileRequestLoops(t *testing.T) {
	const pat = `(){0,3000}x`
	re, n := compiledAlloc(t, CompileRequest, pat)
	if n > compileSlotOver*1000 {
		t.Errorf("compiling %s allocated %d bytes", pat, n)
	}
	if caps, err := re.Match("ax"); err != nil || len(caps) != 2 || caps[0] != "x" {
		t.Errorf("Match = %q, %v", caps, err)
	}
}

// TestCompileCopiesBounded: a configuration's pattern gets a counted
// repeat as copies only within PCRE2's size limit, so that what NGINX
// refuses as too large cannot hold hundreds of megabytes at load (40
// copies of (?:){0,5000}, 481 bytes: 295 MB until rv-pcre27). Within
// the limit the copies took 10 MB for (?:[...]?){0,1300}, a class of
// 64 bytes above 0x7f (runtime.MemStats).
func TestCompileCopiesBounded(t *testing.T) {
	pat := strings.Repeat(`(?:){0,5000}`, 40) + "x"
	re, n := compiledAlloc(t, Compile, pat)
	if n > 16<<20 {
		t.Errorf("compiling %d bytes allocated %d bytes", len(pat), n)
	}
	if caps, err := re.Match("ax"); err != nil || len(caps) != 1 || caps[0] != "x" {
		t.Errorf("Match = %q, %v", caps, err)
	}
}

// TestTableAgainstPerl checks the table's answers with Perl, whose regular
// expressions PCRE follows.
func TestTableAgainstPerl(t *testing.T) {
	perl, err := exec.LookPath("perl")
	if err != nil {
		t.Skip("no perl")
	}
	const script = `
while (my $l = <STDIN>) {
	chomp $l;
	my ($p, $i, $s) = split / /, $l, -1;
	$p = pack("H*", $p); $s = pack("H*", $s);
	my $re = $i ? qr/$p/i : qr/$p/;
	if ($s =~ $re) {
		my @o;
		for my $g (0 .. $#+) {
			push @o, defined $-[$g] ? unpack("H*", substr($s, $-[$g], $+[$g] - $-[$g])) . "." : "-";
		}
		print "match @o\n";
	} else {
		print "nomatch\n";
	}
}`
	var in bytes.Buffer
	var cases []matchCase
	for _, c := range matchCases {
		if c.notPerl != "" {
			continue
		}
		cases = append(cases, c)
		i := 0
		if c.caseless {
			i = 1
		}
		fmt.Fprintf(&in, "%s %d %s\n", hex.EncodeToString([]byte(c.pat)), i, hex.EncodeToString([]byte(c.subj)))
	}
	cmd := exec.Command(perl, "-e", script)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("perl: %v: %s", err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(cases) {
		t.Fatalf("perl answered %d lines for %d cases", len(lines), len(cases))
	}
	for i, c := range cases {
		var got []string
		if f := strings.Fields(lines[i]); f[0] == "match" {
			for _, g := range f[1:] {
				b, _ := hex.DecodeString(strings.TrimSuffix(strings.TrimPrefix(g, "-"), "."))
				got = append(got, string(b))
			}
			// Perl's @- ends at the last group that took part.
			for len(got) < len(c.want) {
				got = append(got, "")
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q on %q: Perl says %q, the table %q", c.pat, c.subj, got, c.want)
		}
	}
}

// nginxQuote writes s as a double-quoted word of an NGINX configuration.
func nginxQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// headerSafe reports whether s can travel in a request header unchanged.
func headerSafe(s string) bool {
	// An absent or empty header makes a map take its default.
	if s == "" || s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 && s[i] != '\t' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// TestTableAgainstNginx runs the cases whose subject fits in a header
// through NGINX 1.22 (Debian's, linked with PCRE2): a map with the pattern
// answers with the captures $1..$9.
func TestTableAgainstNginx(t *testing.T) {
	nginx := "/usr/sbin/nginx"
	if _, err := os.Stat(nginx); err != nil {
		t.Skip("no nginx")
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var conf strings.Builder
	fmt.Fprintf(&conf, "daemon off; master_process off; error_log %s/error.log; pid %s/nginx.pid;\nevents {}\nhttp { access_log off;\n", dir, dir)
	var cases []matchCase
	for _, c := range matchCases {
		if !headerSafe(c.subj) {
			continue
		}
		i := len(cases)
		cases = append(cases, c)
		op := "~"
		if c.caseless {
			op = "~*"
		}
		fmt.Fprintf(&conf, "map $http_x_s $v%d { %s \"1[$1][$2][$3]\"; default 0; }\n", i, nginxQuote(op+c.pat))
	}
	fmt.Fprintf(&conf, "server { listen %s;\n", addr)
	for i := range cases {
		fmt.Fprintf(&conf, "location = /%d { return 200 \"$v%d\"; }\n", i, i)
	}
	conf.WriteString("}}\n")
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(nginx, "-p", dir, "-c", cf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	get := func(i int, subj string) (string, error) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return "", err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		hdr := ""
		if subj != "" {
			hdr = "X-S: " + subj + "\r\n"
		}
		fmt.Fprintf(c, "GET /%d HTTP/1.0\r\nHost: x\r\n%s\r\n", i, hdr)
		resp, err := io.ReadAll(c)
		if err != nil {
			return "", err
		}
		_, body, ok := bytes.Cut(resp, []byte("\r\n\r\n"))
		if !ok || !bytes.HasPrefix(resp, []byte("HTTP/1.1 200")) {
			return "", fmt.Errorf("response %q", resp)
		}
		return string(body), nil
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := get(0, cases[0].subj); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("nginx did not come up: %v %s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i, c := range cases {
		got, err := get(i, c.subj)
		if err != nil {
			t.Fatalf("%q: %v", c.pat, err)
		}
		want := "0"
		if c.want != nil {
			g := append(c.want[1:len(c.want):len(c.want)], "", "", "")
			want = fmt.Sprintf("1[%s][%s][%s]", g[0], g[1], g[2])
		}
		if got != want {
			t.Errorf("%q (caseless %v) on %q: NGINX says %q, the table %q", c.pat, c.caseless, c.subj, got, want)
		}
	}
}

// TestCompileAgainstNginx checks that NGINX refuses exactly the patterns
// Compile refuses, with "nginx -t" on a location per pattern.
func TestCompileAgainstNginx(t *testing.T) {
	nginx := "/usr/sbin/nginx"
	if _, err := os.Stat(nginx); err != nil {
		t.Skip("no nginx")
	}
	dir := t.TempDir()
	for i, c := range append(compileCases, unsupportedCases...) {
		unsupported := i >= len(compileCases)
		if ok, out := nginxCompiles(t, nginx, dir, c.pat); ok == (c.err != "" && !unsupported) {
			t.Errorf("%q: nginx -t accepts it: %v: %s", c.pat, ok, out)
		}
	}
}

// nginxCompiles runs nginx -t on a location with the pattern.
func nginxCompiles(t *testing.T, nginx, dir, pat string) (bool, []byte) {
	t.Helper()
	conf := fmt.Sprintf("error_log %s/error.log; pid %s/nginx.pid;\nevents {}\nhttp { server { listen 127.0.0.1:1; location ~ %s {} } }\n", dir, dir, nginxQuote(pat))
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(nginx, "-t", "-p", dir, "-c", cf).CombinedOutput()
	return err == nil, out
}

// A client's pattern matches a subject too long for its size
// (requestMatchBudget) only in a free slot of requestSlots, and fails with ErrLimit once it has waited
// SlotWait; a shorter subject, or a configuration's pattern on the same
// subject, never waits.
func TestRequestMatchesTakeSlots(t *testing.T) {
	slots := fillSlots(t, requestSlots)
	re, err := CompileRequest(`(?=a)a`, false)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a", re.slotOver+1)
	conf := MustCompile(`(?=a)a`, false)
	if ok, err := conf.MatchString(long); !ok || err != nil {
		t.Errorf("configuration pattern with every slot taken: %v, %v", ok, err)
	}
	if ok, err := re.MatchString(long[:re.slotOver]); !ok || err != nil {
		t.Errorf("short subject with every slot taken: %v, %v", ok, err)
	}
	start := time.Now()
	if ok, err := re.MatchString(long); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("every slot taken: %v, %v; want ErrLimit", ok, err)
	}
	if d := time.Since(start); d < SlotWait {
		t.Errorf("failed after %v, before SlotWait", d)
	}
	done := make(chan error, 1)
	go func() {
		_, err := re.MatchString(long)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("matched with every slot taken: %v", err)
	case <-time.After(SlotWait / 4):
	}
	<-slots
	if err := <-done; err != nil {
		t.Errorf("once a slot was free: %v", err)
	}
}

// A client's pattern that compiles large takes a slot on a shorter
// subject: its stacks grow with both (audit8; 200 nested captures took
// 5.5 MB on 256 bytes).
func TestRequestSlotsByPatternSize(t *testing.T) {
	// A pattern over compileSlotOver compiles in one of requestSlots,
	// so this one before they are taken.
	many, err := CompileRequest("^(?:"+strings.Repeat("()", 7000)+"a)*x", false)
	if err != nil {
		t.Fatal(err)
	}
	fillSlots(t, requestSlots)
	subject := strings.Repeat("a", 256)
	deep, err := CompileRequest("^(?:"+strings.Repeat("(", 200)+"a"+strings.Repeat(")", 200)+"|b)*x", false)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := deep.MatchString(subject); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("200 nested captures on 256 bytes, every slot taken: %v, %v; want ErrLimit", ok, err)
	}
	ordinary, err := CompileRequest(`^(?:(a)|b)*x`, false)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := ordinary.MatchString(subject); ok || err != nil {
		t.Errorf("one capture on 256 bytes, every slot taken: %v, %v; want no match", ok, err)
	}
	// A match costs its pattern's size before any subject: 7,000 empty
	// captures (56,007 units) allocated 2 MB on an empty subject and
	// 2.9 MB on one byte, where subject × size alone let both run
	// without a slot (rv-audit8).
	for _, s := range []string{"", "a"} {
		if ok, err := many.MatchString(s); ok || !errors.Is(err, ErrLimit) {
			t.Errorf("7,000 captures on %q, every slot taken: %v, %v; want ErrLimit", s, ok, err)
		}
	}
}

// fillSlots takes every slot of pool until the test ends.
func fillSlots(t *testing.T, pool func() chan struct{}) chan struct{} {
	slots := pool()
	for range cap(slots) {
		slots <- struct{}{}
	}
	t.Cleanup(func() {
		for len(slots) > 0 {
			<-slots
		}
	})
	return slots
}

// Ordinary matches of clients' patterns neither wait nor fail while
// others flood the slots with runaway matches of 64 KiB (audit8): with a
// slot for every match, 10 of these 20 failed after SlotWait.
//
// What a starved machine does is told apart from what the flood does
// (rv-audit9b): a match that ran out its MatchTimeout of wall time, the
// CPUs taken by other processes, runs again, up to starvedTries times;
// one that failed waiting for a slot, or was cut before its time limit
// had passed (regexp2's clock late), fails the test. The test failed
// once in ~25 runs under -race at load 11-19 asserting no failure at all.
func TestOrdinaryMatchesUnderFlood(t *testing.T) {
	runaway, err := CompileRequest(`^(?:(a?)(a?)(a?)(a?)(a?)(a?)(a?)(a?))*x`, false)
	if err != nil {
		t.Fatal(err)
	}
	ordinary, err := CompileRequest(`^Mozilla/5\.0 \((?:X11|Windows)`, false)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("a", 64<<10)
	stop := make(chan struct{})
	var flood sync.WaitGroup
	for range 8 * cap(requestSlots()) {
		flood.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				runaway.MatchString(big)
			}
		})
	}
	defer flood.Wait()
	defer close(stop)
	time.Sleep(200 * time.Millisecond) // the slots taken and a queue behind them
	ua := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"
	var starved atomic.Int32
	var ordinaries sync.WaitGroup
	for range 20 {
		ordinaries.Go(func() {
			for range starvedTries {
				start := time.Now()
				ok, err := ordinary.MatchString(ua)
				ran := time.Since(start)
				switch {
				case ok && err == nil:
					return
				case !errors.Is(err, ErrLimit) || strings.Contains(err.Error(), "waiting for"):
					t.Errorf("ordinary match under the flood after %v: %v, %v", ran, ok, err)
					return
				case ran < MatchTimeout:
					t.Errorf("ordinary match cut after %v, before its %v: %v", ran, MatchTimeout, err)
					return
				}
				t.Logf("ordinary match past its limit after %v, runs again: %v", ran, err)
				starved.Add(1)
			}
			t.Errorf("ordinary match past its time limit %d times: the flood holds the CPUs", starvedTries)
		})
		time.Sleep(50 * time.Millisecond)
	}
	ordinaries.Wait()
	if n := starved.Load(); n > 0 {
		t.Logf("%d ordinary matches ran past MatchTimeout of wall time and ran again", n)
	}
}

// starvedTries bounds the runs of an ordinary match in
// TestOrdinaryMatchesUnderFlood that each used up MatchTimeout of wall
// time: on a machine that gives the test no CPU for a second, its
// failure says so rather than hang.
const starvedTries = 10

// A configuration's pattern matches a subject past configSlotOver (more
// than NGINX's default buffers let a URI or a header hold) only in a free
// slot, as a client's long one does (audit8): without, a 64 KB header
// against a pattern that backtracks held 10-40 MB a request, any number
// of requests at once.
func TestConfigMatchesOfLongSubjectsTakeSlots(t *testing.T) {
	fillSlots(t, configSlots)
	conf := MustCompile(`(?=a)a`, false)
	long := strings.Repeat("a", configSlotOver+1)
	if ok, err := conf.MatchString(long[:configSlotOver]); !ok || err != nil {
		t.Errorf("8 KiB subject with every slot taken: %v, %v", ok, err)
	}
	if ok, err := conf.MatchString(long); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("long subject with every slot taken: %v, %v; want ErrLimit", ok, err)
	}
	// RE2's matches are linear and take no slot.
	if ok, err := MustCompile(`a$`, false).MatchString(long); !ok || err != nil {
		t.Errorf("RE2 with every slot taken: %v, %v", ok, err)
	}
}

// A configuration's long match has slots of its own (audit9): with every
// slot of clients' patterns taken, as a flood of runaway ones on long
// subjects keeps them, it runs at once; before, it waited SlotWait and
// failed.
func TestConfigSlotsApartFromClients(t *testing.T) {
	fillSlots(t, requestSlots)
	fillSlots(t, shortRequestSlots)
	conf := MustCompile(`(?=a)a`, false)
	long := strings.Repeat("a", configSlotOver+1)
	start := time.Now()
	if ok, err := conf.MatchString(long); !ok || err != nil {
		t.Errorf("configuration's long match with clients' slots taken: %v, %v", ok, err)
	}
	if d := time.Since(start); d >= SlotWait {
		t.Errorf("configuration's long match waited %v", d)
	}
}

// A client's matches within requestMatchBudget are bounded in number too
// (audit9): with shortPerProc a CPU running, the next waits SlotWait and
// fails; a configuration's match and a client's long one do not wait.
func TestShortRequestMatchesBounded(t *testing.T) {
	re, err := CompileRequest(`(?=a)a`, false)
	if err != nil {
		t.Fatal(err)
	}
	slots := fillSlots(t, shortRequestSlots)
	if n := cap(slots); n != shortPerProc*runtime.GOMAXPROCS(0) {
		t.Errorf("%d slots for short client matches, want %d", n, shortPerProc*runtime.GOMAXPROCS(0))
	}
	start := time.Now()
	if ok, err := re.MatchString("a"); ok || !errors.Is(err, ErrLimit) {
		t.Errorf("short client match with every slot taken: %v, %v; want ErrLimit", ok, err)
	}
	if d := time.Since(start); d < SlotWait {
		t.Errorf("failed after %v, before SlotWait", d)
	}
	if ok, err := MustCompile(`(?=a)a`, false).MatchString("a"); !ok || err != nil {
		t.Errorf("configuration's match: %v, %v", ok, err)
	}
	if ok, err := re.MatchString(strings.Repeat("a", re.slotOver+1)); !ok || err != nil {
		t.Errorf("client's long match: %v, %v", ok, err)
	}
}

// A match cut at its limit in a slot says how many of the pool's slots
// were busy as it ended, its own among them: the binary's tests read the
// bound from it (audit9).
func TestLimitErrorCountsSlots(t *testing.T) {
	re, err := CompileRequest(`^(a|aa)+$`, false)
	if err != nil {
		t.Fatal(err)
	}
	_, err = re.MatchString(strings.Repeat("a", 40) + "!")
	want := fmt.Sprintf("(%v; 1 of %d slots busy)", MatchTimeout, cap(shortRequestSlots()))
	if !errors.Is(err, ErrLimit) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("runaway: %v; want ErrLimit ending %q", err, want)
	}
	_, err = MustCompile(`^(?=a)(a|aa)+$`, false).MatchString(strings.Repeat("a", 40) + "!")
	if want := fmt.Sprintf("(%v)", MatchTimeout); !errors.Is(err, ErrLimit) || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("configuration's short runaway: %v; want ErrLimit ending %q", err, want)
	}
}

// A client's pattern compiles in a slot (audit9): one of
// shortRequestSlots up to compileSlotOver bytes, one of requestSlots
// past it. With a pool taken, its compiles wait SlotWait and fail; the
// other pool's go on. The error names the compile, as NGINX's
// "pcre2_compile() failed" does, and the slots it waited for: the SSI
// logs it alone, where it read as a match's (rv-audit9).
func TestRequestCompilesTakeSlots(t *testing.T) {
	short, long := `^(?=a)a`, strings.Repeat("(a)", compileSlotOver/3+1)
	for _, c := range []struct {
		pool          func() chan struct{}
		waits, passes string
	}{
		{shortRequestSlots, short, long},
		{requestSlots, long, short},
	} {
		slots := fillSlots(t, c.pool)
		start := time.Now()
		_, err := CompileRequest(c.waits, false)
		want := fmt.Sprintf("pcre2_compile() failed: %v (%v waiting for one of %d slots)", ErrLimit, SlotWait, cap(slots))
		if !errors.Is(err, ErrLimit) || err.Error() != want {
			t.Errorf("%d bytes with its pool taken: %v; want ErrLimit: %q", len(c.waits), err, want)
		}
		if d := time.Since(start); d < SlotWait {
			t.Errorf("%d bytes failed after %v, before SlotWait", len(c.waits), d)
		}
		if _, err := CompileRequest(c.passes, false); err != nil {
			t.Errorf("%d bytes with the other pool taken: %v", len(c.passes), err)
		}
		for len(slots) > 0 {
			<-slots
		}
	}
}
