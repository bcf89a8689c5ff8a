// Package referer decides, as NGINX's ngx_http_referer_module does for
// $invalid_referer, whether a request's Referer is one of a list of valid
// ones: "none" (no Referer), "blocked" (a Referer that does not start with
// http:// or https://, as firewalls leave it), host names with wildcards
// and an optional path prefix, and regular expressions. It knows nothing
// of configuration files: modules/referermod reads valid_referers with it.
package referer

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/hostname"
	"github.com/mosaic-edge/mosaic/internal/pcre"
)

// MaxHost is the longest host NGINX copies out of a Referer to look it up
// (its 256-byte buffer): a longer one is invalid, whatever else the list
// holds.
const MaxHost = 256

// Builder collects the words of valid_referers lines, refusing what NGINX
// refuses with its words.
type Builder struct {
	hosts       *hostname.Table[string] // the value: the path prefix
	regexes     []*pcre.Regexp
	nameRegexes []*pcre.Regexp
	none        bool
	blocked     bool
	serverNames bool
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder {
	return &Builder{hosts: hostname.New[string]()}
}

// Add adds one word of valid_referers: "none", "blocked",
// "server_names" (the caller then adds the server's names with
// AddServerName and AddServerNameRegex), "~regex" (caseless, matched
// against the Referer after its scheme), or a host name, which may be
// "*.example.com", ".example.com" or "example.*", followed by a path
// prefix ("example.com/galleries/").
func (b *Builder) Add(word string) error {
	switch {
	case word == "":
		return fmt.Errorf("invalid referer %q", word)
	case word == "none":
		b.none = true
	case word == "blocked":
		b.blocked = true
	case word == "server_names":
		b.serverNames = true
	case word[0] == '~':
		if len(word) == 1 {
			return fmt.Errorf("empty regex in %q", word)
		}
		re, err := pcre.Compile(word[1:], true)
		if err != nil {
			return err
		}
		b.regexes = append(b.regexes, re)
	default:
		host, uri := word, ""
		if i := strings.IndexByte(word, '/'); i >= 0 {
			host, uri = word[:i], word[i:]
		}
		return b.AddServerName(host, uri)
	}
	return nil
}

// UsesServerNames reports whether "server_names" was among the words.
func (b *Builder) UsesServerNames() bool { return b.serverNames }

// AddServerName adds a host name or wildcard whose Referers are valid when
// their path starts with uri ("" for any path). NGINX lower-cases a key
// before it looks for a conflict, so the error names it lower-case.
func (b *Builder) AddServerName(host, uri string) error {
	return b.hosts.AddWildcard(header.LowerASCII(host), uri)
}

// AddServerNameRegex adds a server_name regular expression, matched
// against the Referer's host, lower-case.
func (b *Builder) AddServerNameRegex(re *pcre.Regexp) {
	b.nameRegexes = append(b.nameRegexes, re)
}

// Policy returns the list built. parent is the list of the enclosing
// level, or nil: as NGINX's merge does, a list without a regular
// expression of its own takes the parent's expressions (and the same for
// the server names' expressions), while its names, "none" and "blocked"
// are its own.
func (b *Builder) Policy(parent *Policy) (*Policy, error) {
	if (b.none || b.blocked) && b.hosts.Len() == 0 {
		return nil, fmt.Errorf(`the "none" or "blocked" referers are specified in the "valid_referers" directive without any valid referer`)
	}
	p := &Policy{None: b.none, Blocked: b.blocked, regexes: b.regexes, nameRegexes: b.nameRegexes}
	if b.hosts.Len() > 0 {
		p.hosts = b.hosts
	}
	if parent != nil {
		if p.regexes == nil {
			p.regexes = parent.regexes
		}
		if p.nameRegexes == nil {
			p.nameRegexes = parent.nameRegexes
		}
	}
	return p, nil
}

// Policy is a built list, read-only and safe for concurrent use.
type Policy struct {
	// None and Blocked are the words of the list: no Referer, and one
	// without an http:// or https:// scheme, are valid.
	None, Blocked bool
	hosts         *hostname.Table[string] // nil without a name
	regexes       []*pcre.Regexp
	nameRegexes   []*pcre.Regexp
}

// Valid reports whether referer is valid: present says whether the
// request had a Referer at all. err is set when a regular expression
// could not finish (internal/pcre's limit); the Referer is then invalid.
// A Policy with neither names nor regular expressions (a Builder given
// "server_names" and no server name) finds every Referer valid, as
// NGINX's empty tables do.
func (p *Policy) Valid(referer string, present bool) (bool, error) {
	if p.hosts == nil && p.regexes == nil && p.nameRegexes == nil {
		return true, nil
	}
	if !present {
		return p.None, nil
	}
	// NGINX looks for a scheme only in a Referer at least as long as
	// "http://i.ru".
	rest, ok := "", false
	if len(referer) >= len("http://i.ru") {
		if header.EqualFoldASCII(referer[:7], "http://") {
			rest, ok = referer[7:], true
		} else if header.EqualFoldASCII(referer[:8], "https://") {
			rest, ok = referer[8:], true
		}
	}
	if !ok {
		return p.Blocked, nil
	}
	end := strings.IndexAny(rest, "/:")
	if end < 0 {
		end = len(rest)
	}
	if end > MaxHost {
		return false, nil
	}
	host := header.LowerASCII(rest[:end])
	if p.hosts != nil {
		if uri, found := p.hosts.Find(host); found {
			if uri == "" {
				return true, nil
			}
			// The path starts at the first "/" after the host, a port
			// between them skipped; its prefix is compared with case.
			path := ""
			if i := strings.IndexByte(rest[end:], '/'); i >= 0 {
				path = rest[end+i:]
			}
			return strings.HasPrefix(path, uri), nil
		}
	}
	for _, re := range p.nameRegexes {
		ok, err := re.MatchString(host)
		if err != nil || ok {
			return ok, err
		}
	}
	for _, re := range p.regexes {
		ok, err := re.MatchString(rest)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// Check reports whether r's Referer (its first field, as NGINX 1.22
// reads it) is valid.
func (p *Policy) Check(r *http.Request) (bool, error) {
	v, present := r.Header["Referer"]
	if !present || len(v) == 0 {
		return p.Valid("", false)
	}
	return p.Valid(v[0], true)
}

// Handler answers 403 Forbidden to a request whose Referer is invalid,
// and passes the others to next: the classic hotlink protection,
// "if ($invalid_referer) { return 403; }", as net/http middleware.
func (p *Policy) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ok, _ := p.Check(r); !ok {
			http.Error(w, http.StatusText(http.StatusForbidden), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
