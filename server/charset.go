package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
)

// The charset directives (NGINX's ngx_http_charset_module) without its
// conversion tables: mosaic names the charset of a response in its
// Content-Type but never recodes a body, so "charset_map" is refused and
// so is a charset that differs from source_charset at the same level,
// which NGINX could serve only with such a map.

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
		if name != "" {
			cfg := c.Config()
			if cfg.charsets == nil {
				cfg.charsets = make(map[string]bool)
			}
			cfg.charsets[strings.ToLower(name)] = true
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

// checkCharsets refuses, once a level is merged, a charset that would
// have to be converted from source_charset.
func checkCharsets(cl *coreLoc) error {
	dst, src := cl.charset.V, cl.sourceCharset.V
	if dst == "" || src == "" || strings.EqualFold(dst, src) {
		return nil
	}
	return fmt.Errorf("no \"charset_map\" between the charsets %q and %q (source_charset in %s, charset in %s): mosaic does not convert between charsets",
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
// conversion is needed. A response that names another charset, with
// override_charset on, would need one: it is logged and sent unchanged.
func (cl *coreLoc) applyCharset(h http.Header, code int, log *slog.Logger) {
	dst := cl.charset.V
	if dst == "" {
		return
	}
	ct := h["Content-Type"]
	if len(ct) == 0 || ct[0] == "" {
		return
	}
	mt, params, hasParams := strings.Cut(ct[0], ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	var src string
	if hasParams {
		src = paramCharset(params)
	}
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
		log.Error(fmt.Sprintf("no \"charset_map\" between the charsets %q and %q", src, dst))
		return
	}
	if code == http.StatusMovedPermanently || code == http.StatusFound {
		// NGINX names no charset on these redirects (old browsers took
		// it for the next page's); a charset already there stays.
		return
	}
	base, _, _ := strings.Cut(ct[0], ";")
	h["Content-Type"] = []string{strings.TrimRight(base, " \t") + "; charset=" + dst}
}

// applyAccelCharset is NGINX's charset filter for a response whose
// upstream named its charset with X-Accel-Charset (dst): that charset
// replaces the "charset" directive's, whatever the type, when the
// configuration declares it ("charset", "source_charset"); unknown, it
// is logged and nothing changes. The response's own charset, or
// source_charset, is the source: with none, dst is named; the same,
// dst replaces it (a 301 or 302 then names none, as NGINX sends them);
// another would need a conversion, which is logged and not done.
func (cl *coreLoc) applyAccelCharset(known map[string]bool, dst string, h http.Header, code int, log *slog.Logger) {
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
	stem, src := ct[0], ""
	for i := 0; i < len(ct[0]); i++ {
		if ct[0][i] != ';' {
			continue
		}
		rest := strings.TrimLeft(ct[0][i+1:], " ")
		if len(rest) >= 8 && strings.EqualFold(rest[:8], "charset=") {
			stem, src = ct[0][:i], strings.Trim(rest[8:], "\"")
			break
		}
	}
	redirect := code == http.StatusMovedPermanently || code == http.StatusFound
	switch {
	case src != "" && strings.EqualFold(src, dst):
		if redirect {
			h["Content-Type"] = []string{stem}
			return
		}
	case src != "":
		log.Error(fmt.Sprintf("no \"charset_map\" between the charsets %q and %q", src, dst))
		return
	case cl.sourceCharset.V != "" && !strings.EqualFold(cl.sourceCharset.V, dst):
		log.Error(fmt.Sprintf("no \"charset_map\" between the charsets %q and %q", cl.sourceCharset.V, dst))
		return
	case redirect:
		return
	}
	h["Content-Type"] = []string{stem + "; charset=" + dst}
}

// paramCharset returns the charset parameter among a Content-Type's
// parameters (after the first ";"), unquoted, or "".
func paramCharset(params string) string {
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "charset") {
			return strings.Trim(strings.TrimSpace(v), "\"")
		}
	}
	return ""
}

// refuseCharsetMap is "charset_map": conversion tables are not supported.
func refuseCharsetMap(c *Cmd) error {
	return c.Errorf("\"charset_map\" is not supported: mosaic does not convert between charsets")
}
