package vars

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/basicauth"
	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/internal/reqrule"
)

// NGINXVersion is $nginx_version: the NGINX release whose behaviour
// mosaic follows. Configurations compare it to choose syntax that a
// release understands, so it names the release mosaic is compatible
// with rather than mosaic's own version.
const NGINXVersion = "1.22.1"

// The variables of NGINX's core and log modules that derive from the
// request, the connection and the response record.
func init() {
	pid := strconv.Itoa(os.Getpid())
	host, _ := os.Hostname()

	Register("remote_addr", peerHost)
	Register("binary_remote_addr", func(r *http.Request, st *State) string { return binaryAddr(peerHost(r, st)) })
	// The ports of a Unix-domain socket are empty, not without a value.
	RegisterAlways("remote_port", peerPort)
	Register("remote_user", func(r *http.Request, st *State) string {
		// As NGINX: the user of a Basic Authorization header, whether or
		// not anything checks the password, read as auth_basic reads it
		// (spaces after "Basic", base64 up to the first "=", padding or
		// not), so that the user auth_basic let in is the one logged and
		// passed on; net/http's BasicAuth wants one space and whole
		// padding, and gave "" for users NGINX and auth_basic accept.
		// Most requests have none, which a lookup by the canonical name
		// tells cheaply: FastCGI's parameters read this on every request.
		if st != nil && st.Absent&AbsentAuthorization != 0 {
			return ""
		}
		v := r.Header["Authorization"]
		if len(v) == 0 || v[0] == "" {
			return ""
		}
		u, _, _ := basicauth.Credentials(v[0])
		return u
	})
	Register("server_addr", ownHost)
	RegisterAlways("server_port", ownPort)
	Register("server_protocol", func(r *http.Request, _ *State) string { return r.Proto })
	// $server_name of a server without a name, and $host that falls back
	// on it, are empty, not without a value (the access log writes
	// nothing for them).
	RegisterAlways("server_name", func(_ *http.Request, st *State) string {
		if st == nil {
			return ""
		}
		return st.ServerName
	})
	Register("hostname", func(*http.Request, *State) string { return host })
	Register("pid", func(*http.Request, *State) string { return pid })
	RegisterConst("nginx_version", NGINXVersion)
	Register("connection", func(_ *http.Request, st *State) string {
		if st == nil {
			return ""
		}
		return strconv.FormatUint(st.ConnID, 10)
	})
	Register("connection_requests", func(_ *http.Request, st *State) string {
		if st == nil {
			return "0"
		}
		return strconv.FormatUint(st.ConnRequests, 10)
	})
	Register("connection_time", func(_ *http.Request, st *State) string {
		if st == nil || st.ConnStart.IsZero() {
			return "0.000"
		}
		return seconds(time.Since(st.ConnStart))
	})
	Register("pipe", func(_ *http.Request, st *State) string {
		if st != nil {
			if f, ok := st.Wire.(WireFramer); ok && f.Pipelined() {
				return "p"
			}
		}
		return "."
	})
	// $http2, $is_args and $https are empty, not without a value, when
	// the request is not HTTP/2, has no arguments, is not over TLS.
	RegisterAlways("http2", func(r *http.Request, _ *State) string {
		switch {
		case r.ProtoMajor != 2:
			return ""
		case r.TLS != nil:
			return "h2"
		}
		return "h2c"
	})

	Register("request", func(r *http.Request, st *State) string {
		if line := read(st).RequestLine; line != "" {
			return line
		}
		if m := read(st).Main; m.Method != "" {
			return m.Method + " " + m.Target + " " + m.Proto
		}
		if r.Method == "" {
			// A request refused with no request line (empty lines
			// only): NGINX's $request is empty, not two spaces.
			return ""
		}
		return r.Method + " " + requestTarget(r, st) + " " + r.Proto
	})
	Register("request_method", func(r *http.Request, st *State) string {
		switch {
		case st == nil:
		case st.NoMethod:
			return ""
		case st.Method != "":
			return st.Method
		}
		return r.Method
	})
	Register("request_uri", requestURI)
	Register("request_id", func(_ *http.Request, st *State) string {
		if st == nil {
			return newRequestID()
		}
		return st.RequestID()
	})
	Register("request_length", func(_ *http.Request, st *State) string {
		if st == nil || st.Wire == nil {
			return "0"
		}
		return strconv.FormatInt(st.Wire.RequestSize(), 10)
	})
	Register("request_body", func(_ *http.Request, st *State) string {
		return string(read(st).RequestBody)
	})
	uri := func(r *http.Request, st *State) string { return curURL(r, st).Path }
	Register("uri", uri)
	Register("document_uri", uri)
	// $args has no value (the access log's "-") only when the request has
	// no arguments (a "?" with nothing after it included): NGINX's
	// r->args.data is NULL. "set $args", or a rewrite that empties the
	// arguments of a request that had some, leave it an empty value.
	args := func(r *http.Request, st *State) (string, bool) {
		u := curURL(r, st)
		return u.RawQuery, u.RawQuery != "" || st != nil && st.ArgsKept
	}
	query := func(r *http.Request, st *State) string { return curURL(r, st).RawQuery }
	registerBoth("args", query, args)
	registerBoth("query_string", query, args)
	RegisterAlways("is_args", func(r *http.Request, st *State) string {
		if curURL(r, st).RawQuery != "" {
			return "?"
		}
		return ""
	})
	Register("document_root", func(r *http.Request, st *State) string {
		if st == nil || st.Paths == nil {
			return ""
		}
		return st.Paths.DocumentRoot(r)
	})
	Register("realpath_root", func(r *http.Request, st *State) string {
		if st == nil || st.Paths == nil {
			return ""
		}
		// NGINX fails the variable (an empty value here) when the root
		// cannot be resolved; an empty root (one that climbed) is not
		// the working directory, which EvalSymlinks makes of it.
		root := st.Paths.DocumentRoot(r)
		if root == "" {
			return ""
		}
		p, err := filepath.EvalSymlinks(root)
		if err != nil {
			return ""
		}
		return p
	})
	Register("request_filename", func(r *http.Request, st *State) string {
		if st == nil || st.Paths == nil {
			return ""
		}
		return st.Paths.RequestFilename(r, curURL(r, st).Path)
	})
	RegisterAlways("host", hostVar)
	Register("scheme", func(r *http.Request, _ *State) string {
		if r.TLS != nil {
			return "https"
		}
		return "http"
	})
	RegisterAlways("https", func(r *http.Request, _ *State) string {
		if r.TLS != nil {
			return "on"
		}
		return ""
	})
	registerBoth("content_type", func(r *http.Request, st *State) string {
		if st != nil && st.Absent&AbsentContentType != 0 {
			return ""
		}
		return first(r.Header["Content-Type"])
	}, func(r *http.Request, st *State) (string, bool) {
		if st != nil && st.Absent&AbsentContentType != 0 {
			return "", false
		}
		v := r.Header["Content-Type"]
		return first(v), len(v) > 0
	})
	Register("content_length", func(r *http.Request, st *State) string {
		if st == nil {
			return first(r.Header["Content-Length"])
		}
		if st.Absent&AbsentContentLength == 0 {
			if v, ok := r.Header["Content-Length"]; ok {
				return first(v)
			}
		}
		return read(st).BodyLength
	})

	Register("status", func(_ *http.Request, st *State) string {
		if st == nil {
			return "000"
		}
		if st.Status < 100 {
			// Three digits, as NGINX prints it: 000 for none, 009 for
			// a post action's HTTP/0.9 request without one.
			return strconv.Itoa(1000 + st.Status)[1:]
		}
		return strconv.Itoa(st.Status)
	})
	// As NGINX counts them: what went to the connection, the body's with
	// its chunk framing.
	Register("body_bytes_sent", func(_ *http.Request, st *State) string {
		if st == nil {
			return "0"
		}
		n := st.BodyBytes
		if st.Wire != nil {
			n += st.Wire.BodyOverhead(st.Complete && !st.Aborted)
		}
		return strconv.FormatInt(n, 10)
	})
	Register("bytes_sent", func(_ *http.Request, st *State) string {
		if st == nil {
			return "0"
		}
		n := st.HeaderBytes + st.BodyBytes
		if st.Wire != nil {
			n += st.Wire.HeaderSize() + st.Wire.BodyOverhead(st.Complete && !st.Aborted)
		}
		return strconv.FormatInt(n, 10)
	})
	// The rate that "set $limit_rate", an upstream's X-Accel-Limit-Rate
	// or, once the body starts, limit_rate put in force (package
	// throttle); 0 without one, as NGINX's.
	Register("limit_rate", func(_ *http.Request, st *State) string {
		if v, ok := st.Get("limit_rate"); ok {
			return v
		}
		return "0"
	})
	Register("request_time", func(_ *http.Request, st *State) string {
		if st == nil || st.Start.IsZero() {
			return "0.000"
		}
		return seconds(time.Since(st.Start))
	})
	Register("msec", func(*http.Request, *State) string {
		now := time.Now()
		return strconv.FormatInt(now.Unix(), 10) + "." + pad3(now.Nanosecond()/1e6)
	})
	Register("time_local", func(*http.Request, *State) string {
		return time.Now().Format("02/Jan/2006:15:04:05 -0700")
	})
	Register("time_iso8601", func(*http.Request, *State) string {
		return time.Now().Format("2006-01-02T15:04:05-07:00")
	})
	// $date_gmt and $date_local belong to NGINX's SSI module, which
	// formats them with its "timefmt" (default below) through strftime;
	// strftime names the zone of gmtime "GMT" where Go says "UTC".
	Register("date_gmt", func(*http.Request, *State) string {
		return time.Now().UTC().Format(ssiTimeFmt) + " GMT"
	})
	Register("date_local", func(*http.Request, *State) string {
		return time.Now().Format(ssiTimeFmt + " MST")
	})

	// A field, argument or cookie sent with an empty value has that value;
	// one not sent has none (the access log writes "-" for it).
	RegisterPrefixValue("http_", func(name string) Value {
		// NGINX 1.22 joins the lines of two fields it knows as lists;
		// of any other field it takes the first line.
		switch name {
		case "cookie":
			return func(r *http.Request, _ *State) (string, bool) {
				v := r.Header["Cookie"]
				return strings.Join(v, "; "), len(v) > 0
			}
		case "x_forwarded_for":
			return func(r *http.Request, _ *State) (string, bool) {
				v := r.Header["X-Forwarded-For"]
				return strings.Join(v, ", "), len(v) > 0
			}
		case "host":
			// Servers keep the Host field out of the header map, in
			// r.Host (HTTP/2's :authority too, which NGINX makes the Host
			// field): "proxy_set_header Host $http_host" must see it.
			// With an absolute-form target r.Host is the target's host,
			// and the field, if any, is in the header.
			return func(r *http.Request, _ *State) (string, bool) {
				if v := r.Header["Host"]; len(v) > 0 {
					return v[0], true
				}
				if r.URL != nil && r.URL.Host != "" {
					return "", false
				}
				return r.Host, r.Host != ""
			}
		case "transfer_encoding":
			return func(r *http.Request, st *State) (string, bool) {
				if len(r.TransferEncoding) > 0 && st != nil && st.HeaderLines != "" {
					return lineValue(st.HeaderLines, "transfer-encoding")
				}
				if v, ok := headerValue(r.Header, name); ok {
					return v, true
				}
				return strings.Join(r.TransferEncoding, ", "), len(r.TransferEncoding) > 0
			}
		}
		return func(r *http.Request, _ *State) (string, bool) { return headerValue(r.Header, name) }
	})
	RegisterPrefixValue("sent_http_", sentHeaderVar)
	RegisterPrefixValue("arg_", func(name string) Value {
		if name == "" {
			// NGINX's $arg_ finds no argument, not even "=1".
			return func(*http.Request, *State) (string, bool) { return "", false }
		}
		return func(r *http.Request, st *State) (string, bool) {
			return queryArg(curURL(r, st).RawQuery, name)
		}
	})
	RegisterPrefixValue("cookie_", func(name string) Value {
		return func(r *http.Request, _ *State) (string, bool) { return cookieValue(r.Header["Cookie"], name) }
	})
	RegisterPrefixValue("upstream_http_", func(name string) Value {
		return func(_ *http.Request, st *State) (string, bool) {
			if st == nil {
				return "", false
			}
			return headerValue(st.UpstreamHeader, name)
		}
	})
	RegisterPrefixValue("upstream_cookie_", func(name string) Value {
		return func(_ *http.Request, st *State) (string, bool) {
			if st == nil {
				return "", false
			}
			return setCookieValue(st.UpstreamHeader["Set-Cookie"], name)
		}
	})
}

