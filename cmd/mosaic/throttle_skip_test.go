package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The throttle filter is left out of a location that has no limit_rate
// or limit_rate_after of its own or inherited, unless the configuration
// can set a rate at run time ("set $limit_rate", an upstream's
// X-Accel-Limit-Rate). Each test below serves a 72 KB body that a rate
// of 32k paces over more than a second (2 s, as NGINX; see
// TestLimitRatePacedAsNGINX), through a path that a too eager skip
// would serve at once, and runs NGINX on the same configuration.

var throttleBody = strings.Repeat("0123456789abcdef", 4608) // 72 KB

// checkPaced fetches each path of paced and free at once from every
// base and wants the first over a second, the second under one. The
// servers are asked at the same time, not one after the other: each
// paced answer is seconds of waiting, which the servers' own processes
// spend side by side, and a free answer's bound is on one server's
// 72 KB, which the other's paced writes hardly load.
func checkPaced(t *testing.T, bases map[string]string, paced, free []string) {
	t.Helper()
	type fetch struct{ name, path string }
	took := map[fetch]time.Duration{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, base := range bases {
		for _, p := range append(append([]string(nil), paced...), free...) {
			wg.Go(func() {
				t0 := time.Now()
				resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(base + p)
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				if string(b) != throttleBody {
					t.Errorf("%s %s: %d %d bytes, want the 72 KB body", name, p, resp.StatusCode, len(b))
				}
				mu.Lock()
				took[fetch{name, p}] = time.Since(t0)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	for name := range bases {
		for _, p := range paced {
			if d := took[fetch{name, p}]; d < time.Second {
				t.Errorf("%s %s: 72 KB in %v, want paced at 32k (over a second)", name, p, d)
			}
		}
		for _, p := range free {
			if d := took[fetch{name, p}]; d >= time.Second {
				t.Errorf("%s %s: 72 KB in %v, want no limit", name, p, d)
			}
		}
		var line []string
		for _, p := range append(append([]string(nil), paced...), free...) {
			line = append(line, fmt.Sprintf("%s %v", p, took[fetch{name, p}]))
		}
		t.Logf("%s: %s", name, strings.Join(line, ", "))
	}
}

// TestLimitRateSetInServerIfAsNGINX: "set $limit_rate" in the server's
// "if" limits a location that has no limit_rate; variable names are not
// case-sensitive, so "set $LIMIT_RATE" sets the rate too.
func TestLimitRateSetInServerIfAsNGINX(t *testing.T) {
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				if ($arg_slow) { set $limit_rate 32k; }
				location /plain/ { alias %s/; }
				location /upper/ { alias %[2]s/; if ($arg_up) { set $LIMIT_RATE 32k; } }
			}`, listen, root)
	})
	checkPaced(t, bases, []string{"/plain/f?slow=1", "/upper/f?up=1"}, []string{"/plain/f", "/upper/f"})
}

// TestLimitRateLocationsOnlyAsNGINX: with no rate settable at run time,
// the rate still applies where it is configured: after an internal
// redirect (error_page) into the rated location, and in a location
// that inherits limit_rate and limit_rate_after from its parent.
func TestLimitRateLocationsOnlyAsNGINX(t *testing.T) {
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				location /free/ { alias %s/; }
				location /rate/ { alias %[2]s/; limit_rate 32k; }
				location /redir/ { error_page 404 /rate/f; return 404; }
				location /outer/ {
					limit_rate 16k; limit_rate_after 32k;
					location /outer/in/ { alias %[2]s/; }
				}
			}`, listen, root)
	})
	checkPaced(t, bases, []string{"/redir/x", "/outer/in/f"}, []string{"/free/f"})
}

// TestLimitRateFromUpstreamAsNGINX: an upstream's X-Accel-Limit-Rate
// paces its answer, and the file its X-Accel-Redirect names, served by a
// location without limit_rate; proxy_ignore_headers X-Accel-Limit-Rate
// turns it off.
func TestLimitRateFromUpstreamAsNGINX(t *testing.T) {
	origin := rateOrigin(t)
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				location /free/ { alias %s/; }
				location /up/ { proxy_pass http://%s/; }
				location /ign/ { proxy_ignore_headers X-Accel-Limit-Rate; proxy_pass http://%[3]s/; }
			}`, listen, root, origin)
	})
	checkPaced(t, bases, []string{"/up/big", "/up/redir"}, []string{"/ign/big", "/free/f"})
}

// TestLimitRateFromVariableUpstreamAsNGINX: the same answers through
// the only proxy_pass, one with variables, whose handlers are built
// with the requests, after the location's filters started.
func TestLimitRateFromVariableUpstreamAsNGINX(t *testing.T) {
	origin := rateOrigin(t)
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				location /free/ { alias %s/; }
				location /dyn/ { proxy_pass http://%s$request_uri; }
			}`, listen, root, origin)
	})
	// The first request through the proxy alone: one whose handler
	// another request built before it started would hide a late record.
	checkPaced(t, bases, []string{"/dyn/big"}, nil)
	checkPaced(t, bases, []string{"/dyn/redir"}, []string{"/free/f"})
}

