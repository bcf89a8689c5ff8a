// Package browser tells modern browsers from ancient ones by their
// User-Agent field, as NGINX's ngx_http_browser_module does for
// $modern_browser and $ancient_browser: a browser listed as modern with a
// minimum version is modern from that version on, a substring listed as
// ancient marks a browser ancient, and the rest is modern only when the
// unlisted ones are. It is net/http middleware through Policy.Handler.
package browser

import (
	"net/http"
	"slices"
	"strings"
)

// Name is a browser that a modern rule may name.
type Name int

// The browsers NGINX knows, in its order: a modern list is tried in this
// order, Opera first, since its User-Agent may say MSIE too.
const (
	Opera Name = iota
	MSIE
	Gecko
	Safari
	Konqueror
)

// mark says where a browser's version is: its word is searched for from
// skip bytes into the User-Agent, and the version starts add bytes after
// the word's start.
type mark struct {
	browser string // the name in the configuration
	skip    int
	add     int
	word    string
}

// marks are NGINX's, indexed by Name.
var marks = [...]mark{
	Opera:     {"opera", 0, len("Opera "), "Opera"},
	MSIE:      {"msie", len("Mozilla/4.0 (compatible; "), len("MSIE "), "MSIE "},
	Gecko:     {"gecko", len("Mozilla/5.0 ("), len("rv:"), "rv:"},
	Safari:    {"safari", len("Mozilla/5.0 ("), len("Safari/"), "Safari/"},
	Konqueror: {"konqueror", len("Mozilla/5.0 (compatible; "), len("Konqueror/"), "Konqueror/"},
}

// LookupName returns the browser a modern_browser line names (ASCII case
// ignored): opera, msie, gecko, safari or konqueror.
func LookupName(name string) (Name, bool) {
	for i, m := range marks {
		if strings.EqualFold(name, m.browser) {
			return Name(i), true
		}
	}
	return 0, false
}

// Version is a browser version as NGINX compares them: the numbers of
// "a.b.c.d" weighted 1000000, 10000, 100 and 1 and added, in 64 bits that
// wrap; numbers past the fourth weigh nothing.
type Version uint64

// operaNever is the version NGINX gives Opera when a modern list does not
// name it, which no Opera reaches: the list then finds every Opera (whose
// User-Agent may say MSIE) ancient instead of trying the MSIE rule.
const operaNever Version = 4001000000

// ParseVersion reads a version of a modern_browser line: digits and dots
// only ("" is 0).
func ParseVersion(s string) (Version, bool) {
	v, n := scan(s, nil)
	return v, n == len(s)
}

// scan reads a version from the start of s up to the first byte that is
// neither a digit nor a dot, and returns it with the bytes read. When
// early is set, it is called with the sum so far at each dot, and a true
// answer stops the scan there.
func scan(s string, early func(Version) bool) (Version, int) {
	var version, num Version
	scale := Version(1000000)
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			num = num*10 + Version(c-'0')
		case c == '.':
			version += num * scale
			if early != nil && early(version) {
				return version, i + 1
			}
			num, scale = 0, scale/100
		default:
			return version + num*scale, i
		}
	}
	return version + num*scale, i
}

// Rule is a modern_browser line: the browser is modern from Version on.
type Rule struct {
	Browser Name
	Version Version
}

// Options are a location's browser settings, NGINX's directives.
type Options struct {
	// Modern are the modern_browser lines.
	Modern []Rule
	// Unlisted is "modern_browser unlisted": a browser that no rule and
	// no ancient substring names is modern; otherwise it is ancient.
	Unlisted bool
	// Ancient are the ancient_browser substrings.
	Ancient []string
	// Netscape4 is "ancient_browser netscape4": "Mozilla/1" to
	// "Mozilla/4" are ancient.
	Netscape4 bool
	// Raw takes Modern as NGINX takes a list written at the http level
	// and never redefined below: NGINX prepares a list (sorts it, adds
	// Opera, sets where each browser's version is) when it merges the
	// level the list is on, and never merges the http level itself. Its
	// servers and locations then test the rules in the order written,
	// each reading a version from as many bytes into the User-Agent as
	// the browser's place in NGINX's order (Opera 0 ... Konqueror 4),
	// with no word searched for (what NGINX's unset fields hold).
	Raw bool
}