// ssiTimeFmt is NGINX's default SSI timefmt, "%A, %d-%b-%Y %H:%M:%S",
// without its zone ("%Z").
const ssiTimeFmt = "Monday, 02-Jan-2006 15:04:05"

// curURL is the URL that $uri and $args read: the one the server last
// routed (State.URL), else the request's.
func curURL(r *http.Request, st *State) *url.URL {
	if st != nil && st.URL != nil {
		return st.URL
	}
	return r.URL
}

// RequestID returns $request_id, made on first use: 16 random bytes in
// hexadecimal, the same for the rest of the request.
func (s *State) RequestID() string {
	x := s.MakeRare()
	if x.idFrom != nil {
		return x.idFrom.RequestID()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if x.requestID == "" {
		x.requestID = newRequestID()
	}
	return x.requestID
}

// ShareRequestID makes a subrequest's State answer with the $request_id
// of its parent, as NGINX's subrequests share their parent's variables.
// Set it before the State is in use.
func (s *State) ShareRequestID(parent *State) {
	if s != nil && parent != nil {
		s.MakeRare().idFrom = parent
	}
}

func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand does not fail on Linux
	return hex.EncodeToString(b[:])
}

// requestTarget is the client's request target as it came, unchanged by
// redirects: what $request shows.
func requestTarget(r *http.Request, st *State) string {
	if st != nil && st.RequestURI != "" {
		return st.RequestURI
	}
	return r.RequestURI
}

