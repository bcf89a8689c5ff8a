package ssi

import (
	"fmt"
	"strings"
	"testing"
)

// events renders what the parser makes of the pieces: text as is,
// commands as {name k=v ...}, invalid ones as {!error}.
func events(valueLen int, pieces ...string) string {
	var b strings.Builder
	p := NewParser(valueLen, func(ev *Event) {
		switch ev.Kind {
		case Text:
			b.Write(ev.Data)
		case Command:
			b.WriteString("{" + ev.Name)
			for _, pr := range ev.Params {
				fmt.Fprintf(&b, " %s=%s", pr.Name, pr.Value)
			}
			b.WriteString("}")
		case Invalid:
			b.WriteString("{!" + ev.Err + "}")
		}
	})
	for _, s := range pieces {
		p.Feed([]byte(s))
	}
	p.Close()
	return b.String()
}

func TestParser(t *testing.T) {
	cases := []struct{ in, want string }{
		{`plain <b>text</b>`, `plain <b>text</b>`},
		{`a<!--# echo var="x" -->b`, `a{echo var=x}b`},
		{`<!--#echo var='y'-->`, `{echo var=y}`},
		{"<!--#  include\n\tvirtual = \"/a\"  wait=\"yes\"-->", `{include virtual=/a wait=yes}`},
		{`<!--#endif-->`, `{endif}`},
		{`<<!--#x -->`, `<{x}`},
		{`<!<!--#x -->`, `<!{x}`},
		{`<!-<!--#x -->`, `<!-{x}`},
		{`<!--<!--#x -->`, `<!--{x}`},
		{`<!-- comment -->`, `<!-- comment -->`},
		{`<a<!x<!-x<!--x`, `<a<!x<!-x<!--x`},
		{`<!--# set value="a\"b\\c" -->`, `{set value=a\"b\\c}`},
		{`<!--# set value='it\'s' -->`, `{set value=it\'s}`},
		{`<!--# echo var="x"y -->z`, `{!unexpected "y" symbol after "x" value of "var" parameter in "echo" SSI command}z`},
		{`<!--# echo var -->`, `{!unexpected "-" symbol after "var" parameter in "echo" SSI command}`},
		{`<!--# echo var=x -->`, `{!unexpected "x" symbol before value of "var" parameter in "echo" SSI command}`},
		{`<!--# echo var- -->`, `{!unexpected "-" symbol after "var" parameter in "echo" SSI command}`},
		{`<!--# echo - -->`, `{!unexpected " " symbol in "echo" SSI command}`},
		{`<!--# echo -- >`, ``},
		{`tail<!-`, `tail`},
		{`tail<!--# echo`, `tail`},
		{`<!--# ` + strings.Repeat("c", 33) + ` -->`, `{!the "` + strings.Repeat("c", 32) + `c..." SSI command is too long}`},
		{`<!--# e ` + strings.Repeat("p", 33) + `="" -->`, `{!too long "` + strings.Repeat("p", 32) + `p..." parameter in "e" SSI command}`},
	}
	for _, c := range cases {
		if got := events(0, c.in); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		// Any split of the input gives the same events.
		for i := 1; i < len(c.in); i++ {
			if got := events(0, c.in[:i], c.in[i:]); got != c.want {
				t.Errorf("%q split at %d:\n got %q\nwant %q", c.in, i, got, c.want)
				break
			}
		}
	}
}

func TestParserValueLength(t *testing.T) {
	if got := events(3, `<!--# set v="abc" -->`); got != `{set v=abc}` {
		t.Errorf("got %q", got)
	}
	want := `{!too long "abcd..." value of "v" parameter in "set" SSI command}`
	if got := events(3, `<!--# set v="abcde" -->`); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzParser(f *testing.F) {
	for _, s := range []string{`a<!--# echo var="x" -->b`, `<!--# if expr="$a = /b(c)/" -->`, `<<!--#x y='\'' -->`, `<!--# e - -->`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint8) {
		whole := events(16, string(in))
		cut := int(split) % (len(in) + 1)
		if got := events(16, string(in[:cut]), string(in[cut:])); got != whole {
			t.Fatalf("split at %d: %q, whole: %q", cut, got, whole)
		}
		// Text outside commands is never lost: input without "<!--#"
		// comes back as it went in, but for a trailing "<!--" prefix.
		if !strings.Contains(string(in), "<!--#") {
			s := string(in)
			for _, p := range []string{"<!--", "<!-", "<!", "<"} {
				if strings.HasSuffix(s, p) {
					s = s[:len(s)-len(p)]
					break
				}
			}
			if whole != s {
				t.Fatalf("text changed: %q -> %q", in, whole)
			}
		}
	})
}
