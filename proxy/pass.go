package proxy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Pass is a proxy_pass target split into the parts that decide where a
// request goes, which URI it carries and which Host header it gets.
type Pass struct {
	Scheme string // "http" or "https"
	Host   string // host name, IP literal (IPv6 in brackets) or upstream name, as written
	Port   string // port as written; "" when the target names none
	URI    string // the URI part, from its first "/"; "" when there is none
	HasURI bool   // the target had a URI part, even a lone "/"
	// Unix is the path of a Unix-domain socket ("http://unix:/path:/uri"),
	// "" for a host. Host is then "localhost", the Host header NGINX sends.
	Unix string
}

// ParsePass splits a proxy_pass target such as "http://backend",
// "http://127.0.0.1:8080/remote/" or "https://[::1]:8443".
func ParsePass(target string) (Pass, error) { return parsePass(target, false) }

// ParseVariablePass reads the value of a proxy_pass with variables, as
// NGINX's request-time parser (ngx_parse_url in ngx_http_proxy_eval)
// does: the host's characters are not checked, so that "user@host" is a
// name like any other, for the upstream blocks and then the resolver to
// look up (NGINX answers 502 when neither knows it), as long as it has
// no control byte or space, which no Host header may carry. An invalid
// port is reported in NGINX's words, with the value after the scheme:
// invalid port in upstream "u:p@host".
func ParseVariablePass(target string) (Pass, error) {
	p, err := parsePass(target, true)
	if errors.Is(err, errInvalidPort) {
		_, url, _ := strings.Cut(target, "://")
		return p, fmt.Errorf("%w in upstream %q", errInvalidPort, url)
	}
	return p, err
}

// parsePass is ParsePass; anyHost lets the host hold any printable byte
// (ParseVariablePass).
func parsePass(target string, anyHost bool) (Pass, error) {
	var p Pass
	rest := target
	switch {
	case hasPrefixFold(rest, "http://"):
		p.Scheme, rest = "http", rest[len("http://"):]
	case hasPrefixFold(rest, "https://"):
		p.Scheme, rest = "https", rest[len("https://"):]
	default:
		return Pass{}, fmt.Errorf("invalid URL prefix in %q", target)
	}
	if hasPrefixFold(rest, "unix:") {
		// As NGINX reads it: the path runs to the first ":", the URI part
		// is what follows that colon (so the path cannot hold one).
		path, uri, _ := strings.Cut(rest[len("unix:"):], ":")
		if err := checkUnixPath(path); err != nil {
			return Pass{}, fmt.Errorf("%v in %q", err, target)
		}
		p.Unix, p.Host, p.URI, p.HasURI = path, "localhost", uri, uri != ""
		if uri != "" && uri[0] != '/' {
			return Pass{}, fmt.Errorf("invalid URI part in %q", target)
		}
		return p, checkURI(p.URI, target)
	}
	authority := rest
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, p.URI, p.HasURI = rest[:i], rest[i:], true
	}
	if err := checkURI(p.URI, target); err != nil {
		return Pass{}, err
	}
	check := checkHost
	if anyHost {
		check = checkPrintableHost
	}
	host, port, err := splitAuthority(authority, check)
	if err != nil {
		return Pass{}, fmt.Errorf("invalid proxy_pass target %q: %w", target, err)
	}
	p.Host, p.Port = host, port
	return p, nil
}

func checkURI(uri, target string) error {
	for i := 0; i < len(uri); i++ {
		if c := uri[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("invalid character in the URI part of %q", target)
		}
	}
	return nil
}

// maxUnixPath is the room in sockaddr_un's sun_path on Linux, less the
// terminating NUL that NGINX keeps.
const maxUnixPath = 107

// checkUnixPath refuses what NGINX refuses in a socket path.
func checkUnixPath(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("no path in the unix domain socket")
	case len(path) > maxUnixPath:
		return fmt.Errorf("too long path in the unix domain socket")
	}
	return nil
}

// DefaultPort is the port the scheme implies: "80" or "443".
func (p Pass) DefaultPort() string {
	if p.Scheme == "https" {
		return "443"
	}
	return "80"
}

// ProxyHost is $proxy_host, the default Host header: the host (or upstream
// name) as written, with the port only when it differs from the scheme's.
func (p Pass) ProxyHost() string {
	if p.Unix != "" || p.Port == "" || p.Port == p.DefaultPort() {
		return p.Host
	}
	return p.Host + ":" + p.Port
}

// ProxyPort is $proxy_port: the port as written or the scheme's default;
// empty for a Unix-domain socket, as in NGINX.
func (p Pass) ProxyPort() string {
	if p.Unix != "" {
		return ""
	}
	if p.Port == "" {
		return p.DefaultPort()
	}
	return p.Port
}

// Addr is the address to dial when the target is a server rather than an
// upstream group: host:port, or "unix:/path".
func (p Pass) Addr() string {
	if p.Unix != "" {
		return "unix:" + p.Unix
	}
	return p.Host + ":" + p.ProxyPort()
}

// String gives the target back as written (scheme lower-cased); it is the
// prefix that "proxy_redirect default" looks for.
func (p Pass) String() string {
	if p.Unix != "" {
		if p.HasURI {
			return p.Scheme + "://unix:" + p.Unix + ":" + p.URI
		}
		return p.Scheme + "://unix:" + p.Unix
	}
	s := p.Scheme + "://" + p.Host
	if p.Port != "" {
		s += ":" + p.Port
	}
	return s + p.URI
}

// splitAuthority separates "host", "host:port", "[v6]" or "[v6]:port".
func splitAuthority(a string, checkHost func(string) error) (host, port string, err error) {
	if a == "" {
		return "", "", fmt.Errorf("no host")
	}
	if a[0] == '[' {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated IPv6 address")
		}
		host, rest := a[:end+1], a[end+1:]
		if rest == "" {
			return host, "", nil
		}
		if rest[0] != ':' {
			return "", "", fmt.Errorf("unexpected %q after IPv6 address", rest)
		}
		port = rest[1:]
		return host, port, checkPort(port)
	}
	i := strings.IndexByte(a, ':')
	if i < 0 {
		return a, "", checkHost(a)
	}
	host, port = a[:i], a[i+1:]
	if err := checkHost(host); err != nil {
		return "", "", err
	}
	return host, port, checkPort(port)
}

func checkHost(h string) error {
	if h == "" {
		return fmt.Errorf("no host")
	}
	if strings.ContainsAny(h, "?#@ \t") {
		return fmt.Errorf("invalid host %q", h)
	}
	return nil
}

// checkPrintableHost is ParseVariablePass's check of a host.
func checkPrintableHost(h string) error {
	if h == "" {
		return fmt.Errorf("no host")
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("invalid host %q", h)
		}
	}
	return nil
}

// errInvalidPort is checkPort's error, which NGINX's messages name
// without the port ("invalid port in upstream ...").
var errInvalidPort = errors.New("invalid port")

func checkPort(p string) error {
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 || p[0] == '+' {
		return fmt.Errorf("%w %q", errInvalidPort, p)
	}
	return nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