// requestURI is $request_uri: the client's target from its path on, as
// NGINX keeps it for an absolute-form target too (the scheme and host
// went to $host), so that REQUEST_URI and cache keys are paths.
func requestURI(r *http.Request, st *State) string {
	return reqrule.OriginForm(requestTarget(r, st))
}

// headerValue finds the field that NGINX's $http_NAME finds: the first
// line of the field whose name, lower-cased with "-" read as "_", is
// name; ok is false when there is none. The canonical form of the name
// is tried first; a field whose name holds "_" (kept with
// underscores_in_headers) is found by a scan. A name holding "-" finds
// none: NGINX reads the field's "-" as "_" before comparing, so no field
// answers to it ("if ($http_x-y)" is false whatever is sent), where the
// canonical form would find X-Y.
func headerValue(h http.Header, name string) (v string, ok bool) {
	if h == nil || strings.IndexByte(name, '-') >= 0 {
		return "", false
	}
	if v := h[headerKey(name)]; len(v) > 0 {
		return v[0], true
	}
	for k, v := range h {
		if len(k) == len(name) && len(v) > 0 && varName(k) == name {
			return v[0], true
		}
	}
	return "", false
}

// lineValue is the value of the first of the header lines, as the
// client sent them, named lower (lower case) in any case, its spaces
// around it dropped as NGINX's parse drops them. The server takes a
// chunked body's Transfer-Encoding out of the map (the framing is its
// own), where NGINX keeps the line for $http_transfer_encoding, in the
// case it came in ("Chunked").
func lineValue(lines, lower string) (string, bool) {
	for lines != "" {
		var line string
		line, lines = header.CutFieldLine(lines)
		if k, v, _ := strings.Cut(line, ":"); header.EqualFoldASCII(k, lower) {
			return strings.Trim(v, " "), true
		}
	}
	return "", false
}

