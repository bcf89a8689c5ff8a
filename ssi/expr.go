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

// maxDate is the longest date NGINX formats (NGX_HTTP_SSI_DATE_LEN, its
// NUL included); strftime gives nothing for a longer one.
const maxDate = 2047

// strftime formats t as glibc's strftime does in the C locale, which NGINX
// calls: the conversions, the flags "_" "-" "0" (padding), "^" (upper
// case) and "#" (swapped case), a field width and the E and O modifiers
// where glibc takes them; another spec is copied as written. "%s" alone
// is the Unix time, as in NGINX. A result longer than NGINX's buffer is
// "", as NGINX has none either.
func strftime(format string, t time.Time) string {
	if format == "%s" {
		return strconv.FormatInt(t.Unix(), 10)
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			b.WriteByte(format[i])
			continue
		}
		j := i + 1
		var pad byte
		upper, swap := false, false
		for ; j < len(format) && strings.IndexByte("_-0^#", format[j]) >= 0; j++ {
			switch format[j] {
			case '^':
				upper = true
			case '#':
				swap = true
			default:
				pad = format[j]
			}
		}
		width := -1
		for ; j < len(format) && format[j] >= '0' && format[j] <= '9'; j++ {
			width = max(width, 0)*10 + int(format[j]-'0')
			if width > maxDate {
				return ""
			}
		}
		var mod byte
		if j < len(format) && (format[j] == 'E' || format[j] == 'O') {
			mod = format[j]
			j++
		}
		if j == len(format) {
			j--
		}
		c := format[j]
		text, digits, ok := convert(c, t)
		switch {
		case !ok || mod == 'E' && strings.IndexByte("cCnpPrRstTuxXyYzZ%", c) < 0 ||
			mod == 'O' && strings.IndexByte("bBCdegGhHIjklmMnpPrRsStTuUVwWyzZ%", c) < 0:
			// glibc copies a spec it does not know, padded to the width,
			// in the case its flags ask for: "^", or "#" on %b and %h,
			// which glibc reads before it refuses their E.
			text, digits = format[i:j+1], 0
			if upper || swap && (c == 'b' || c == 'h') {
				text = upperASCII(text)
			}
		case c == 'z':
			// glibc writes the sign as text, then the offset as a
			// number, each padded to the width: "%_z" is "+   0".
			b.WriteString(padded(text[:1], 0, width, pad, false))
			text = text[1:]
		case c == 'P':
			// lower case, whatever the flags
		case swap && (c == 'p' || c == 'Z'):
			text = strings.ToLower(text)
		case upper || swap && strings.IndexByte("aAbBh", c) >= 0:
			text = strings.ToUpper(text)
		}
		b.WriteString(padded(text, digits, width, pad, strings.IndexByte("ekl", c) >= 0))
		if b.Len() > maxDate {
			return ""
		}
		i = j
	}
	return b.String()
}

// upperASCII upper-cases the ASCII letters of s, as glibc's toupper in
// the C locale: other bytes, of a multibyte character too, stay as they
// are.
func upperASCII(s string) string {
	b := []byte(s)
	for k, c := range b {
		if 'a' <= c && c <= 'z' {
			b[k] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// padded pads a conversion's text to the width as glibc does: a number
// (digits > 0) to its digits at least, a smaller width too ("%1d" is
// "07"), with zeros (spaces for %e %k %l: space), spaces with "_", not at
// all with "-" unless a width is given; other text to the width alone,
// with spaces, or zeros with "0".
func padded(text string, digits, width int, pad byte, space bool) string {
	fill := byte(' ')
	if digits > 0 {
		if pad != '-' {
			width = max(width, digits)
		}
		if pad == '0' || pad == 0 && !space {
			fill = '0'
		}
	} else if pad == '0' {
		fill = '0'
	}
	if len(text) >= width {
		return text
	}
	return strings.Repeat(string(fill), width-len(text)) + text
}

// convert is the text of one conversion in the C locale, and for a
// number its digits (0 for text); ok is false for an unknown one.
func convert(c byte, t time.Time) (text string, digits int, ok bool) {
	num := func(v, digits int) (string, int, bool) { return strconv.Itoa(v), digits, true }
	year, week := t.ISOWeek()
	switch c {
	case 'a':
		return t.Format("Mon"), 0, true
	case 'A':
		return t.Format("Monday"), 0, true
	case 'b', 'h':
		return t.Format("Jan"), 0, true
	case 'B':
		return t.Format("January"), 0, true
	case 'c':
		return t.Format("Mon Jan _2 15:04:05 2006"), 0, true
	case 'C':
		return num(t.Year()/100, 2)
	case 'd':
		return num(t.Day(), 2)
	case 'D', 'x':
		return t.Format("01/02/06"), 0, true
	case 'e':
		return num(t.Day(), 2)
	case 'F':
		return t.Format("2006-01-02"), 0, true
	case 'g':
		return num(year%100, 2)
	case 'G':
		return num(year, 1)
	case 'H':
		return num(t.Hour(), 2)
	case 'I':
		return num((t.Hour()+11)%12+1, 2)
	case 'j':
		return num(t.YearDay(), 3)
	case 'k':
		return num(t.Hour(), 2)
	case 'l':
		return num((t.Hour()+11)%12+1, 2)
	case 'm':
		return num(int(t.Month()), 2)
	case 'M':
		return num(t.Minute(), 2)
	case 'n':
		return "\n", 0, true
	case 'p':
		return t.Format("PM"), 0, true
	case 'P':
		return strings.ToLower(t.Format("PM")), 0, true
	case 'r':
		return t.Format("03:04:05 PM"), 0, true
	case 'R':
		return t.Format("15:04"), 0, true
	case 's':
		return strconv.FormatInt(t.Unix(), 10), 1, true
	case 'S':
		return num(t.Second(), 2)
	case 't':
		return "\t", 0, true
	case 'T', 'X':
		return t.Format("15:04:05"), 0, true
	case 'u':
		return num((int(t.Weekday())+6)%7+1, 1)
	case 'U':
		return num((t.YearDay()+6-int(t.Weekday()))/7, 2)
	case 'V':
		return num(week, 2)
	case 'w':
		return num(int(t.Weekday()), 1)
	case 'W':
		return num((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, 2)
	case 'y':
		return num(t.Year()%100, 2)
	case 'Y':
		return num(t.Year(), 1)
	case 'z':
		// The sign, then the offset as hhmm: strftime pads them apart.
		_, off := t.Zone()
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		return sign + strconv.Itoa(off/3600*100+off/60%60), 4, true
	case 'Z':
		name, _ := t.Zone()
		return name, 0, true
	case '%':
		return "%", 0, true
	}
	return "", 0, false
}
