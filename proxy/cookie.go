package proxy

import (
	"net/http"
	"strings"
)

// Cookies rewrites the Set-Cookie fields of upstream responses, as NGINX's
// proxy_cookie_domain, proxy_cookie_path and proxy_cookie_flags do.
type Cookies struct {
	// Domain and Path are tried in order on a cookie's domain= and path=
	// attribute values: the first rule that applies gives the new value.
	Domain, Path []CookieRule
	// Flags are tried in order on the cookie's name: the first that
	// matches edits its flags.
	Flags []CookieFlags
}

// CookieRule rewrites an attribute's value: it returns the new value and
// true when it applies to value.
type CookieRule func(r *http.Request, value string) (string, bool)

// CookieFlags sets the flags of the cookies that Match accepts (by name):
// Flags returns words among secure, nosecure, httponly, nohttponly,
// samesite=strict, samesite=lax, samesite=none and nosamesite (any case;
// others are ignored, as NGINX ignores them).
type CookieFlags struct {
	Match func(r *http.Request, name string) bool
	Flags func(r *http.Request) []string
}

// cookieAttr is one "key=value" (or "key") of a Set-Cookie field; a
// removed one has drop set.
type cookieAttr struct {
	key, value string
	hasValue   bool
	drop       bool
}

// parseCookie splits a Set-Cookie value at ";" and each part at its first
// "=", trimming spaces around both, as NGINX does.
func parseCookie(v string) []cookieAttr {
	var attrs []cookieAttr
	for {
		part, rest, more := strings.Cut(v, ";")
		part = strings.TrimLeft(part, " ")
		k, val, has := strings.Cut(part, "=")
		a := cookieAttr{key: strings.TrimRight(k, " "), hasValue: has}
		if has {
			a.value = strings.Trim(val, " ")
		}
		attrs = append(attrs, a)
		if !more {
			return attrs
		}
		v = rest
	}
}

// rewrite returns the field as the rules change it, and false when none
// applies (the field then goes unchanged, spacing and all).
func (c *Cookies) rewrite(r *http.Request, v string) (string, bool) {
	attrs := parseCookie(v)
	if !attrs[0].hasValue {
		return v, false // not name=value: NGINX leaves it alone
	}
	changed := false
	for i := 1; i < len(attrs); i++ {
		a := &attrs[i]
		if !a.hasValue {
			continue
		}
		var rules []CookieRule
		switch {
		case strings.EqualFold(a.key, "domain"):
			rules = c.Domain
		case strings.EqualFold(a.key, "path"):
			rules = c.Path
		}
		for _, rule := range rules {
			if nv, ok := rule(r, a.value); ok {
				a.value, changed = nv, true
				break
			}
		}
	}
	for _, f := range c.Flags {
		if !f.Match(r, attrs[0].key) {
			continue
		}
		var ok bool
		attrs, ok = editFlags(attrs, f.Flags(r))
		changed = changed || ok
		break
	}
	if !changed {
		return v, false
	}
	var b strings.Builder
	for i, a := range attrs {
		if a.drop {
			continue
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.key)
		if a.hasValue {
			b.WriteByte('=')
			b.WriteString(a.value)
		}
	}
	return b.String(), true
}

// The flag words, as bits: each group (secure, httponly, samesite) takes
// the first word of its group that is given.
const (
	flagSecure = 1 << iota
	flagNoSecure
	flagHTTPOnly
	flagNoHTTPOnly
	flagStrict
	flagLax
	flagNone
	flagNoSameSite
)

var flagWords = map[string]int{
	"secure": flagSecure, "nosecure": flagNoSecure,
	"httponly": flagHTTPOnly, "nohttponly": flagNoHTTPOnly,
	"samesite=strict": flagStrict, "samesite=lax": flagLax, "samesite=none": flagNone,
	"nosamesite": flagNoSameSite,
}

// editFlags sets or removes the Secure, HttpOnly and SameSite attributes
// as the words say; false when no word was a flag.
func editFlags(attrs []cookieAttr, words []string) ([]cookieAttr, bool) {
	f := 0
	for _, w := range words {
		f |= flagWords[strings.ToLower(w)]
	}
	if f == 0 {
		return attrs, false
	}
	for i := 1; i < len(attrs); i++ {
		a := &attrs[i]
		switch {
		case strings.EqualFold(a.key, "secure"):
			if f&flagSecure != 0 {
				f &^= flagSecure // present already
			} else if f&flagNoSecure != 0 {
				a.drop = true
			}
		case strings.EqualFold(a.key, "httponly"):
			if f&flagHTTPOnly != 0 {
				f &^= flagHTTPOnly
			} else if f&flagNoHTTPOnly != 0 {
				a.drop = true
			}
		case strings.EqualFold(a.key, "samesite"):
			var want string
			switch {
			case f&flagStrict != 0:
				f &^= flagStrict
				want = "Strict"
			case f&flagLax != 0:
				f &^= flagLax
				want = "Lax"
			case f&flagNone != 0:
				f &^= flagNone
				want = "None"
			case f&flagNoSameSite != 0:
				a.drop = true
			}
			if want != "" && !(a.hasValue && strings.EqualFold(a.value, want)) {
				*a = cookieAttr{key: "SameSite", value: want, hasValue: true}
			}
		}
	}
	if f&flagSecure != 0 {
		attrs = append(attrs, cookieAttr{key: "Secure"})
	}
	if f&flagHTTPOnly != 0 {
		attrs = append(attrs, cookieAttr{key: "HttpOnly"})
	}
	switch {
	case f&flagStrict != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "Strict", hasValue: true})
	case f&flagLax != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "Lax", hasValue: true})
	case f&flagNone != 0:
		attrs = append(attrs, cookieAttr{key: "SameSite", value: "None", hasValue: true})
	}
	return attrs, true
}

// rewriteCookies applies the handler's cookie rules to the Set-Cookie
// fields that go to the client.
func (h *Handler) rewriteCookies(r *http.Request, hdr http.Header) {
	if h.cookies == nil {
		return // no rules: the header is not even looked at
	}
	vv := hdr["Set-Cookie"]
	if len(vv) == 0 {
		return
	}
	var out []string
	for i, v := range vv {
		nv, ok := h.cookies.rewrite(r, v)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]string(nil), vv...) // the upstream's slice stays as it came
		}
		out[i] = nv
	}
	if out != nil {
		hdr["Set-Cookie"] = out
	}
}

// CookieDomainRule is proxy_cookie_domain's rule for a plain domain: it
// applies when the value, without one leading ".", equals domain (which
// is given without its own leading ".") ignoring case, and keeps that
// leading "." before the replacement, as NGINX does.
func CookieDomainRule(domain func(*http.Request) string, replacement func(*http.Request) string) CookieRule {
	return func(r *http.Request, v string) (string, bool) {
		dot := ""
		if strings.HasPrefix(v, ".") {
			dot, v = ".", v[1:]
		}
		if !strings.EqualFold(v, domain(r)) {
			return "", false
		}
		return dot + replacement(r), true
	}
}

// CookiePathRule is proxy_cookie_path's rule for a plain path: it applies
// when the value starts with prefix (with its case), which the
// replacement takes the place of.
func CookiePathRule(prefix func(*http.Request) string, replacement func(*http.Request) string) CookieRule {
	return func(r *http.Request, v string) (string, bool) {
		p := prefix(r)
		if !strings.HasPrefix(v, p) {
			return "", false
		}
		return replacement(r) + v[len(p):], true
	}
}
