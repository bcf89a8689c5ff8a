package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/charset"
	"github.com/mosaic-edge/mosaic/conf"
)

// The charset directives (NGINX's ngx_http_charset_module). The core
// names the charset of a response in its Content-Type (the recorder's
// finalHeader); a body that must be converted between two charsets, by
// a charset_map, is recoded by the "charset" output filter
// (modules/charsetmod) through CharsetRecoding, which also names the new
// charset, so that the recorder then finds nothing left to do.

// charsetMaps are the configuration's charset_map tables.
type charsetMaps struct {
	tables []*charset.Table
}

// find returns the table between src and dst, and whether it converts
// To to From; nil for none.
func (m *charsetMaps) find(src, dst string) (*charset.Table, bool) {
	if m == nil {
		return nil, false
	}
	for _, t := range m.tables {
		if strings.EqualFold(t.From, src) && strings.EqualFold(t.To, dst) {
			return t, false
		}
		if strings.EqualFold(t.From, dst) && strings.EqualFold(t.To, src) {
			return t, true
		}
	}
	return nil, false
}

// declareCharset adds a name to the charsets an X-Accel-Charset may name.
func declareCharset(cfg *Config, name string) {
	if cfg.charsets == nil {
		cfg.charsets = make(map[string]bool)
	}
	cfg.charsets[strings.ToLower(name)] = true
}

// charsetTypes is the list of charset_types: text/html always, or any
// type for "*".
type charsetTypes struct {
	any   bool
	types map[string]bool
}

// defaultCharsetTypes is NGINX's default charset_types.
var defaultCharsetTypes = charsetTypes{types: map[string]bool{
	"text/html": true, "text/xml": true, "text/plain": true, "text/vnd.wap.wml": true,
	"application/javascript": true, "application/rss+xml": true,
}}

func (t charsetTypes) has(mt string) bool { return t.any || t.types[mt] }

// setCharset reads "charset name | off" and "source_charset name".
func setCharset(source bool) func(*Cmd) error {
	return func(c *Cmd) error {
		cl := c.Loc().(*coreLoc)
		s, at := &cl.charset, &cl.charsetAt
		if source {
			s, at = &cl.sourceCharset, &cl.sourceCharsetAt
		}
		name := c.Args[0]
		if strings.Contains(name, "$") {
			return c.Errorf("variables in %q are not supported", c.Name)
		}
		if strings.ContainsAny(name, "; \t\"") {
			return c.Invalid(name, "")
		}
		if name == "off" && !source {
			// NGINX has no "source_charset off": it names a charset
			// called "off", which no conversion knows.
			name = ""
		}
		*at = c.Pos()
		cfg := c.Config()
		cl.charsetMaps = &cfg.charsetMaps
		if name != "" {
			declareCharset(cfg, name)
		}
		return Put(c, s, name)
	}
}

// setCharsetTypes reads charset_types; several lines at a level add up.
func setCharsetTypes(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	t := &cl.charsetTypes
	if !t.Set {
		t.Put(charsetTypes{types: map[string]bool{"text/html": true}})
	}
	for _, a := range c.Args {
		if a == "*" {
			t.V.any = true
			continue
		}
		t.V.types[strings.ToLower(a)] = true
	}
	return nil
}

// setCharsetMap reads a "charset_map from to { byte value; ... }" block,
// with NGINX's checks and wording.
func setCharsetMap(c *Cmd) error {
	cfg := c.Config()
	from, to := c.Args[0], c.Args[1]
	t, err := charset.NewTable(from, to)
	if err != nil {
		return c.Errorf("%s", err)
	}
	if m, _ := cfg.charsetMaps.find(from, to); m != nil {
		return c.Errorf("duplicate \"charset_map\" between %q and %q", from, to)
	}
	declareCharset(cfg, from)
	declareCharset(cfg, to)
	for _, d := range c.Block {
		if d.Block != nil {
			return conf.Errorf(d, "unexpected \"{\"")
		}
		if len(d.Args) != 1 {
			return conf.Errorf(d, "invalid parameters number")
		}
		if err := t.Map(d.Name, d.Args[0]); err != nil {
			return conf.Errorf(d, "%s", err)
		}
	}
	cfg.charsetMaps.tables = append(cfg.charsetMaps.tables, t)
	return nil
}

