// Package autoindex lists a directory as NGINX's autoindex module does:
// an HTML page, XML, JSON or JSONP, byte for byte in NGINX's layout.
//
// It knows nothing of the server: Serve answers a request with the
// listing of a directory given as an fs.FS (a file server passes the
// directory below its root, so that no listing reaches outside it).
package autoindex

import (
	"errors"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Format is the listing's format (autoindex_format).
type Format uint8

// The formats of autoindex_format.
const (
	HTML Format = iota
	XML
	JSON
	JSONP
)

// ParseFormat reads an autoindex_format argument, whose case does not
// matter, as for every NGINX enum value.
func ParseFormat(s string) (Format, bool) {
	switch strings.ToLower(s) {
	case "html":
		return HTML, true
	case "xml":
		return XML, true
	case "json":
		return JSON, true
	case "jsonp":
		return JSONP, true
	}
	return 0, false
}

// Options configure a listing. The zero value is NGINX's default: HTML,
// exact sizes, times in UTC.
type Options struct {
	Format Format
	// ApproximateSize rounds sizes to kilobytes, megabytes and gigabytes
	// in the HTML listing ("autoindex_exact_size off").
	ApproximateSize bool
	// LocalTime shows the HTML listing's times in the server's time zone
	// rather than UTC (autoindex_localtime on).
	LocalTime bool
	// UTF8 measures and cuts names in the HTML listing by UTF-8
	// characters rather than bytes, as NGINX does when the listing goes
	// out with charset utf-8: a long name is cut at a character, not
	// inside one. A name that NGINX's decoder cannot read is still
	// measured in bytes, as NGINX measures it (utf8Chars).
	UTF8 bool
	// Error answers a request that cannot be listed (400 for a bad JSONP
	// callback, 403 or 404 for a directory that cannot be read, 500);
	// nil writes the status with a short text.
	Error func(w http.ResponseWriter, r *http.Request, status int)
}

// nameWidth is the column of names in the HTML listing: a longer name is
// cut to 47 bytes (characters, with Options.UTF8) and "..>".
const nameWidth = 50

// cutName returns the first n bytes of name, or its first n characters
// when runes (name is then one that utf8Chars can count).
func cutName(name string, n int, runes bool) string {
	if !runes {
		return name[:n]
	}
	i := 0
	for ; n > 0 && i < len(name); n-- {
		i += max(ngxCharSize(name[i:]), 1)
	}
	return name[:i]
}

// utf8Chars is NGINX's ngx_utf8_length: the characters of s, and false
// (with the length in bytes) where NGINX cannot decode s. NGINX's decoder
// is not Go's: it takes an encoded surrogate for a character, and checks
// only the high bit of the bytes after the first, so a name Go finds
// invalid may be counted in characters.
func utf8Chars(s string) (n int, ok bool) {
	for i := 0; i < len(s); n++ {
		size := ngxCharSize(s[i:])
		if size == 0 {
			return len(s), false
		}
		i += size
	}
	return n, true
}

// ngxCharSize is the size of the character s begins with as NGINX's
// ngx_utf8_decode reads it, 0 where it finds none (or one past
// U+10FFFF, as ngx_utf8_length rejects).
func ngxCharSize(s string) int {
	c := s[0]
	var u, valid uint32
	size := 0
	switch {
	case c < 0x80:
		return 1
	case c >= 0xf0:
		u, valid, size = uint32(c&0x07), 0xffff, 4
	case c >= 0xe0:
		u, valid, size = uint32(c&0x0f), 0x7ff, 3
	case c >= 0xc2:
		u, valid, size = uint32(c&0x1f), 0x7f, 2
	default:
		return 0
	}
	if len(s) < size {
		return 0
	}
	for i := 1; i < size; i++ {
		if s[i] < 0x80 {
			return 0
		}
		u = u<<6 | uint32(s[i]&0x3f)
	}
	if u <= valid || u > 0x10ffff {
		return 0 // overlong, or past Unicode
	}
	return size
}

// Entry is one file of a listing.
type Entry struct {
	Name    string
	Dir     bool
	Regular bool // a regular file: it has a size in XML and JSON
	Size    int64
	ModTime time.Time
}

// Read returns the entries of dir that a listing shows, in its order:
// directories first, then by name, byte by byte; names starting with "."
// are left out. A symbolic link is described by what it points to, or by
// itself when that cannot be reached.
func Read(dir fs.FS) ([]Entry, error) {
	des, err := fs.ReadDir(dir, ".")
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(des))
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		info, err := fs.Stat(dir, name)
		if err != nil {
			if info, err = de.Info(); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed meanwhile
				}
				return nil, err
			}
		}
		entries = append(entries, Entry{
			Name: name, Dir: info.IsDir(), Regular: info.Mode().IsRegular(),
			Size: info.Size(), ModTime: info.ModTime(),
		})
	}
	slices.SortFunc(entries, func(a, b Entry) int {
		switch {
		case a.Dir && !b.Dir:
			return -1
		case !a.Dir && b.Dir:
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return entries, nil
}

// Serve answers a GET or HEAD for the directory uri (the request's
// decoded path, ending in "/") with the listing of dir.
func Serve(w http.ResponseWriter, r *http.Request, dir fs.FS, uri string, opts Options) {
	format := opts.Format
	var callback string
	if format == JSONP {
		cb, ok := Callback(r.URL.RawQuery)
		if !ok {
			opts.fail(w, r, http.StatusBadRequest)
			return
		}
		if callback = cb; cb == "" {
			format = JSON
		}
	}
	entries, err := Read(dir)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			opts.fail(w, r, http.StatusNotFound)
		case errors.Is(err, fs.ErrPermission):
			opts.fail(w, r, http.StatusForbidden)
		default:
			opts.fail(w, r, http.StatusInternalServerError)
		}
		return
	}
	var body []byte
	hdr := w.Header()
	switch format {
	case XML:
		hdr.Set("Content-Type", "text/xml; charset=utf-8")
		body = AppendXML(nil, entries)
	case JSON:
		hdr.Set("Content-Type", "application/json")
		body = AppendJSON(nil, entries, "")
	case JSONP:
		hdr.Set("Content-Type", "application/javascript")
		body = AppendJSON(nil, entries, callback)
	default:
		hdr.Set("Content-Type", "text/html")
		var offset time.Duration
		if opts.LocalTime {
			_, off := time.Now().Zone()
			offset = time.Duration(off) * time.Second
		}
		body = AppendHTML(nil, uri, entries, !opts.ApproximateSize, opts.UTF8, offset)
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func (o *Options) fail(w http.ResponseWriter, r *http.Request, status int) {
	if o.Error != nil {
		o.Error(w, r, status)
		return
	}
	http.Error(w, http.StatusText(status), status)
}

// Callback returns the JSONP callback of a query string: the raw value of
// its "callback" argument, "" when there is none, and false when it is
// longer than 128 bytes or holds anything but letters, digits, "_" and
// ".", which NGINX refuses with 400.
func Callback(rawQuery string) (string, bool) {
	cb, found := "", false
	for arg := range strings.SplitSeq(rawQuery, "&") {
		name, val, hasValue := strings.Cut(arg, "=")
		if hasValue && strings.EqualFold(name, "callback") {
			cb, found = val, true
			break
		}
	}
	if !found {
		return "", true
	}
	if len(cb) > 128 {
		return "", false
	}
	for i := 0; i < len(cb); i++ {
		c := cb[i]
		if c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' {
			continue
		}
		return "", false
	}
	return cb, true
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// AppendHTML appends NGINX's HTML listing of entries for the directory
// uri. exact gives sizes in bytes; runes measures names NGINX decodes in
// characters (Options.UTF8); offset is added to the times, shown as UTC
// (the zone's offset for autoindex_localtime).
func AppendHTML(b []byte, uri string, entries []Entry, exact, runes bool, offset time.Duration) []byte {
	b = append(b, "<html>\r\n<head><title>Index of "...)
	b = appendHTMLEscaped(b, uri)
	b = append(b, "</title></head>\r\n<body>\r\n<h1>Index of "...)
	b = appendHTMLEscaped(b, uri)
	b = append(b, "</h1><hr><pre><a href=\"../\">../</a>\r\n"...)
	for _, e := range entries {
		b = append(b, `<a href="`...)
		b = appendURIComponent(b, e.Name)
		if e.Dir {
			b = append(b, '/')
		}
		b = append(b, `">`...)
		// A name that is not UTF-8 is measured and cut in bytes, as
		// NGINX's ngx_utf8_length gives the byte length of a string it
		// cannot decode.
		n := len(e.Name)
		chars := false
		if runes {
			n, chars = utf8Chars(e.Name)
		}
		if n > nameWidth {
			b = appendHTMLEscaped(b, cutName(e.Name, nameWidth-3, chars))
			b = append(b, "..&gt;</a>"...)
		} else {
			b = appendHTMLEscaped(b, e.Name)
			if e.Dir && n < nameWidth {
				b = append(b, '/')
				n++
			}
			b = append(b, "</a>"...)
			for ; n < nameWidth; n++ {
				b = append(b, ' ')
			}
		}
		b = append(b, ' ')
		t := e.ModTime.Add(offset).UTC()
		b = appendPad(b, t.Day(), 2, '0')
		b = append(b, '-')
		b = append(b, months[t.Month()-1]...)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(t.Year()), 10)
		b = append(b, ' ')
		b = appendPad(b, t.Hour(), 2, '0')
		b = append(b, ':')
		b = appendPad(b, t.Minute(), 2, '0')
		b = append(b, ' ')
		b = appendSize(b, e, exact)
		b = append(b, "\r\n"...)
	}
	return append(b, "</pre><hr></body>\r\n</html>\r\n"...)
}

// appendSize appends the size column: 19 columns of bytes, or "%6d" with
// K, M or G rounded to the nearest unit (7 columns), "-" for directories.
func appendSize(b []byte, e Entry, exact bool) []byte {
	if exact {
		if e.Dir {
			return append(b, "                  -"...)
		}
		return appendPad64(b, e.Size, 19, ' ')
	}
	if e.Dir {
		return append(b, "      -"...)
	}
	const k, m, g = 1024, 1024 * 1024, 1024 * 1024 * 1024
	size, scale := e.Size, byte(0)
	switch l := e.Size; {
	case l > g-1:
		size, scale = l/g, 'G'
		if l%g > g/2-1 {
			size++
		}
	case l > m-1:
		size, scale = l/m, 'M'
		if l%m > m/2-1 {
			size++
		}
	case l > 9999:
		size, scale = l/k, 'K'
		if l%k > 511 {
			size++
		}
	}
	if scale == 0 {
		return appendPad64(append(b, ' '), size, 6, ' ')
	}
	return append(appendPad64(b, size, 6, ' '), scale)
}

func appendPad(b []byte, v, width int, pad byte) []byte {
	return appendPad64(b, int64(v), width, pad)
}

func appendPad64(b []byte, v int64, width int, pad byte) []byte {
	var num [20]byte
	s := strconv.AppendInt(num[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, pad)
	}
	return append(b, s...)
}

// AppendXML appends NGINX's XML listing.
func AppendXML(b []byte, entries []Entry) []byte {
	b = append(b, "<?xml version=\"1.0\"?>\r\n<list>\r\n"...)
	for _, e := range entries {
		kind := kindOf(e)
		b = append(b, '<')
		b = append(b, kind...)
		b = append(b, ` mtime="`...)
		b = e.ModTime.UTC().AppendFormat(b, "2006-01-02T15:04:05Z")
		if e.Regular {
			b = append(b, `" size="`...)
			b = strconv.AppendInt(b, e.Size, 10)
		}
		b = append(b, `">`...)
		b = appendHTMLEscaped(b, e.Name)
		b = append(b, "</"...)
		b = append(b, kind...)
		b = append(b, ">\r\n"...)
	}
	return append(b, "</list>\r\n"...)
}

// AppendJSON appends NGINX's JSON listing, wrapped in a call of callback
// when it is not empty (JSONP).
func AppendJSON(b []byte, entries []Entry, callback string) []byte {
	if callback != "" {
		b = append(b, "/* callback */\r\n"...)
		b = append(b, callback...)
		b = append(b, '(')
	}
	b = append(b, '[')
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\r\n{ \"name\":\""...)
		b = appendJSONEscaped(b, e.Name)
		b = append(b, `", "type":"`...)
		b = append(b, kindOf(e)...)
		b = append(b, `", "mtime":"`...)
		b = e.ModTime.UTC().AppendFormat(b, http.TimeFormat)
		if e.Regular {
			b = append(b, `", "size":`...)
			b = strconv.AppendInt(b, e.Size, 10)
		} else {
			b = append(b, '"')
		}
		b = append(b, " }"...)
	}
	b = append(b, "\r\n]"...)
	if callback != "" {
		b = append(b, ");"...)
	}
	return b
}

func kindOf(e Entry) string {
	switch {
	case e.Dir:
		return "directory"
	case e.Regular:
		return "file"
	}
	return "other"
}

// appendHTMLEscaped escapes the four characters NGINX escapes in HTML:
// <, >, & and ".
func appendHTMLEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&quot;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendURIComponent percent-encodes every byte but letters, digits, "-",
// ".", "_" and "~", as NGINX escapes a link's name.
func appendURIComponent(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return b
}

// appendJSONEscaped escapes as NGINX's JSON: a backslash before " and \,
// the usual letters for \n \r \t \b \f, \u00XX for other control bytes;
// other bytes, UTF-8 or not, go as they are.
func appendJSONEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c > 0x1f {
			if c == '\\' || c == '"' {
				b = append(b, '\\')
			}
			b = append(b, c)
			continue
		}
		switch c {
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		}
	}
	return b
}
