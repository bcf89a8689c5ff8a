package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/fcgi"
	"strings"
	"sync"
	"testing"
	"time"
)

// audit13: an attacker's pass over the caches (server README, audit13).
// An attacker sends one request, a victim the next; what the victim gets
// shows whether the attacker's input reached an entry the victim is
// served, or whether an answer was stored that must not be.

// poisonOrigin answers with the inputs an attacker could set, so that a
// victim's answer shows whose request filled it. The path chooses what
// the answer says about caching.
func poisonOrigin(t *testing.T) *whoOrigin {
	return newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h := w.Header()
		h.Set("Cache-Control", "max-age=60")
		switch p := r.URL.Path; {
		case strings.Contains(p, "/account.php"):
			h.Set("Cache-Control", "private, no-store")
			h.Set("Set-Cookie", "sid=victim")
		case strings.HasSuffix(p, "/cookie"):
			h.Set("Set-Cookie", "sid=victim")
		case strings.HasSuffix(p, "/private"):
			h.Set("Cache-Control", "private, max-age=60")
		case strings.HasSuffix(p, "/nostore"):
			h.Set("Cache-Control", "no-store, max-age=60")
		case strings.HasSuffix(p, "/varystar"):
			h.Set("Vary", "*")
		case strings.HasSuffix(p, "/varyx"):
			h.Set("Vary", "X-Attack")
		case strings.HasSuffix(p, "/e500"):
			w.WriteHeader(http.StatusInternalServerError)
		case strings.HasSuffix(p, "/s206"):
			h.Set("Content-Range", "bytes 0-1/10")
			w.WriteHeader(http.StatusPartialContent)
		case strings.HasSuffix(p, "/s304"):
			w.WriteHeader(http.StatusNotModified)
			return
		case strings.HasSuffix(p, "/xae0"):
			h.Set("X-Accel-Expires", "0")
		case strings.HasSuffix(p, "/xabno"):
			h.Set("X-Accel-Buffering", "no")
		case strings.HasSuffix(p, "/xabyes"):
			h.Set("X-Accel-Buffering", "yes")
		}
		fmt.Fprintf(w, "#%d %s %s", n, r.Method, r.RequestURI)
		for _, k := range []string{"Host", "X-Forwarded-Host", "X-Original-Url", "X-Attack", "Authorization", "X-Inj", "X-U", "Cookie"} {
			if v := r.Header.Get(k); v != "" || k == "Host" && r.Host != "" {
				if k == "Host" {
					v = r.Host
				}
				fmt.Fprintf(w, " %s=%s", k, v)
			}
		}
		if len(body) > 0 {
			fmt.Fprintf(w, " body=%s", body)
		}
	})
}