// headerVar is headerValue's value alone.
func headerVar(h http.Header, name string) string {
	v, _ := headerValue(h, name)
	return v
}

// varName is the variable suffix a field name answers to.
func varName(k string) string {
	b := []byte(k)
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			b[i] = c | 0x20
		case c == '-':
			b[i] = '_'
		}
	}
	return string(b)
}

// sentHeaderVar is $sent_http_NAME: a response field as it goes out.
// Most fields are in the response's header map; the server's writer adds
// those that frame the body and the connection, which NGINX's variables
// report all the same (they come from the writer, where it says how).
// Of a repeated field NGINX 1.22 gives the first line, except of the two
// it keeps as lists.
func sentHeaderVar(name string) Value {
	key := headerKey(name)
	switch name {
	case "cache_control", "link":
		return func(_ *http.Request, st *State) (string, bool) {
			if st == nil {
				return "", false
			}
			v := st.Header[key]
			return strings.Join(v, ", "), len(v) > 0
		}
	case "content_type":
		// NGINX reads the response's type: none when it is empty
		// (default_type ""), never an empty value.
		return presence(func(_ *http.Request, st *State) string {
			if st == nil {
				return ""
			}
			return headerVar(st.Header, name)
		})
	case "connection", "keep_alive", "transfer_encoding":
		// What the writer says is either a value or none.
		return presence(func(r *http.Request, st *State) string {
			if st == nil {
				return ""
			}
			f, ok := st.Wire.(WireFramer)
			if !ok {
				if r.ProtoMajor == 2 && name == "connection" {
					// NGINX keeps no HTTP/2 stream alive in the HTTP/1.1
					// sense: its $sent_http_connection says "close".
					return "close"
				}
				return headerVar(st.Header, name)
			}
			chunked, closing := f.Framing()
			switch {
			case name == "transfer_encoding":
				if chunked {
					return "chunked"
				}
				return ""
			case st.Status == http.StatusSwitchingProtocols:
				if name == "connection" {
					return "upgrade"
				}
				return ""
			case closing:
				if name == "connection" {
					return "close"
				}
				return ""
			case name == "connection":
				return "keep-alive"
			}
			return headerVar(st.Header, name)
		})
	}
	return func(_ *http.Request, st *State) (string, bool) {
		if st == nil {
			return "", false
		}
		return headerValue(st.Header, name)
	}
}

