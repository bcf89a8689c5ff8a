package ssi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/percent"
)

// errSSI marks a command that failed: the page gets the error message
// (config errmsg) in its place unless errors are silent.
var errSSI = errors.New("ssi: command failed")

func ssiError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errSSI}, args...)...)
}

// unescape drops the backslash of \\, \', \" and \$, and keeps any other
// backslash with the byte after it, as NGINX reads a parameter's text.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !quoted {
			if c == '\\' {
				quoted = true
				continue
			}
		} else {
			quoted = false
			if c != '\\' && c != '\'' && c != '"' && c != '$' {
				b.WriteByte('\\')
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isVarByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_'
}

// evaluate substitutes $name and ${name} in text (a variable that is not
// found is empty), unescaping the text between them. With prefix (an
// include's URI), a result that does not start with "/" is made relative
// to dir, the current URI up to its last "/": as in NGINX, a text without
// variables always is ("" names dir), one with variables only when they
// made something (all empty, it stays "", which unsafeURI refuses).
func evaluate(text string, prefix bool, dir string, get func(name string) (string, bool)) (string, error) {
	if !strings.Contains(text, "$") {
		out := unescape(text)
		if prefix && !strings.HasPrefix(out, "/") {
			out = dir + out
		}
		return out, nil
	}
	var parts []string
	for i := 0; i < len(text); {
		if text[i] != '$' {
			j := i
			quoted := false
			for ; j < len(text); j++ {
				if quoted {
					quoted = false
				} else if text[j] == '\\' {
					quoted = true
				} else if text[j] == '$' {
					break
				}
			}
			parts = append(parts, unescape(text[i:j]))
			i = j
			continue
		}
		i++
		bracket := i < len(text) && text[i] == '{'
		if bracket {
			i++
		}
		if i >= len(text) {
			return "", ssiError(`invalid variable name in "%s"`, text)
		}
		start := i
		for i < len(text) && isVarByte(text[i]) {
			i++
		}
		name := text[start:i]
		if bracket {
			if i >= len(text) || text[i] != '}' {
				return "", ssiError(`the closing bracket in "%s" variable is missing`, name)
			}
			i++
		}
		if name == "" {
			return "", ssiError(`invalid variable name in "%s"`, text)
		}
		if v, ok := get(strings.ToLower(name)); ok {
			parts = append(parts, v)
		}
	}
	out := strings.Join(parts, "")
	if prefix && out != "" && out[0] != '/' {
		out = dir + out
	}
	return out, nil
}

// uriDir is the current URI up to and with its last "/".
func uriDir(uri string) string {
	return uri[:strings.LastIndexByte(uri, '/')+1]
}

// condition is an "if" or "elif" expression split as NGINX splits it:
// a left operand of name bytes, then nothing, or "=" / "!=" and a right
// operand, a regular expression when it is within slashes.
type condition struct {
	left, right string
	op          string // "", "=", "!="
	regex       bool
}

func parseCondition(expr string) (condition, error) {
	var c condition
	// NGINX lower-cases the left operand's letters in place.
	i := 0
	var left strings.Builder
	for ; i < len(expr); i++ {
		ch := expr[i]
		if ch >= 'A' && ch <= 'Z' {
			ch |= 0x20
		} else if !(ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || strings.IndexByte("${}_\"'", ch) >= 0) {
			break
		}
		left.WriteByte(ch)
	}
	c.left = left.String()
	for i < len(expr) && expr[i] == ' ' {
		i++
	}
	if i == len(expr) {
		return c, nil
	}
	switch {
	case expr[i] == '=':
		c.op = "="
		i++
	case i+1 < len(expr) && expr[i] == '!' && expr[i+1] == '=':
		c.op = "!="
		i += 2
	default:
		return c, ssiError(`invalid expression in "%s"`, expr)
	}
	for i < len(expr) && expr[i] == ' ' {
		i++
	}
	last := len(expr)
	if i < last-1 && expr[i] == '/' {
		if expr[last-1] != '/' {
			return c, ssiError(`invalid expression in "%s"`, expr)
		}
		c.regex = true
		i++
		last--
	} else if i < last-1 && expr[i] == '\\' && expr[i+1] == '/' {
		i++
	}
	c.right = expr[i:last]
	return c, nil
}

// urlEscapes is NGINX's NGX_ESCAPE_HTML set: the bytes echo
// encoding="url" writes as %XX.
var urlEscapes = percent.NewSet(func(c byte) bool {
	return c < 0x21 || c >= 0x7f || strings.IndexByte("\"#%'<>\\^`{|}", c) >= 0
})

func escapeURL(s string) string { return urlEscapes.Escape(s) }

var entities = strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", `"`, "&quot;")

// DefaultTimeFormat is the strftime format of DATE_LOCAL and DATE_GMT
// until a page's "config timefmt" changes it.
const DefaultTimeFormat = "%A, %d-%b-%Y %H:%M:%S %Z"

// strftime formats t as C's strftime does in the C locale, for the
// conversions pages use; "%s" alone is the Unix time, as in NGINX.
func strftime(format string, t time.Time) string {
	if format == "%s" {
		return strconv.FormatInt(t.Unix(), 10)
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		switch format[i] {
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b', 'h':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'c':
			b.WriteString(t.Format("Mon Jan _2 15:04:05 2006"))
		case 'C':
			fmt.Fprintf(&b, "%02d", t.Year()/100)
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'D':
			b.WriteString(t.Format("01/02/06"))
		case 'e':
			fmt.Fprintf(&b, "%2d", t.Day())
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			fmt.Fprintf(&b, "%02d", (t.Hour()+11)%12+1)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'n':
			b.WriteByte('\n')
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'r':
			b.WriteString(t.Format("03:04:05 PM"))
		case 'R':
			b.WriteString(t.Format("15:04"))
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case 'u':
			fmt.Fprintf(&b, "%d", (int(t.Weekday())+6)%7+1)
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'Y':
			fmt.Fprintf(&b, "%d", t.Year())
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			name, _ := t.Zone()
			b.WriteString(name)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