// TestAudit13PoisoningAsNGINX: each case is an attacker's request and
// then a victim's; the victim's answer (status, $upstream_cache_status,
// and the origin's echo of the request that filled it) must be NGINX's,
// or mosaic's own where mosaic is stricter (mosaic set). The origin's
// echo names the Host it saw (proxy_set_header Host $host in /h/), the
// forwarded fields, a body, the method and the number of the origin
// request, so a victim served the attacker's answer shows it.
func TestAudit13PoisoningAsNGINX(t *testing.T) {
	nginxPath(t)
	o := poisonOrigin(t)
	// A location's proxy_set_header replaces the server's, so each
	// names the server (X-Who) for the origin's count itself.
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{who}", who, "{port}", fmt.Sprint(port), "{origin}", o.Listener.Addr().String()).Replace(`
		proxy_cache_path {dir}/{who}-cache keys_zone=z:1m;
		server {
			listen 127.0.0.1:{port};
			server_name good;
			add_header X-Cache $upstream_cache_status always;
			proxy_cache z;
			proxy_set_header X-Who {who};
			location /h/ { proxy_pass http://{origin}; proxy_set_header Host $host; proxy_set_header X-Who {who};
				proxy_cache_key $scheme$proxy_host$request_uri; }
			location /hk/ { proxy_pass http://{origin}; proxy_set_header Host $host; proxy_set_header X-Who {who};
				proxy_cache_key $host$request_uri; }
			location /u/ { proxy_pass http://{origin}; proxy_cache_key $host$uri$is_args$args; }
			location /d/ { proxy_pass http://{origin}; }
			location /any/ { proxy_pass http://{origin}; proxy_cache_valid any 1m; }
			location /unbuf/ { proxy_pass http://{origin}; proxy_buffering off; }
			location /b/ { proxy_pass http://{origin}; proxy_cache_bypass $http_x_bypass; }
			location /n/ { proxy_pass http://{origin}; proxy_no_cache $http_x_nocache; }
			location ~ \.css$ { proxy_pass http://{origin}; proxy_cache_valid 200 1m;
				proxy_ignore_headers Cache-Control Set-Cookie; }
			location /inj/ { proxy_pass http://{origin}; proxy_set_header X-U $uri; proxy_set_header X-Who {who};
				proxy_cache_key $host; }
		}`)
	})
	get := func(target string, lines ...string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: good\r\n" + strings.Join(lines, "")
	}
	cases := []struct {
		fill           bool // the victim's request is sent first, to fill the entry
		attack, victim string
		mosaic         string // the victim's answer from mosaic, where it differs from NGINX's
	}{
		// Host against an absolute-form target: $host is the target's
		// authority in both. Keyed without it, the victim gets the answer
		// made for Host evil (the configuration's doing); keyed by $host,
		// the victim's request misses.
		{attack: "GET http://evil/h/a HTTP/1.1\r\nHost: good\r\n", victim: get("/h/a")},
		{attack: "GET http://evil/hk/a HTTP/1.1\r\nHost: good\r\n", victim: get("/hk/a")},
		// A port, the case and a trailing dot of Host are not in $host.
		{attack: "GET /hk/b HTTP/1.1\r\nHost: GooD.:666\r\n", victim: get("/hk/b")},
		// Unkeyed fields and a fat GET's body reach the origin in both.
		{attack: get("/d/xfh", "X-Forwarded-Host: evil\r\nX-Original-URL: /admin\r\n"), victim: get("/d/xfh")},
		{attack: get("/d/fat", "Content-Length: 4\r\n\r\nevil"), victim: get("/d/fat")},
		// A field the client names in Connection still reaches the origin.
		{attack: get("/d/conn", "Connection: X-Forwarded-Host\r\nX-Forwarded-Host: evil\r\n"), victim: get("/d/conn")},
		// Percent-encoding, duplicate parameters and ";" make keys of
		// their own under the default key and $request_uri.
		{attack: get("/d/%65"), victim: get("/d/e")},
		{attack: get("/d/q?a=1&a=2"), victim: get("/d/q?a=1")},
		{attack: get("/d/p;x=1"), victim: get("/d/p")},
		// "..", "//" with a $uri key: both serve the victim the entry the
		// attacker filled; NGINX sent the origin the raw path, mosaic the
		// normalised one the key names.
		{attack: get("/u/x/../i"), victim: get("/u/i"), mosaic: "200/HIT/#1 GET /u/i Host=origin"},
		{attack: get("/u//j"), victim: get("/u/j"), mosaic: "200/HIT/#1 GET /u/j Host=origin"},
		// The default key: NGINX keys the raw target, mosaic the
		// normalised path it sends, so the victim hits an entry made for
		// its own path.
		{attack: get("/d/x/../m"), victim: get("/d/m"), mosaic: "200/HIT/#1 GET /d/m Host=origin"},
		{attack: get("/d//n"), victim: get("/d/n"), mosaic: "200/HIT/#1 GET /d/n Host=origin"},
		// Answers not stored.
		{attack: get("/d/cookie"), victim: get("/d/cookie")},
		{attack: get("/d/private"), victim: get("/d/private")},
		{attack: get("/d/nostore"), victim: get("/d/nostore")},
		{attack: get("/d/varystar"), victim: get("/d/varystar")},
		{attack: get("/d/varyx", "X-Attack: evil\r\n"), victim: get("/d/varyx")},
		{attack: get("/d/xae0"), victim: get("/d/xae0")},
		// A request's no-store keeps its answer out (RFC 9111 5.2.1.5);
		// NGINX stores it.
		{attack: get("/d/cc", "Cache-Control: no-store\r\n"), victim: get("/d/cc"),
			mosaic: "200/MISS/#2 GET /d/cc Host=origin"},
		{attack: get("/n/a", "X-Nocache: 1\r\n"), victim: get("/n/a")},
		// Unbuffered answers are never stored by NGINX.
		{attack: get("/d/xabno"), victim: get("/d/xabno")},
		{attack: get("/unbuf/a"), victim: get("/unbuf/a")},
		{attack: get("/unbuf/xabyes"), victim: get("/unbuf/xabyes")},
		// NGINX shares an answer to a request with Authorization (RFC
		// 9111 3.5 forbids it without public, s-maxage or must-revalidate).
		{attack: get("/d/auth", "Authorization: Basic dmljdGltOnB3\r\n"), victim: get("/d/auth"),
			mosaic: "200/MISS/#2 GET /d/auth Host=origin"},
		// An error answer is stored only where proxy_cache_valid names it,
		// a 206 too (served whole to a GET without Range by both); NGINX
		// stores a 304 under "any" and serves it to a GET without
		// conditions, mosaic never stores a 304.
		{attack: get("/d/e500"), victim: get("/d/e500")},
		{attack: get("/any/e500"), victim: get("/any/e500")},
		{attack: get("/any/s206"), victim: get("/any/s206")},
		{attack: get("/any/s304"), victim: get("/any/s304"), mosaic: "304/MISS/"},
		// A Range fills the entry with the whole answer.
		{attack: get("/d/range", "Range: bytes=0-1\r\n"), victim: get("/d/range")},
		// proxy_cache_bypass refills the entry from the bypassing request.
		{attack: get("/b/a", "X-Bypass: 1\r\nX-Forwarded-Host: evil\r\n"), victim: get("/b/a")},
		// Deception: a logged-in client lured to /account.php/x.css has
		// its private page stored by a "\.css$" rule that ignores the
		// origin's Cache-Control and Set-Cookie, and the attacker reads it
		// (the configuration's doing); mosaic keeps the cookie out of the
		// entry, NGINX serves it to the attacker too.
		{attack: get("/acct/account.php/x.css", "Cookie: sid=victim\r\n"), victim: get("/acct/account.php/x.css"),
			mosaic: "200/HIT/#1 GET /acct/account.php/x.css Host=origin Cookie=sid=victim"},
		// An unsafe method that the origin answers 2xx invalidates the
		// entry (RFC 9111 4.4), PURGE included, without proxy_cache_purge's
		// allow= or token=: an eviction NGINX does not offer; it stores
		// nothing the attacker chose.
		{fill: true, attack: "POST /d/post HTTP/1.1\r\nHost: good\r\nContent-Length: 0\r\n", victim: get("/d/post"),
			mosaic: "200/MISS/#3 GET /d/post Host=origin"},
		{fill: true, attack: "PURGE /d/purge HTTP/1.1\r\nHost: good\r\n", victim: get("/d/purge"),
			mosaic: "200/MISS/#3 GET /d/purge Host=origin"},
		// CR/LF decoded into $uri: NGINX writes it into the upstream
		// request (a field the origin reflects, stored under the key),
		// mosaic leaves the field out.
		{attack: get("/inj/%0d%0aX-Inj:%20evil"), victim: get("/inj/a"),
			mosaic: "200/HIT/#1 GET /inj/%0d%0aX-Inj:%20evil Host=origin"},
	}
	for _, c := range cases {
		var got [2]string
		for i, port := range []int{mport, nport} {
			reqs := []string{c.attack, c.victim}
			if c.fill {
				reqs = append([]string{c.victim}, reqs...)
			}
			for _, raw := range reqs {
				if head, body, ok := strings.Cut(raw, "\r\n\r\n"); ok {
					raw = head + "\r\nConnection: close\r\n\r\n" + body
				} else {
					raw += "Connection: close\r\n\r\n"
				}
				resp, body := exchangeUntilClosed(t, port, raw)
				// The origin's port differs from run to run.
				body = strings.ReplaceAll(body, o.Listener.Addr().String(), "origin")
				got[i] = cacheSummary(resp, body)
			}
		}
		want := got[1]
		if c.mosaic != "" {
			want = c.mosaic
		}
		if got[0] != want {
			t.Errorf("%q then %q: the victim got\nmosaic %s\nwant   %s (nginx %s)", c.attack, c.victim, got[0], want, got[1])
		}
	}
}

// cacheSummary is what the victim's answer says of the cache: status,
// X-Cache, body and any Set-Cookie, compared between the servers.
func cacheSummary(resp *http.Response, body string) string {
	s := fmt.Sprintf("%d/%s/%s", resp.StatusCode, resp.Header.Get("X-Cache"), body)
	if v := resp.Header.Get("Set-Cookie"); v != "" {
		s += " Set-Cookie: " + v
	}
	return s
}

// exchangeUntilClosed sends raw (with Connection: close) and reads the
// answer, then waits for the server to close the connection: a fill is
// committed to the store after the client has read the whole body, and
// before the server closes, so the next request finds what it stored.
func exchangeUntilClosed(t *testing.T, port int, raw string) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("%q: waiting for the close: %v", raw, err)
	}
	return resp, string(body)
}

// TestAudit13ESIFragmentKeys: ESI has no NGINX twin. A client's query
// and Host reach an include's src, and a fragment location's cache
// keeps each fragment under its own URI: the client's value stays one
// path segment or query value (percent-encoded), "/" or ".." in it is
// dropped, a Host names only the page's own server, and a fragment
// answered with Set-Cookie is neither stored nor passed to the page, so
// no client is served a fragment another client's value chose, under
// another include's key, or another client's cookie.
func TestAudit13ESIFragmentKeys(t *testing.T) {
	var o *esiOrigin
	o = startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page/q":
			html(w, `[<esi:include src="/frag/$(QUERY_STRING{q})"/>]`)
		case "/page/qs":
			html(w, `[<esi:include src="/frag/qs?$(QUERY_STRING)"/>]`)
		case "/page/host":
			html(w, `[<esi:include src="http://$(HTTP_HOST)/frag/host"/>]`)
		case "/page/priv":
			html(w, `[<esi:include src="/frag/private"/>]`)
		default:
			if r.URL.Path == "/frag/private" {
				w.Header().Set("Set-Cookie", "sid="+r.Header.Get("Cookie"))
			}
			w.Header().Set("Cache-Control", "max-age=60")
			html(w, fmt.Sprintf("%s#%d %s", r.URL.RequestURI(), o.count(r.URL.Path), r.Header.Get("Cookie")))
		}
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		access_log off;
		proxy_cache_path memory keys_zone=esi:10m;
		server { listen 127.0.0.1:{port};
			location /page/ { esi on; proxy_pass http://{origin}; }
			location /frag/ { internal; proxy_pass http://{origin}; proxy_cache esi; }
		}
	}`)
	steps := []struct {
		target, host, cookie string
		want, setCookie      string
	}{
		// A "/" or ".." in the value is dropped: the include stays under /frag/.
		{target: "/page/q?q=..%2Fpage%2Fhost", want: "[/frag/#1 ]"},
		{target: "/page/q?q=..", want: "[/frag/#1 ]"},
		// "?" and "=" stay in the path segment, so the attacker's include
		// is an entry of its own, not /frag/b's with a query.
		{target: "/page/q?q=b%3Fx%3D1", want: "[/frag/b%3Fx%3D1#1 ]"},
		{target: "/page/q?q=b", want: "[/frag/b#1 ]"},
		{target: "/page/qs?a=1&b=2", want: "[/frag/qs?a%3D1%26b%3D2#1 ]"},
		{target: "/page/qs?a=1", want: "[/frag/qs?a%3D1#2 ]"},
		// $(HTTP_HOST) names the page's own server: another Host gets the
		// same local fragment, any other authority is refused.
		{target: "/page/host", host: "evil", want: "[/frag/host#1 ]"},
		{target: "/page/host", want: "[/frag/host#1 ]"},
		// The private fragment is fetched for each client, with its own
		// cookie, and its Set-Cookie never reaches the page.
		{target: "/page/priv", cookie: "a", want: "[/frag/private#1 a]"},
		{target: "/page/priv", cookie: "b", want: "[/frag/private#2 b]"},
	}
	for _, s := range steps {
		h := http.Header{}
		if s.cookie != "" {
			h.Set("Cookie", s.cookie)
		}
		req, err := http.NewRequest(http.MethodGet, base+s.target, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header = h
		if s.host != "" {
			req.Host = s.host
		}
		resp, err := esiClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != s.want || len(resp.Header.Values("Set-Cookie")) != 0 {
			t.Errorf("GET %s (Host %q, Cookie %q): %q Set-Cookie %q, want %q and none", s.target, s.host, s.cookie,
				body, resp.Header.Values("Set-Cookie"), s.want)
		}
	}
}

// TestAudit13RedisZonesApart: two zones of one server share a Redis
// with the same key text, and a key holds the store's own separators
// (":m:", a zone's name): each zone keeps its own entry. A zone's name
// cannot hold ":" (keys_zone=NAME:SIZE), and every key the store writes
// starts with "NAME:" and a letter for its kind, so no key of one zone
// can spell one of another's.
func TestAudit13RedisZonesApart(t *testing.T) {
	redisAddr := startRedisServer(t)
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprintf(w, "%s#%d", r.URL.Path, n)
	})
	base, _, _ := startCacheSite(t, o, `http {
    access_log off;
    proxy_cache_path redis://`+redisAddr+`/0 keys_zone=a:1m;
    proxy_cache_path redis://`+redisAddr+`/0 keys_zone=b:1m;
    proxy_cache_path redis://`+redisAddr+`/0 keys_zone=a_m:1m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location /a/ { proxy_pass http://{origin}; proxy_cache a; proxy_cache_key "m:$arg_k"; }
        location /b/ { proxy_pass http://{origin}; proxy_cache b; proxy_cache_key "m:$arg_k"; }
        location /am/ { proxy_pass http://{origin}; proxy_cache a_m; proxy_cache_key $arg_k; }
    }
}`)
	for _, s := range []struct{ target, want string }{
		{"/a/?k=x", "MISS /a/#1"},
		{"/b/?k=x", "MISS /b/#2"},
		{"/am/?k=m:x", "MISS /am/#3"},
		{"/am/?k=a:m:m:x", "MISS /am/#4"},
		{"/a/?k=x", "HIT /a/#1"},
		{"/b/?k=x", "HIT /b/#2"},
		{"/am/?k=m:x", "HIT /am/#3"},
	} {
		if r := cacheDo(t, http.MethodGet, base+s.target); r.cacheStatus()+" "+r.body != s.want {
			t.Errorf("GET %s: %s %q, want %s", s.target, r.cacheStatus(), r.body, s.want)
		}
	}
}

// TestAudit13GatewayCacheAsNGINX: the same attacks on fastcgi_cache. An
// answer relayed unbuffered (fastcgi_buffering off, X-Accel-Buffering:
// no) is not stored; a lured client's private page at
// /account.php/x.css, run as account.php with PATH_INFO /x.css by
// fastcgi_split_path_info in a "\.css$" location that caches and ignores
// Cache-Control and Set-Cookie, is stored and read back by the attacker
// in both (the configuration's doing), mosaic without the cookie.
func TestAudit13GatewayCacheAsNGINX(t *testing.T) {
	nginxPath(t)
	var mu sync.Mutex
	counts := map[string]int{}
	app := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		counts[r.Header.Get("X-Who")+r.URL.Path]++
		n := counts[r.Header.Get("X-Who")+r.URL.Path]
		mu.Unlock()
		env := fcgi.ProcessEnv(r) // the parameters net/http/fcgi does not read itself
		w.Header().Set("Cache-Control", "max-age=60")
		if strings.HasSuffix(r.URL.Path, "/xabno") {
			w.Header().Set("X-Accel-Buffering", "no")
		}
		if env["X_SCRIPT"] == "/app/account.php" {
			w.Header().Set("Cache-Control", "private, no-store")
			w.Header().Set("Set-Cookie", "sid=victim")
		}
		fmt.Fprintf(w, "#%d %s %s %s", n, env["X_SCRIPT"], env["X_PATH_INFO"], r.Header.Get("Cookie"))
	})
	dir := t.TempDir()
	mport, nport := startBoth(t, dir, func(who string, port int) string {
		return strings.NewReplacer("{dir}", dir, "{who}", who, "{port}", fmt.Sprint(port), "{app}", app).Replace(`
		fastcgi_cache_path {dir}/{who}-cache keys_zone=fc:1m;
		server {
			listen 127.0.0.1:{port};
			add_header X-Cache $upstream_cache_status always;
			fastcgi_param REQUEST_METHOD $request_method;
			fastcgi_param SERVER_PROTOCOL $server_protocol;
			fastcgi_param REQUEST_URI $request_uri;
			fastcgi_param X_SCRIPT $fastcgi_script_name;
			fastcgi_param X_PATH_INFO $fastcgi_path_info;
			fastcgi_param HTTP_X_WHO {who};
			fastcgi_cache fc;
			fastcgi_cache_key $request_uri;
			location /fx/ { fastcgi_pass {app}; }
			location /fb/ { fastcgi_pass {app}; fastcgi_buffering off; }
			location ~ \.css$ {
				fastcgi_split_path_info ^(.+?\.php)(/.*)$;
				fastcgi_pass {app};
				fastcgi_cache_valid 200 1m;
				fastcgi_ignore_headers Cache-Control Set-Cookie;
			}
		}`)
	})
	for _, c := range []struct{ first, second, mosaic string }{
		{first: "/fx/a", second: "/fx/a"},
		{first: "/fx/xabno", second: "/fx/xabno"},
		{first: "/fb/a", second: "/fb/a"},
		{first: "/app/account.php/x.css", second: "/app/account.php/x.css",
			mosaic: "200/HIT/#1 /app/account.php /x.css sid=victim"},
	} {
		var got [2]string
		for i, port := range []int{mport, nport} {
			resp, _ := exchangeUntilClosed(t, port, "GET "+c.first+" HTTP/1.1\r\nHost: a\r\nCookie: sid=victim\r\nConnection: close\r\n\r\n")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: %s", c.first, resp.Status)
			}
			resp, body := exchangeUntilClosed(t, port, "GET "+c.second+" HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
			got[i] = cacheSummary(resp, body)
		}
		want := got[1]
		if c.mosaic != "" {
			want = c.mosaic
		}
		if got[0] != want {
			t.Errorf("GET %s then %s: mosaic %s, want %s (nginx %s)", c.first, c.second, got[0], want, got[1])
		}
	}
}

// TestAudit13UnstoredAnswerFreesLockAsNGINX: under proxy_cache_lock, an
// answer that will not be stored (Set-Cookie, and relayed unbuffered as
// a stream is) frees the lock as its header goes out, as NGINX's
// ngx_http_upstream_send_response frees the entry: a second client goes
// upstream while the first answer is still streaming. mosaic held the
// lock to the answer's end, so a slow or endless answer, or a client
// reading it slowly, held every other client of the key for up to
// proxy_cache_lock_timeout. (Buffered: TestBufferedUnstoredFreesLockAsNGINX.)
// The first answer ends only once the origin
// has seen the second request, or after 10 s, and says how many it saw:
// a server that holds the second client behind the lock makes it "1".
func TestAudit13UnstoredAnswerFreesLockAsNGINX(t *testing.T) {
	nginxPath(t)
	var o *whoOrigin
	o = newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=60")
		w.Header().Set("Set-Cookie", "sid=1")
		fmt.Fprintf(w, "#%d ", n)
		if n == 1 {
			w.(http.Flusher).Flush()
			who := r.Header.Get("X-Who")
			o.awaitHits(who, r.URL.Path, 2)
			fmt.Fprintf(w, "saw %d ", o.count(who, r.URL.Path))
		}
		io.WriteString(w, "end")
	})
	mport, nport := startCacheBoth(t, o, `
		location / { proxy_pass http://{origin}; proxy_buffering off;
			proxy_cache_lock on; proxy_cache_lock_timeout 30s; proxy_cache_lock_age 30s; }`)
	for who, port := range map[string]int{"m": mport, "n": nport} {
		first := make(chan string, 1)
		go func() {
			r, err := cacheTry(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/slow", port))
			if err != nil {
				first <- err.Error()
				return
			}
			first <- r.body
		}()
		// The second client comes once the first answer is under way.
		o.awaitHits(who, "/slow", 1)
		r := cacheDo(t, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/slow", port))
		if b := <-first; r.body != "#2 end" || b != "#1 saw 2 end" {
			t.Errorf("%s: the clients got %q and %q, want \"#1 saw 2 end\" and \"#2 end\"", who, b, r.body)
		}
	}
}

// TestAudit13UnstoredUpdateFreesLockAsNGINX: the update of an expired
// entry under proxy_cache_use_stale updating, answered unbuffered
// (X-Accel-Buffering: no), lets the entry's lock go as its header goes
// out, as NGINX's ngx_http_file_cache_free clears the updating mark: the
// next client, sent once the first has the header, is not served the
// stale entry as UPDATING but goes upstream itself. The streamed answer
// ends once the origin has seen that request, or after 10 s, and says
// how many it saw. mosaic held the lock to the answer's end (review of
// audit13).
func TestAudit13UnstoredUpdateFreesLockAsNGINX(t *testing.T) {
	nginxPath(t)
	var o *whoOrigin
	o = newWhoOrigin(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=1")
		if n != 2 {
			w.Header().Set("X-Accel-Buffering", "yes")
			fmt.Fprintf(w, "#%d", n)
			return
		}
		w.Header().Set("X-Accel-Buffering", "no")
		fmt.Fprintf(w, "#%d ", n)
		w.(http.Flusher).Flush()
		who := r.Header.Get("X-Who")
		o.awaitHits(who, r.URL.Path, 3)
		fmt.Fprintf(w, "saw %d end", o.count(who, r.URL.Path))
	})
	mport, nport := startCacheBoth(t, o, `
		location / { proxy_pass http://{origin}; proxy_buffering off;
			proxy_cache_use_stale updating; proxy_cache_lock_age 30s; }`)
	url := map[string]string{"m": fmt.Sprintf("http://127.0.0.1:%d/upd", mport), "n": fmt.Sprintf("http://127.0.0.1:%d/upd", nport)}
	for _, who := range []string{"m", "n"} {
		if r := cacheDo(t, http.MethodGet, url[who]); r.body != "#1" {
			t.Fatalf("%s: the first answer was %q", who, r.body)
		}
	}
	time.Sleep(2100 * time.Millisecond) // NGINX's entry is stale a whole second past max-age
	got := map[string]string{}
	for _, who := range []string{"m", "n"} {
		resp, err := cacheClient.Get(url[who])
		if err != nil {
			t.Fatal(err)
		}
		next := cacheDo(t, http.MethodGet, url[who])
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		got[who] = fmt.Sprintf("%s/%s then %s/%s", resp.Header.Get("X-Cache"), b, next.cacheStatus(), next.body)
	}
	if got["m"] != got["n"] {
		t.Errorf("the update and the request during it: mosaic %q, nginx %q", got["m"], got["n"])
	}
}
