package pcre

// matchCase is a pattern, a subject and the answer PCRE gives: nil for no
// match, else the whole match and every group ("" for one that did not
// take part). TestTableAgainstPerl and TestTableAgainstNginx check these
// answers against Perl and against NGINX's own PCRE.
type matchCase struct {
	pat      string
	caseless bool
	subj     string
	want     []string
	notPerl  string // why Perl cannot check this case, if it cannot
}

func m(s ...string) []string { return s }

var matchCases = []matchCase{
	// Locations as real configurations write them.
	{pat: `\.(css|js|png)$`, caseless: true, subj: "/static/App.CSS", want: m(".CSS", "CSS")},
	{pat: `\.(css|js|png)$`, subj: "/static/App.CSS"},
	{pat: `\.(css|js|png)$`, subj: "/a.js", want: m(".js", "js")},
	{pat: `\.(css|js|png)$`, subj: "/a.js/x"},
	{pat: `^/(?!api/|static/)(.*)$`, subj: "/page/1", want: m("/page/1", "page/1")},
	{pat: `^/(?!api/|static/)(.*)$`, subj: "/api/users"},
	{pat: `^/(?!api/|static/)(.*)$`, subj: "/apiary", want: m("/apiary", "apiary")},
	{pat: `^/(?=.*\.php$)(.+)`, subj: "/index.php", want: m("/index.php", "index.php")},
	{pat: `^/(?=.*\.php$)(.+)`, subj: "/index.html"},
	{pat: `(?<!\.min)\.js$`, subj: "/app.js", want: m(".js")},
	{pat: `(?<!\.min)\.js$`, subj: "/app.min.js"},
	{pat: `(?<=/user/)\d+`, subj: "/user/42/x", want: m("42")},
	{pat: `^/(?<section>[a-z]+)/(?<id>\d+)$`, subj: "/post/17", want: m("/post/17", "post", "17")},
	{pat: `^/(?P<section>[a-z]+)/(?'id'\d+)$`, subj: "/post/17", want: m("/post/17", "post", "17")},
	{pat: `^(.+\.php)(/.+)$`, subj: "/index.php/a/b", want: m("/index.php/a/b", "/index.php", "/a/b")},
	{pat: `^(.+\.php)(/.+)$`, subj: "/x.php.php/a", want: m("/x.php.php/a", "/x.php.php", "/a")},
	{pat: `^/(?:ocm-provider|updater|oc[ms]-provider)(?:$|/)`, subj: "/ocs-provider/", want: m("/ocs-provider/")},
	{pat: `^/\.well-known/(?!acme-challenge)`, subj: "/.well-known/carddav", want: m("/.well-known/")},
	{pat: `^/\.well-known/(?!acme-challenge)`, subj: "/.well-known/acme-challenge/t"},
	{pat: `/\.(?!well-known)`, subj: "/.git/config", want: m("/.")},
	// Back references and atomic, possessive constructs.
	{pat: `^/(\w+)/\1$`, subj: "/ab/ab", want: m("/ab/ab", "ab")},
	{pat: `^/(\w+)/\1$`, subj: "/ab/aB"},
	{pat: `^/(\w+)/\1$`, caseless: true, subj: "/ab/aB", want: m("/ab/aB", "ab")},
	{pat: `(?<q>['"]).*?\k<q>`, subj: `say "hi" now`, want: m(`"hi"`, `"`)},
	{pat: `(a)(b)\g{-1}\g1`, subj: "abba", want: m("abba", "a", "b")},
	{pat: `(?P<x>a)(?P=x)`, subj: "baa", want: m("aa", "a")},
	// A caseless back reference folds ASCII letters only (regexp2 folded
	// Latin-1 letters too until pcre27).
	{pat: "^/(\xe9)\\1", caseless: true, subj: "/\xe9\xc9"},
	{pat: "^/(\xe9)\\1", caseless: true, subj: "/\xe9\xe9", want: m("/\xe9\xe9", "\xe9")},
	{pat: `^/(\w\W)\1$`, caseless: true, subj: "/a\xe9A\xe9", want: m("/a\xe9A\xe9", "a\xe9")},
	// \g{+1} is the next group (mosaic refused it until pcre27).
	{pat: `^(?:b\g{+1}|(a))+$`, subj: "aba", want: m("aba", "a"), notPerl: `Perl has no \g{+n}`},
	{pat: `^(?:b\g+1|(a))+$`, subj: "abb", notPerl: `Perl has no \g+n`},
	{pat: `(?>a+)b`, subj: "aaab", want: m("aaab")},
	{pat: `(?>a+)a`, subj: "aaaa"},
	{pat: `a++a`, subj: "aaaa"},
	{pat: `a*+b`, subj: "aab", want: m("aab")},
	// A loop around a possessive item gives back whole iterations
	// (regexp2 folded (?:a++)* into a*+ until pcre27).
	{pat: `(?:a++)*ab`, subj: "aab", want: m("ab")},
	{pat: `((?>a+))*ab`, subj: "aab", want: m("ab", "")},
	{pat: `^/(?:a++){2}`, subj: "/aa"},
	{pat: `x\R`, subj: "x\r\n", want: m("x\r\n")},
	// \K: the match starts where the last \K on its path was (mosaic
	// refused it until pcre27).
	{pat: `^/api/\K(.*)$`, subj: "/api/users", want: m("users", "users")},
	{pat: `(a\K|ab)c`, subj: "xac", want: m("c", "a")},
	{pat: `(a\K|ab)c`, subj: "xabc", want: m("abc", "ab")},
	{pat: `(?:a\K|b)+c`, subj: "abac", want: m("c")},
	{pat: `^(?:a|\Kb)+$`, subj: "abaa", want: m("baa")},
	{pat: `(?>a\K)b\K`, subj: "ab", want: m("")},
	{pat: `x\R\n`, subj: "x\r\n"},
	// $, \Z, \z and newlines.
	{pat: `b$`, subj: "ab\n", want: m("b")},
	{pat: `b$`, subj: "ab\n\n"},
	{pat: `b\Z`, subj: "ab\n", want: m("b")},
	{pat: `b\z`, subj: "ab\n"},
	{pat: `^(.*)$`, subj: "line\n", want: m("line", "line")},
	{pat: `^(.*)\z`, subj: "line\n"},
	{pat: `(?m)^b$`, subj: "a\nb\nc", want: m("b")},
	{pat: `(?m)b$`, subj: "ab\n", want: m("b")},
	{pat: `(?m)\n^`, subj: "a\n"},
	{pat: `(?m)\n^`, subj: "a\nb", want: m("\n")},
	{pat: `(?s)a.b`, subj: "a\nb", want: m("a\nb")},
	{pat: `a.b`, subj: "a\nb"},
	{pat: `a\Nb`, subj: "a\nb"},
	// \C is one byte, a newline too, without UTF mode (mosaic refused
	// it until pcre27).
	{pat: `^/(\C+)\Cb$`, subj: "/\xc3\xa9\tab", want: m("/\xc3\xa9\tab", "\xc3\xa9\t"), notPerl: `Perl removed \C`},
	{pat: `(?<=\C\C)a`, subj: "\xe9ba", want: m("a"), notPerl: `Perl removed \C`},
	{pat: `^\N{2}$`, subj: "ab", want: m("ab")},
	{pat: `^\N{2}$`, subj: "a"},
	{pat: `^a\N{1,2}?b`, subj: "axbb", want: m("axb")},
	{pat: `^$`, subj: "\n", want: m("")},
	{pat: `\Aab`, subj: "ab", want: m("ab")},
	// Classes: ASCII \d \w \s (with VT), \h \v, POSIX, bytes.
	{pat: `^\s+$`, subj: " \t\v\f\r\n", want: m(" \t\v\f\r\n")},
	{pat: `^[\s]+$`, subj: "\v", want: m("\v")},
	{pat: `^\S$`, subj: "\v"},
	{pat: `^\w+$`, subj: "caf\xc3\xa9"},
	{pat: `^\W+$`, subj: "\xc3\xa9", want: m("\xc3\xa9")},
	{pat: `^.{4}$`, subj: "caf\xc3\xa9"},
	{pat: `^.{5}$`, subj: "caf\xc3\xa9", want: m("caf\xc3\xa9")},
	{pat: `^/caf\xc3\xa9$`, subj: "/caf\xc3\xa9", want: m("/caf\xc3\xa9")},
	{pat: "^/caf\xc3\xa9$", subj: "/caf\xc3\xa9", want: m("/caf\xc3\xa9")},
	{pat: "^/CAF\xc3\x89$", caseless: true, subj: "/caf\xc3\xa9"},
	{pat: `^[^a]$`, subj: "\xff", want: m("\xff")},
	{pat: `^[\x80-\xff]+$`, subj: "\xc3\xa9", want: m("\xc3\xa9")},
	{pat: `\bfoo\b`, subj: "a foo b", want: m("foo")},
	{pat: `\bfoo\b`, subj: "afoo"},
	{pat: `\Bfoo`, subj: "afoo", want: m("foo")},
	{pat: `\bx`, subj: "\xe9x", want: m("x")},
	{pat: `^\d+$`, subj: "0123456789", want: m("0123456789")},
	{pat: `^\h+\v$`, subj: " \t\xa0\n", want: m(" \t\xa0\n")},
	{pat: `^[[:alpha:][:digit:]]+$`, subj: "ab12", want: m("ab12")},
	{pat: `^[[:^digit:]]+$`, subj: "ab", want: m("ab")},
	{pat: `^[[:upper:]]+$`, caseless: true, subj: "abC", want: m("abC")},
	{pat: `^[[:space:]]$`, subj: "\v", want: m("\v")},
	{pat: `^[]a]+$`, subj: "]a]", want: m("]a]")},
	{pat: `^[^]a]+$`, subj: "bc", want: m("bc")},
	{pat: `^[a-]+$`, subj: "a-a", want: m("a-a")},
	{pat: `^[\w.-]+$`, subj: "a.b-c", want: m("a.b-c")},
	{pat: `^[\Q]\E]$`, subj: "]", want: m("]"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\Qa\E-z]$`, subj: "m", want: m("m"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\Qa\E-z]$`, subj: "-", notPerl: `\Q is string interpolation in Perl`},
	// PCRE2 carries a range across \Q, \E and \Q\E, both ways.
	{pat: `^[a\E-z]$`, subj: "m", want: m("m"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[a\Q\E-z]$`, subj: "-", notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[a-\Qz\E]$`, subj: "m", want: m("m"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\Qa\E-\Qz\E]$`, subj: "m", want: m("m"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[a-\Qm!\E]$`, subj: "!", want: m("!"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[a-\Qm!\E]$`, subj: "n", notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[a-\E]$`, subj: "-", want: m("-"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\Qa-z\E]$`, subj: "m", notPerl: `\Q is string interpolation in Perl`},
	// ... and skips them, with a leading ^, at the class's start.
	{pat: `^[\Q\E^a]$`, subj: "b", want: m("b"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\E]]$`, subj: "]", want: m("]"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[^\Q\E]]$`, subj: "]", notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\Qa\E]]$`, subj: "a]", want: m("a]"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^(?xx)[a - z]$`, subj: "m", want: m("m")},
	{pat: `^(?xx)[ ^ a]$`, subj: "b", want: m("b")},
	// Caseless matching leaves \p and \P alone in PCRE2 10.42.
	{pat: `^\p{Lu}$`, caseless: true, subj: "t", notPerl: `Perl folds \p under /i`},
	{pat: `^[\p{Ll}]$`, caseless: true, subj: "T", notPerl: `Perl folds \p under /i`},
	{pat: `^[^\P{Lu}]$`, caseless: true, subj: "t", notPerl: `Perl folds \p under /i`},
	{pat: `^[a\p{Lu}]$`, caseless: true, subj: "A", want: m("A")},
	{pat: `^\Qa.b\E+$`, subj: "a.bbb", want: m("a.bbb"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^\Qa.b\E$`, subj: "axb", notPerl: `\Q is string interpolation in Perl`},
	{pat: `^[\x41-\x{43}]+$`, subj: "ABC", want: m("ABC")},
	// \g is "g" in a class (mosaic refused it until pcre27).
	{pat: `^[\g]+$`, subj: "gg", want: m("gg"), notPerl: `Perl refuses \g in a class`},
	{pat: `^[a-\g]$`, subj: "h", notPerl: `Perl refuses \g in a class`},
	{pat: `^\101\x42\o{103}\cD$`, subj: "ABC\x04", want: m("ABC\x04")},
	{pat: `^\p{Lu}+$`, subj: "AB\xc0", want: m("AB\xc0"), notPerl: "Perl reads a byte above 0x7f as no letter"},
	{pat: `^[a-z]+$`, caseless: true, subj: "aBc", want: m("aBc")},
	// Caseless, PCRE2 reads [:lower:] and [:upper:] as [:alpha:] and
	// folds no POSIX class; mosaic folded [:^lower:], every byte but a-z,
	// into every byte until pcre27.
	{pat: `^[[:^lower:]]+$`, caseless: true, subj: "aB"},
	{pat: `^([[:^upper:]]+)`, caseless: true, subj: "1-b", want: m("1-", "1-")},
	{pat: `^[^[:^lower:]]+$`, caseless: true, subj: "aB", want: m("aB")},
	{pat: `^(?i)[[:^upper:]x]$`, subj: "X", want: m("X")},
	{pat: `^(?i)[[:^upper:]x]$`, subj: "b"},
	{pat: `^[^a-z]+$`, caseless: true, subj: "B"},
	{pat: `^K$`, caseless: true, subj: "k", want: m("k")},
	// Quantifiers, braces, options.
	{pat: `^a{2,3}$`, subj: "aaa", want: m("aaa")},
	{pat: `^a{2,3}$`, subj: "aaaa"},
	{pat: `^a{2,}?`, subj: "aaaa", want: m("aa")},
	{pat: `^a{,2}$`, subj: "a{,2}", want: m("a{,2}"), notPerl: "Perl 5.34 reads {,n} as a quantifier"},
	{pat: `^x{$`, subj: "x{", want: m("x{")},
	{pat: `^a{1001}$`, subj: string(make([]byte, 0)) + repeat("a", 1001), want: m(repeat("a", 1001))},
	{pat: `(?i)ab(?-i)c`, subj: "ABc", want: m("ABc")},
	{pat: `(?i)ab(?-i)c`, subj: "ABC"},
	{pat: `(a(?i)b|c)`, subj: "C", want: m("C", "C")},
	{pat: `(?i:a)b`, subj: "Ab", want: m("Ab")},
	{pat: `(?i:a)b`, subj: "AB"},
	{pat: `(?x) a b # comment
	  c`, subj: "abc", want: m("abc")},
	{pat: `(?x)a[ ]b`, subj: "a b", want: m("a b")},
	// x-mode skips NEL (0x85) too (mosaic matched it until pcre27).
	{pat: "(?x)^a\x85b$", subj: "ab", want: m("ab"), notPerl: "Perl reads 0x85 as no space without Unicode rules"},
	{pat: "(?x)^a\x85b$", subj: "a\x85b", notPerl: "Perl reads 0x85 as no space without Unicode rules"},
	{pat: `(?U)a+`, subj: "aaa", want: m("a"), notPerl: "Perl has no (?U)"},
	{pat: `(?U)a+?`, subj: "aaa", want: m("aaa"), notPerl: "Perl has no (?U)"},
	{pat: `(?n)(a)(?<x>b)`, subj: "ab", want: m("ab", "b"), notPerl: "Perl 5.36 numbers (?n) groups differently"},
	{pat: `a(?#comment)b`, subj: "ab", want: m("ab")},
	// A quantifier after (?#..), \E or \Q\E, or an x-mode space, applies
	// to the item before them, even as a quantifier's ? or + (mosaic
	// refused them all until pcre27).
	{pat: `^/(a(?#c)+)`, subj: "/aab", want: m("/aa", "aa")},
	{pat: `^/(a\E+)`, subj: "/aab", want: m("/aa", "aa"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `^/(a+\Q\E?)`, subj: "/aab", want: m("/a", "a"), notPerl: `\Q is string interpolation in Perl`},
	{pat: `(?x)^/(a+ ?)`, subj: "/aab", want: m("/a", "a")},
	{pat: `(?x)^/(a+ +a)`, subj: "/aab"},
	{pat: `(?^i:a)`, subj: "A", want: m("A")},
	// (?^) leaves U alone (mosaic unset it until pcre27).
	{pat: `(?U)^/(a+)(?^)(b+)`, subj: "/aabb", want: m("/aab", "aa", "b"), notPerl: "Perl has no (?U)"},
	// Captures: non-participating groups, empty loops, leftmost-first.
	{pat: `(a)|(b)`, subj: "b", want: m("b", "", "b")},
	{pat: `^(a|b|)*$`, subj: "ab", want: m("ab", "")},
	{pat: `^(?:(a)|b)*$`, subj: "ab", want: m("ab", "a")},
	{pat: `^(a*)+$`, subj: "aa", want: m("aa", "")},
	{pat: `^(a*)*$`, subj: "b"},
	// A counted repeat of a group that can match empty is copies of it
	// in PCRE2, none cut short for matching empty (regexp2's loop stopped
	// at the first empty iteration until pcre27).
	{pat: `^(?:()|(a)\1){1,3}$`, subj: "a", want: m("a", "", "a"), notPerl: "Perl loops, stopping at an empty iteration"},
	{pat: `^(?:()|(a)\1){1,3}?$`, subj: "a", want: m("a", "", "a"), notPerl: "Perl loops, stopping at an empty iteration"},
	{pat: `^(?:()|(a)\1){1,3}+$`, subj: "a"},
	{pat: `^(?:()|(a)\1){2,}$`, subj: "aa", want: m("aa", "", "a")},
	{pat: `(a|ab)(c|bcd)(d*)`, subj: "abcd", want: m("abcd", "a", "bcd", "")},
	{pat: `(a+)(b+)?`, subj: "aac", want: m("aa", "aa", "")},
	{pat: `x*`, subj: "aaa", want: m("")},
	{pat: ``, subj: "abc", want: m("")},
	{pat: `(?:)`, subj: "", want: m("")},
}

func repeat(s string, n int) string {
	b := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		b = append(b, s...)
	}
	return string(b)
}

// compileCase is a pattern NGINX refuses (err: part of our message) or
// accepts (err "").
type compileCase struct {
	pat string
	err string
}

var compileCases = []compileCase{
	{`^/(a`, "missing closing parenthesis"},
	{`^/a)`, "unmatched closing parenthesis"},
	{`*.php`, "quantifier does not follow a repeatable item"},
	{`a**`, "quantifier does not follow a repeatable item"},
	{`a{3,2}`, "numbers out of order"},
	{`a{70000}`, "number too big"},
	{`[a`, "missing terminating ]"},
	{`[z-a]`, "range out of order"},
	{`[\d-z]`, "invalid range"},
	{`[[:alpha:]-z]`, "invalid range"},
	{`[a-[:alpha:]]`, "invalid range"},
	{`[\Qa\E-\d]`, "invalid range"},
	{`[a-\Q]\E]`, "range out of order"},
	{`\i`, "unrecognized character follows"},
	{`\`, `\ at end of pattern`},
	{`(?<n>a)(?<n>b)`, "same name"},
	{`\k<nope>`, "non-existent subpattern"},
	{`(a)\2`, "non-existent subpattern"},
	{`(?<=a+)b`, "not fixed length"},
	{`(?<=ab|c)d`, ""},
	{`(?<=a(b|cd))e`, "not fixed length"},
	{`\x{100}`, "too large"},
	{`[:alpha:]`, "POSIX named classes"},
	{`[[:foo:]]`, "unknown POSIX class"},
	{`(?z)`, "unrecognized character after (?"},
	{`\p{Nope}`, "unknown property"},
	{`(?<1a>x)`, "must start with a non-digit"},
	{`\L`, `does not support`},
	{`^/(?!api)`, ""},
	{`^x{,3}`, ""},
	{`a{2}+`, ""},
	{`[\w-]`, ""},
	{`(?i)(?-i:a)`, ""},
	{`\/\.\-`, ""},
	{`[a\]b]`, ""},
	{`\8`, "non-existent subpattern"},
	{`(a)\10`, ""},
	{`\g{+1}(a)`, ""},
	{`\g{+0}(a)`, "relative value of zero"},
	{`(a)\g{+1}`, "non-existent subpattern"},
	{`^*`, "quantifier does not follow"},
	{`\b+`, "quantifier does not follow"},
	{`{1}`, "quantifier does not follow"},
	{`a{1}{2}`, "quantifier does not follow"},
	{`a{2}*`, "quantifier does not follow"},
	{`(?=a)*`, ""},
	{`[[:<:]]a[[:>:]]`, ""},
	{`\G`, ""},
	{`x{2 }`, ""},
	{`(?-)`, ""},
	{`(?)`, ""},
	{`(?^-i)`, "invalid hyphen"},
	{`\c`, "at end of pattern"},
	{`\N{U+41}`, "(UTF) mode"},
	{`\N{a}`, `does not support \F, \L, \l, \N{name}`},
	{`\N{2,}`, ""},
	{`\p{Greek}\p{Xan}\pN\p{^L}\P{^L}\p{L&}[\p{L}-]`, ""},
	{`(?xx)[a b]`, ""},
	{`a(?#x`, "missing ) after (?# comment"},
	{`a(?#x)+(?#y`, "missing ) after (?# comment"},
	{`a(?#x)\E{2}`, ""},
	{`a{2}(?#x)*`, "quantifier does not follow"},
	{`\400`, "greater than"},
	{`[\8]`, ""},
	{`(?<=(a)\1)`, ""},
	{`(a(?<=\1))`, "not fixed length"},
	{`(a|(?<=\1))`, "not fixed length"},
	{`(a)(?<=\1)`, ""},
	{`(?<=x(?=y))`, ""},
	{`(?<=\R)`, "not fixed length"},
	{`(?<=a{65535})`, ""},
	{`(?<=a{65535}b)`, "lookbehind assertion is too long"},
	{`(?<=a{30000}|b)(?<=a{30000}a{30000}a{5536})`, "lookbehind assertion is too long"},
	{`(?=a\K)`, `\K is not allowed in lookarounds`},
	{`(?<=a\K)b`, `\K is not allowed in lookarounds`},
	{`a\K+`, "quantifier does not follow"},
	{`a\Kb`, ""},
	{`(?<name_with_more_than_thirty_two_chars>a)`, "too long"},
}

// unsupportedCases are patterns NGINX accepts and Compile refuses, with
// the reason it gives (see the package README).
var unsupportedCases = []compileCase{
	{`(*UTF)a`, "not supported"},
	{`(?|(a)|(b))`, "not supported"},
	{`(a)(?(1)a|b)`, "not supported"},
	{`(?R)`, "not supported"},
	{`\g<1>(a)`, "not supported"},
	{`\X`, "not supported"},
	{`(?J)(?<n>a)|(?<n>b)`, "not supported"},
	{`(?*a)`, "not supported"},
	{`(?<*a)`, "not supported"},
}