// checkCharsets refuses, once a level is merged, a charset that would
// have to be converted from source_charset without a charset_map
// between them (NGINX's check after reading the configuration).
func checkCharsets(cl *coreLoc) error {
	dst, src := cl.charset.V, cl.sourceCharset.V
	if dst == "" || src == "" || strings.EqualFold(dst, src) {
		return nil
	}
	if t, _ := cl.charsetMaps.find(src, dst); t != nil {
		return nil
	}
	return fmt.Errorf("no \"charset_map\" between the charsets %q and %q (source_charset in %s, charset in %s)",
		src, dst, cl.sourceCharsetAt, cl.charsetAt)
}

// Charset returns the charset that the charset directive in force in l
// gives its responses of the media type mimeType (charset_types), "" for
// none: for a content that shapes its body by it, as NGINX's autoindex
// measures names in characters for utf-8.
func (l *Location) Charset(mimeType string) string {
	cl := LocConf[*coreLoc](l, coreModule)
	if !cl.charsetTypes.V.has(mimeType) {
		return ""
	}
	return cl.charset.V
}

// applyCharset adds or corrects the charset parameter of a client
// response's Content-Type as NGINX's charset filter does when no
// conversion is needed. A response whose charset (its own, with
// override_charset on, or source_charset) is another needs one: with a
// charset_map CharsetRecoding made it and named dst already (or left an
// encoded body alone, as NGINX), and without one it is logged; either
// way nothing changes here.
func (cl *coreLoc) applyCharset(h http.Header, code int, log *slog.Logger) {
	dst := cl.charset.V
	if dst == "" {
		return
	}
	ct := h["Content-Type"]
	if len(ct) == 0 || ct[0] == "" {
		return
	}
	mt, _, hasParams := strings.Cut(ct[0], ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	src := ctCharset(ct[0])
	switch {
	case src != "":
		if !cl.overrideCharset.V {
			return
		}
	case !cl.charsetTypes.V.has(mt):
		return
	case hasParams:
		// Other parameters and no charset: NGINX's header filter then
		// sends the Content-Type as it came.
		return
	default:
		src = cl.sourceCharset.V
	}
	if src != "" && !strings.EqualFold(src, dst) {
		// With a charset_map, the filter recoded the body and named dst,
		// or the body is encoded and NGINX leaves it alone.
		noMap(cl.charsetMaps, src, dst, log)
		return
	}
	if code == http.StatusMovedPermanently || code == http.StatusFound {
		// NGINX names no charset on these redirects (old browsers took
		// it for the next page's); a charset already there stays.
		return
	}
	// NGINX sends the type up to the charset parameter as it came,
	// other parameters and spaces before it included.
	h["Content-Type"] = []string{charsetStem(ct[0]) + "; charset=" + dst}
}

// applyAccelCharset is NGINX's charset filter for a response whose
// upstream named its charset with X-Accel-Charset (dst): that charset
// replaces the "charset" directive's, whatever the type, when the
// configuration declares it ("charset", "source_charset"); unknown, it
// is logged and nothing changes. The response's own charset, or
// source_charset, is the source: with none, dst is named; the same,
// dst replaces it (a 301 or 302 then names none, as NGINX sends them);
// another needs a conversion: CharsetRecoding made it with a charset_map
// (dst is then named already), and without one it is logged.
func (cl *coreLoc) applyAccelCharset(known map[string]bool, maps *charsetMaps, dst string, h http.Header, code int, log *slog.Logger) {
	ct := h["Content-Type"]
	if len(ct) == 0 || ct[0] == "" {
		return
	}
	if !known[strings.ToLower(dst)] {
		log.Error(fmt.Sprintf("unknown charset %q to override", dst))
		return
	}
	// stem is the type without its charset parameter: what NGINX sends
	// before the charset it names.
	stem, src := charsetStem(ct[0]), ctCharset(ct[0])
	redirect := code == http.StatusMovedPermanently || code == http.StatusFound
	switch {
	case src != "" && strings.EqualFold(src, dst):
		if redirect {
			h["Content-Type"] = []string{stem}
			return
		}
	case src != "":
		noMap(maps, src, dst, log)
		return
	case cl.sourceCharset.V != "" && !strings.EqualFold(cl.sourceCharset.V, dst):
		noMap(maps, cl.sourceCharset.V, dst, log)
		return
	case redirect:
		return
	}
	h["Content-Type"] = []string{stem + "; charset=" + dst}
}

// noMap logs NGINX's error for a response that needs a conversion from
// src to dst that no charset_map gives.
func noMap(maps *charsetMaps, src, dst string, log *slog.Logger) {
	if t, _ := maps.find(src, dst); t == nil {
		log.Error(fmt.Sprintf("no \"charset_map\" between the charsets %q and %q", src, dst))
	}
}

// CharsetMapped says whether the configuration of l has a charset_map:
// without one no body is recoded.
func (l *Location) CharsetMapped() bool {
	return l.server != nil && len(l.server.cfg.charsetMaps.tables) > 0
}

// CharsetUnranged returns, for the file server's and an upstream's
// ranges, the test of the Content-Types whose body l recodes to or from
// UTF-8, or nil for none: NGINX's filter then drops the length, and its
// range filter, behind it, offers no range.
func (l *Location) CharsetUnranged() func(contentType string) bool {
	cl := LocConf[*coreLoc](l, coreModule)
	if !l.CharsetMapped() || cl.charset.V == "" {
		return nil
	}
	maps := &l.server.cfg.charsetMaps
	return func(ct string) bool {
		src := ctCharset(ct)
		if !cl.recodes(src, charsetStem(ct)) {
			return false
		}
		if src == "" {
			src = cl.sourceCharset.V
		}
		t, _ := maps.find(src, cl.charset.V)
		return t != nil && t.UTF8()
	}
}

// recodes reports whether cl's charset applies to a response that names
// charset own ("" for none), of Content-Type stem (less its charset), as
// NGINX decides for a location's charset: one that names its own with
// override_charset on, one that names none with a type of charset_types
// and no other parameter.
func (cl *coreLoc) recodes(own, stem string) bool {
	if own != "" {
		return cl.overrideCharset.V
	}
	mt, _, hasParams := strings.Cut(stem, ";")
	return !hasParams && cl.charsetTypes.V.has(strings.ToLower(strings.TrimSpace(mt)))
}

// CharsetRecoding is NGINX's charset header filter for a response to the
// client whose body goes from one charset to another by a charset_map:
// the charset directive's (or the upstream's X-Accel-Charset) for a type
// of charset_types, from the response's own charset (with
// override_charset on) or source_charset. It names the new charset in
// the Content-Type (none on a 301 or 302, as NGINX), drops the
// Content-Length when the length may change (to or from UTF-8), and
// returns the table and whether it converts To to From; nil when the
// body stays as it is, as an encoded one and one without a map do. An
// include (server.Include: SSI, ESI) or a Subrequest (addition's parts)
// is recoded from its own charset, or its location's source_charset,
// into the one its main response names, whatever its type, as NGINX
// recodes a subrequest.
func CharsetRecoding(r *http.Request, loc *Location, h http.Header, code int) (*charset.Table, bool) {
	ri := infoFrom(r.Context())
	if ri == nil || ri.cfg == nil || ri.st == nil || len(ri.cfg.charsetMaps.tables) == 0 {
		return nil, false
	}
	cl := LocConf[*coreLoc](loc, coreModule)
	ct := h.Get("Content-Type")
	// The type is what precedes the charset parameter: NGINX tests that
	// against charset_types, so "text/html;charset=" names no charset
	// and is text/html.
	stem := charsetStem(ct)
	own := ctCharset(ct)
	if ri.rare().subDepth > 0 {
		inc := ri.rare().includer
		if inc == nil || inc.rare().charsetName == "" {
			return nil, false
		}
		src := own
		if src == "" {
			src = cl.sourceCharset.V
		}
		return recodeBetween(ri.cfg, src, inc.rare().charsetName, h)
	}
	// Unless the filter names another, the response names its own.
	ri.setCharsetName(own)
	if ct == "" {
		return nil, false
	}
	var dst string
	if x := ri.st.Rare(); x != nil && x.AccelCharset != "" {
		accel := x.AccelCharset
		if !ri.cfg.charsets[strings.ToLower(accel)] {
			return nil, false
		}
		dst = accel
	} else {
		dst = cl.charset.V
		if dst == "" || !cl.recodes(own, stem) {
			return nil, false
		}
	}
	src := own
	if src == "" {
		src = cl.sourceCharset.V
	}
	redirect := code == http.StatusMovedPermanently || code == http.StatusFound
	if src == "" || strings.EqualFold(src, dst) {
		// Named, not recoded (the recorder writes it).
		ri.setCharsetName(dst)
		if redirect {
			ri.setCharsetName("")
		}
		return nil, false
	}
	t, reverse := recodeBetween(ri.cfg, src, dst, h)
	if t == nil {
		return nil, false
	}
	ri.setCharsetName(dst)
	if redirect {
		ri.setCharsetName("")
		h["Content-Type"] = []string{stem}
	} else {
		h["Content-Type"] = []string{stem + "; charset=" + dst}
	}
	if t.UTF8() {
		h.Del("Content-Length")
	}
	return t, reverse
}

// recodeBetween returns the table from src to dst for a body that is
// not encoded (NGINX leaves an encoded one alone), nil for none.
func recodeBetween(cfg *Config, src, dst string, h http.Header) (*charset.Table, bool) {
	if src == "" || strings.EqualFold(src, dst) || h.Get("Content-Encoding") != "" {
		return nil, false
	}
	return cfg.charsetMaps.find(src, dst)
}

// charsetStem is a Content-Type without its charset parameter and what
// follows it, as NGINX cuts an upstream's.
func charsetStem(ct string) string {
	for i := 0; i < len(ct); i++ {
		if ct[i] != ';' {
			continue
		}
		rest := strings.TrimLeft(ct[i+1:], " ")
		if len(rest) >= 8 && strings.EqualFold(rest[:8], "charset=") {
			return ct[:i]
		}
	}
	return ct
}

// ctCharset returns the charset a Content-Type names, as NGINX reads an
// upstream's: after the first ";" that spaces and "charset=" follow,
// everything to the end of the value, less one quote at either end. A
// parameter after the charset thus stays in it ("koi8-r; q=1"), which
// then names no charset NGINX knows: the body is neither recoded nor
// renamed.
func ctCharset(ct string) string {
	stem := charsetStem(ct)
	if len(stem) == len(ct) {
		return ""
	}
	v := strings.TrimLeft(ct[len(stem)+1:], " ")[len("charset="):]
	v = strings.TrimPrefix(v, "\"")
	return strings.TrimSuffix(v, "\"")
}

// partTyper is the request's byterange.PartTyper: the type of a
// multipart answer's parts gets the charset the location's charset
// directives give the response, as NGINX's charset filter, which runs
// before its range filter, sets it where the range filter reads it.
type partTyper struct{}

func (partTyper) PartType(ctx context.Context, ct string) string {
	ri := infoFrom(ctx)
	if ri == nil || ri.rec == nil || ri.loc == nil {
		return ct // a subrequest: NGINX's charset filter skips those
	}
	cl := LocConf[*coreLoc](ri.serving(), coreModule)
	if cl.charset.V == "" {
		return ct
	}
	h := http.Header{"Content-Type": {ct}}
	// What applyCharset would log, the response's own header logs.
	cl.applyCharset(h, http.StatusPartialContent, slog.New(slog.DiscardHandler))
	return h["Content-Type"][0]
}