// TestLimitRateFromFastCGIAsNGINX: a FastCGI answer's
// X-Accel-Limit-Rate paces it, and the file of its X-Accel-Redirect, as
// in NGINX; fastcgi_ignore_headers X-Accel-Limit-Rate leaves it free.
// The rate is known only once the answer's head is read, after the
// location's filters started (the writer goes under them then).
func TestLimitRateFromFastCGIAsNGINX(t *testing.T) {
	app := fcgiServe(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Accel-Limit-Rate", "32768")
		if strings.HasSuffix(r.URL.Path, "/redir") {
			w.Header().Set("X-Accel-Redirect", "/free/f")
			return
		}
		io.WriteString(w, throttleBody)
	})
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				fastcgi_param REQUEST_METHOD $request_method; fastcgi_param SERVER_PROTOCOL $server_protocol;
				fastcgi_param REQUEST_URI $request_uri;
				location /free/ { alias %s/; }
				location /php/ { fastcgi_pass %s; }
				location /ign/ { fastcgi_ignore_headers X-Accel-Limit-Rate; fastcgi_pass %[3]s; }
			}`, listen, root, app)
	})
	checkPaced(t, bases, []string{"/php/big", "/php/redir"}, []string{"/ign/big", "/free/f"})
}

// rateOrigin answers a path ending in /redir with an X-Accel-Redirect to /free/f and
// anything else with the 72 KB body, both with X-Accel-Limit-Rate 32k,
// and returns its address.
func rateOrigin(t *testing.T) string {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Accel-Limit-Rate", "32768")
		if strings.HasSuffix(r.URL.Path, "/redir") {
			w.Header().Set("X-Accel-Redirect", "/free/f")
			return
		}
		io.WriteString(w, throttleBody)
	}))
	t.Cleanup(origin.Close)
	return origin.Listener.Addr().String()
}

// TestLimitRateInLocationIfAsNGINX: limit_rate inside a location's "if"
// paces the answers the "if" takes, in a configuration with no rate
// settable at run time.
func TestLimitRateInLocationIfAsNGINX(t *testing.T) {
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				root %s;
				location / {
					if ($arg_slow) { limit_rate 32k; }
				}
			}`, listen, root)
	})
	checkPaced(t, bases, []string{"/f?slow=1"}, []string{"/f"})
}

// TestLimitRateUnbufferedAsNGINX: NGINX paces no answer it relays
// unbuffered (ngx_http_upstream_send_response sets r->limit_rate to 0
// for one): proxy_buffering off, an upstream's "X-Accel-Buffering: no",
// and grpc_pass, which never buffers, go at once whatever limit_rate,
// "set $limit_rate" or the upstream's X-Accel-Limit-Rate say; a
// buffered answer of the same upstream is paced.
func TestLimitRateUnbufferedAsNGINX(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Accel-Limit-Rate", "32768")
		if r.URL.Query().Has("nobuf") {
			w.Header().Set("X-Accel-Buffering", "no")
		}
		io.WriteString(w, throttleBody)
	}), Protocols: new(http.Protocols)}
	// HTTP/1.1 for proxy_pass, h2c with prior knowledge for grpc_pass.
	origin.Protocols.SetHTTP1(true)
	origin.Protocols.SetUnencryptedHTTP2(true)
	go origin.Serve(l)
	t.Cleanup(func() { origin.Close() })
	bases := limitBoth(t, map[string]string{"f": throttleBody}, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				location /free/ { alias %s/; }
				location /p/ { proxy_pass http://%s; }
				location /rate/ { limit_rate 32k; proxy_pass http://%[3]s; }
				location /off/ { limit_rate 32k; proxy_buffering off; proxy_pass http://%[3]s; }
				location /set/ { set $limit_rate 32k; proxy_buffering off; proxy_pass http://%[3]s; }
				location /g/ { grpc_pass grpc://%[3]s; }
				location /grate/ { limit_rate 32k; grpc_pass grpc://%[3]s; }
			}`, listen, root, l.Addr())
	})
	checkPaced(t, bases, []string{"/p/big", "/rate/big"},
		[]string{"/p/big?nobuf=1", "/rate/big?nobuf=1", "/off/big", "/set/big", "/g/big", "/grate/big", "/free/f"})
}

// TestLimitRateErrorPageAndSSIAsNGINX: an error page is paced by its
// own location's limit_rate, not by the one the request left (the
// redirect's gate takes the target's writer), and an SSI page's
// included file by the page's location, whose gate the include's
// output passes, as in NGINX.
func TestLimitRateErrorPageAndSSIAsNGINX(t *testing.T) {
	files := map[string]string{"f": throttleBody, "p.html": `<!--# include virtual="/free/f" -->`}
	bases := limitBoth(t, files, func(listen, root string) string {
		return fmt.Sprintf(`access_log off; sendfile off;
			server {
				%s
				root %s;
				location /free/ { alias %[2]s/; }
				location /slow/ { limit_rate 32k; alias %[2]s/; }
				location /ep1/ { error_page 404 /slow/f; }
				location /ep2/ { limit_rate 32k; error_page 404 /free/f; }
				location /ssi/ { ssi on; limit_rate 32k; alias %[2]s/; }
				location /ssifree/ { ssi on; alias %[2]s/; }
			}`, listen, root)
	})
	checkPaced(t, bases, []string{"/ep1/x", "/ssi/p.html"}, []string{"/ep2/x", "/ssifree/p.html"})
}