// rule is a Rule ready to be tested.
type rule struct {
	skip, add int
	word      string
	version   Version
}

// Policy classifies User-Agents; the zero Policy finds every browser
// ancient, as NGINX does without a browser directive.
type Policy struct {
	modern    []rule // nil: no modern_browser rules
	unlisted  bool
	ancient   []string
	netscape4 bool
}

// New prepares opts.
func New(opts Options) *Policy {
	p := &Policy{unlisted: opts.Unlisted, ancient: opts.Ancient, netscape4: opts.Netscape4}
	if len(opts.Modern) == 0 {
		return p
	}
	rules := slices.Clone(opts.Modern)
	if !opts.Raw {
		if !slices.ContainsFunc(rules, func(r Rule) bool { return r.Browser == Opera }) {
			rules = append(rules, Rule{Browser: Opera, Version: operaNever})
		}
		// Stable, as glibc's qsort is for such small arrays: of two
		// rules for one browser, the first written is tried.
		slices.SortStableFunc(rules, func(a, b Rule) int { return int(a.Browser) - int(b.Browser) })
	}
	p.modern = make([]rule, len(rules))
	for i, r := range rules {
		if opts.Raw {
			p.modern[i] = rule{skip: int(r.Browser), version: r.Version}
			continue
		}
		m := marks[r.Browser]
		p.modern[i] = rule{skip: m.skip, add: m.add, word: m.word, version: r.Version}
	}
	return p
}

// Modern reports whether the browser of a User-Agent is modern; present
// is false when the request has no User-Agent field (then the browser is
// modern only when the unlisted ones are).
func (p *Policy) Modern(ua string, present bool) bool {
	if !present {
		return p.unlisted
	}
	if p.modern != nil {
		if modern, decided := p.byRules(ua); decided {
			return modern
		}
		if !p.unlisted {
			return false
		}
	}
	if p.netscape4 && len(ua) > len("Mozilla/4.72 ") && strings.HasPrefix(ua, "Mozilla/") && ua[8] > '0' && ua[8] < '5' {
		return false
	}
	for _, a := range p.ancient {
		if strings.Contains(ua, a) {
			return false
		}
	}
	return p.unlisted
}

// byRules applies the first rule whose browser the User-Agent names with
// a version after it.
func (p *Policy) byRules(ua string) (modern, decided bool) {
	for _, r := range p.modern {
		if r.skip >= len(ua) {
			continue
		}
		at := strings.Index(ua[r.skip:], r.word)
		if at < 0 {
			continue
		}
		at += r.skip + r.add
		if at >= len(ua) {
			continue
		}
		// A partial sum already past the rule's version decides, as
		// in NGINX: "rv:1.9.0" is modern for a rule of 1.8.9 before
		// its last number is read.
		v, _ := scan(ua[at:], func(v Version) bool { return v > r.version })
		return v >= r.version, true
	}
	return false, false
}

// Request reports whether r's browser is modern, by the first
// User-Agent field, as NGINX reads it.
func (p *Policy) Request(r *http.Request) bool {
	ua, present := r.Header["User-Agent"]
	if !present || len(ua) == 0 {
		return p.Modern("", false)
	}
	return p.Modern(ua[0], true)
}

// Handler serves modern browsers with modern and the others with
// ancient (a page that asks for a newer browser, say).
func (p *Policy) Handler(modern, ancient http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.Request(r) {
			modern.ServeHTTP(w, r)
		} else {
			ancient.ServeHTTP(w, r)
		}
	})
}