// headerKey maps a variable suffix such as "user_agent" to the canonical
// header name "User-Agent".
func headerKey(name string) string {
	return http.CanonicalHeaderKey(strings.ReplaceAll(name, "_", "-"))
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// queryArg returns the raw value of the first argument called name, as
// NGINX's $arg_NAME does: no percent-decoding, the name compared without
// regard to case, and only an argument with "=" counts ("a&a=1" gives 1).
// ok tells an empty value ("a=") from none.
func queryArg(q, name string) (v string, ok bool) {
	for q != "" {
		var kv string
		kv, q, _ = strings.Cut(q, "&")
		if len(kv) > len(name) && kv[len(name)] == '=' && strings.EqualFold(kv[:len(name)], name) {
			return kv[len(name)+1:], true
		}
	}
	return "", false
}

// Arg returns the raw value of the request's argument called name as
// NGINX's ngx_http_arg finds it (the value $arg_NAME has), with the
// arguments a rewrite or "set $args" gave the request; ok is false when
// there is no such argument.
func Arg(r *http.Request, name string) (v string, ok bool) {
	return queryArg(curURL(r, FromContext(r.Context())).RawQuery, name)
}

// cookieValue is $cookie_NAME, read from the Cookie lines as NGINX reads
// them: pairs separated by ";" or ",", the name compared without regard
// to case, spaces around "=" skipped, the value raw up to the next ";";
// ok is false when no pair names it.
func cookieValue(lines []string, name string) (v string, ok bool) {
	for _, line := range lines {
		s := line
		for s != "" {
			if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
				rest := strings.TrimLeft(s[len(name):], " ")
				if v, ok := strings.CutPrefix(rest, "="); ok {
					v = strings.TrimLeft(v, " ")
					if i := strings.IndexByte(v, ';'); i >= 0 {
						v = v[:i]
					}
					return v, true
				}
				if rest == "" {
					break
				}
				// NGINX steps over the byte where it wanted "=" before
				// it looks for the next separator: when that byte is
				// the separator ("a; a=1"), the pair after it is skipped.
				s = rest[1:]
			}
			i := strings.IndexAny(s, ";,")
			if i < 0 {
				break
			}
			s = strings.TrimLeft(s[i+1:], " ")
		}
	}
	return "", false
}

// setCookieValue is $upstream_cookie_NAME: the value of the first
// Set-Cookie line that sets NAME (compared without regard to case), up to
// its attributes; ok is false when no line sets it.
func setCookieValue(lines []string, name string) (v string, ok bool) {
	for _, line := range lines {
		if len(line) <= len(name) || !strings.EqualFold(line[:len(name)], name) {
			continue
		}
		rest := strings.TrimLeft(line[len(name):], " ")
		v, ok := strings.CutPrefix(rest, "=")
		if !ok {
			continue
		}
		v = strings.TrimLeft(v, " ")
		if i := strings.IndexByte(v, ';'); i >= 0 {
			v = v[:i]
		}
		return v, true
	}
	return "", false
}

// hostVar follows NGINX's $host: the host from the request line or Host
// header, lowercased and without the port, else the server name.
func hostVar(r *http.Request, st *State) string {
	if st != nil && st.Host != "" {
		return st.Host
	}
	if h, ok := reqrule.Host(r.Host); ok && h != "" {
		return h
	}
	if st != nil {
		return st.ServerName
	}
	return ""
}

// binaryAddr is $binary_remote_addr: the address in network order, 4
// bytes for IPv4 and 16 for IPv6; anything else (a Unix socket's
// address) as text, as NGINX gives it.
func binaryAddr(host string) string {
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if v4 := ip.To4(); v4 != nil && !strings.Contains(host, ":") {
		return string(v4)
	}
	return string(ip.To16())
}

// remoteAddr is the client's address: the one a module put in the State
// (realip), else the request's.
func remoteAddr(r *http.Request, st *State) string {
	if st != nil && st.RemoteAddr != "" {
		return st.RemoteAddr
	}
	return r.RemoteAddr
}

// seconds formats d as NGINX's timings do: seconds with milliseconds.
func seconds(d time.Duration) string {
	ms := max(d.Milliseconds(), 0)
	return strconv.FormatInt(ms/1000, 10) + "." + pad3(int(ms%1000))
}

func pad3(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 3-len(s)) + s
}
