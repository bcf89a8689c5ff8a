package pcre

import (
	"os"
	"strings"
	"testing"
)

// sizeCases are patterns at the edge of PCRE2's compiled size, found with
// nginx -t (NGINX 1.22.1, Debian's PCRE2 10.42): the first of each pair
// compiles, the second, one more copy, is "regular expression is too
// large". Each is a few bytes that the backtracking engine runs as a
// loop; PCRE2 copies a repeated group once per count.
var sizeCases = []struct{ ok, large string }{
	{`(a{1000}){5460}`, `(a{1000}){5461}`},
	{`(?:a{1000}){6552}`, `(?:a{1000}){6553}`},
	{`(?:[a-z]){1680}`, `(?:[a-z]){1681}`},
	{`(?:[a-z]x){1598}`, `(?:[a-z]x){1599}`},
	{`(?:a|b){5040}`, `(?:a|b){5041}`},
	{`(?:a(?:b){10}){744}`, `(?:a(?:b){10}){745}`},
	{`(?:ab){2,3855}`, `(?:ab){2,3856}`},
	{`(?:ab){6552,}`, `(?:ab){6553,}`},
	{`(?:[a-z]{3}){1489}`, `(?:[a-z]{3}){1490}`},
	{`(?:a+b*){6552}`, `(?:a+b*){6553}`},
	{`(?:a{2,5}){4680}`, `(?:a{2,5}){4681}`},
	{`(?:(a)\1){3448}`, `(?:(a)\1){3449}`},
	{`(a{1000}){1000}`, `((a{1000}){1000}){1000}`},
	// A character type is one opcode (\pL three), not a class's 33.
	{`(?:\d){9361}`, `(?:\d){9362}`},
	{`(?:\W){9361}`, `(?:\W){9362}`},
	{`(?:\h){9361}`, `(?:\h){9362}`},
	{`(?:\pL){7281}`, `(?:\pL){7282}`},
	// A counted repeat of a character is OP_UPTO alone from {0,m}, the
	// character and OP_UPTO from {1,m}, OP_EXACT and OP_STAR from {n,}.
	{`(?:a{0,5}){6552}`, `(?:a{0,5}){6553}`},
	{`(?:a{1,5}){5460}`, `(?:a{1,5}){5461}`},
	{`(?:a{2,}){5460}`, `(?:a{2,}){5461}`},
	{`(?:a{0}b){6552}`, `(?:a{0}b){6553}`},
	{`(?:\d{2,5}){4680}`, `(?:\d{2,5}){4681}`},
	// \R is one opcode, which the tree spells as an atomic group.
	{`(?:x\R){7281}`, `(?:x\R){7282}`},
	{`(?:\R+){8191}`, `(?:\R+){8192}`},
	{`(?:\R{2,5}){4680}`, `(?:\R{2,5}){4681}`},
	// A class of all bytes but one is OP_NOT and the byte, as a
	// character is; a full class is a class; . is one opcode (audit8).
	{`(?:[^a]){8191}`, `(?:[^a]){8192}`},
	{`(?:[^\n]){8191}`, `(?:[^\n]){8192}`},
	{`(?:(?i)[^a]){8191}`, `(?:(?i)[^a]){8192}`},
	{`(?:[^a]+){8191}`, `(?:[^a]+){8192}`},
	{`(?:[^a]{3}){6552}`, `(?:[^a]{3}){6553}`},
	{`(?:[^a]{2,5}){4680}`, `(?:[^a]{2,5}){4681}`},
	{`(?:[\s\S]){1680}`, `(?:[\s\S]){1681}`},
	{`(?:[\x00-\xff]){1680}`, `(?:[\x00-\xff]){1681}`},
	{`(?:.){9361}`, `(?:.){9362}`},
	{`(?:\N){9361}`, `(?:\N){9362}`},
	// A lookbehind's branches each start with OP_REVERSE and a length.
	{`(?:(?<=a)){3854}`, `(?:(?<=a)){3855}`},
	{`(?:(?<!a)){3854}`, `(?:(?<!a)){3855}`},
	{`(?:(?<=ab)){3448}`, `(?:(?<=ab)){3449}`},
	{`(?:(?<=a|bc)){2427}`, `(?:(?<=a|bc)){2428}`},
	{`(?:(?<=\d)){4095}`, `(?:(?<=\d)){4096}`},
	{`(?:(?<=[ab])){1365}`, `(?:(?<=[ab])){1366}`},
	{`(?:(?<=(a))){2621}`, `(?:(?<=(a))){2622}`},
	{`(?:(?=a)){4680}`, `(?:(?=a)){4681}`},
}

// A client's pattern that PCRE2 would compile past 64 KiB is refused with
// NGINX's words, however short; one just under it compiles.
func TestCompileRequestSize(t *testing.T) {
	for _, c := range sizeCases {
		if _, err := CompileRequest(c.ok, false); err != nil {
			t.Errorf("%s: %v", c.ok, err)
		}
		_, err := CompileRequest(c.large, false)
		if want := `pcre2_compile() failed: regular expression is too large in "` + c.large + `"`; err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", c.large, err, want)
		}
	}
	// 32 KiB of pattern that compiles to half of PCRE2's limit.
	if _, err := CompileRequest(strings.Repeat("a{9}", MaxRequestPattern/4), false); err != nil {
		t.Errorf("32 KiB of single-item repeats: %v", err)
	}
}

// TestCompiledSizeAgainstNginx checks sizeCases with NGINX's PCRE2.
func TestCompiledSizeAgainstNginx(t *testing.T) {
	nginx := "/usr/sbin/nginx"
	if _, err := os.Stat(nginx); err != nil {
		t.Skip("no nginx")
	}
	dir := t.TempDir()
	for _, c := range sizeCases {
		if ok, out := nginxCompiles(t, nginx, dir, c.ok); !ok {
			t.Errorf("%s: nginx -t: %s", c.ok, out)
		}
		if ok, out := nginxCompiles(t, nginx, dir, c.large); ok || !strings.Contains(string(out), "regular expression is too large") {
			t.Errorf("%s: nginx -t: %s", c.large, out)
		}
	}
}
