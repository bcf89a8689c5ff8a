package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestBrowserMatchesNGINX sends the same User-Agents to both servers
// through the browser module's directives and compares $modern_browser,
// $ancient_browser and $msie: NGINX's documented example, the values,
// rules inherited from the server level, an Opera that says MSIE, two
// rules for one browser, a missing, an empty and a repeated field, an
// "if" on $ancient_browser, "set" on the variables, and a list written at the http level, which
// NGINX uses unprepared in the servers below it.
func TestBrowserMatchesNGINX(t *testing.T) {
	nginxPath(t)
	const show = `return 200 "m=$modern_browser a=$ancient_browser msie=$msie\n";`
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`modern_browser gecko 1.0; modern_browser msie 7.0; ancient_browser Links;
		server {
			listen 127.0.0.1:%[1]d; server_name raw.test;
			location / { %[2]s }
		}
		server {
			listen 127.0.0.1:%[1]d default_server;
			modern_browser unlisted;
			ancient_browser_value old;
			location /docs/ {
				modern_browser msie 5.5; modern_browser gecko 1.0.0; modern_browser opera 9.0;
				modern_browser safari 413; modern_browser konqueror 3.0; modern_browser unlisted;
				ancient_browser Links Lynx netscape4;
				%[2]s
			}
			location /values/ { modern_browser GECKO 1.8.9; modern_browser_value new; %[2]s }
			location /msie/ { modern_browser msie 6.0; %[2]s }
			location /two/ { modern_browser gecko 2.0; modern_browser gecko 1.0; %[2]s }
			location /inherit/ { %[2]s }
			location /if/ { if ($ancient_browser) { return 403; } return 200 ok; }
			location /set/ { set $modern_browser forced; set $msie yes; %[2]s }
		}`, port, show)
	})
	uas := []string{
		"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)",
		"Mozilla/4.0 (compatible; MSIE 5.01; Windows NT 5.0)",
		"Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1)",
		"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.0; en) Opera 8.0",
		"Opera/9.80 (X11; Linux x86_64) Presto/2.12.388 Version/12.16",
		"Mozilla/5.0 (X11; U; Linux i686; en-US; rv:1.0.0) Gecko/20020610",
		"Mozilla/5.0 (X11; Linux x86_64; rv:1.8.9) Gecko/20100101",
		"Mozilla/5.0 (X11; Linux x86_64; rv:1.9.0.1) Gecko/20100101",
		"Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
		"Mozilla/5.0 (Macintosh; U; PPC Mac OS X; en) AppleWebKit/418 (KHTML, like Gecko) Safari/417.9.3",
		"Mozilla/5.0 (compatible; Konqueror/3.5; FreeBSD) KHTML/3.5.1 (like Gecko)",
		"Mozilla/4.72 [en] (X11; U; Linux 2.2.14 i686)",
		"Links (2.1pre15; Linux 2.4.26 i686; 158x61)",
		"Lynx/2.8.9rel.1 libwww-FM/2.14",
		"curl/8.0.1",
		"MSIE 9.0",
		"xx9.0",
		"xx0.5",
		"x",
	}
	var heads []string
	for _, ua := range uas {
		heads = append(heads, "User-Agent: "+ua)
	}
	heads = append(heads, "", "User-Agent:", "User-Agent: curl/8\r\nUser-Agent: Mozilla/4.0 (compatible; MSIE 6.0; X)")
	for _, path := range []string{"/docs/", "/values/", "/msie/", "/two/", "/inherit/", "/if/", "/set/"} {
		for _, host := range []string{"a.test", "raw.test"} {
			if host == "raw.test" && path != "/docs/" {
				continue
			}
			for _, h := range heads {
				head := "GET " + path + " HTTP/1.1\r\nHost: " + host
				if h != "" {
					head += "\r\n" + h
				}
				sameAnswer(t, mport, nport, strings.TrimSuffix(head, "\r\n"), "")
			}
		}
	}
}

// The browser directives are refused where NGINX refuses them, with its
// message and the line named; a single word other than "unlisted", which
// NGINX refuses without a message, is refused with one.
func TestBrowserErrorsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, block := range []string{
		"modern_browser netscape 4;",
		"modern_browser gecko 1.x;",
		"modern_browser gecko 1 2;",
		"ancient_browser;",
		"modern_browser_value a b;",
		"server { location / { if ($arg_x) { ancient_browser Links; } } }",
	} {
		mout, err, want := testBoth(t, dir, i, block)
		if want == "" || err == nil || !strings.Contains(mout, want) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
	for i, block := range []string{"modern_browser Unlisted;", "modern_browser foo;"} {
		mout, err, want := testBoth(t, dir, 10+i, block)
		if want != "" || err == nil || !strings.Contains(mout, `invalid value`) || !strings.Contains(mout, fmt.Sprintf("bad%d.conf:2", 10+i)) {
			t.Errorf("%q:\nmosaic %s\nnginx  %s", block, mout, want)
		}
	}
}

// TestBrowserValueKeptAsNGINX: NGINX caches $modern_browser and
// $ancient_browser in the request when first read, so a value read at the
// server level (a set, an if) is the one a location with other rules
// reads, and an internal redirect keeps it; mosaic judged the browser
// again by each location's rules.
func TestBrowserValueKeptAsNGINX(t *testing.T) {
	nginxPath(t)
	mport, nport := startBoth(t, t.TempDir(), func(who string, port int) string {
		return fmt.Sprintf(`server {
			listen 127.0.0.1:%d;
			modern_browser unlisted; modern_browser_value srv;
			location /read/ {
				modern_browser msie 9.0;
				set $first "$ancient_browser";
				rewrite ^ /after/ last;
			}
			location /again/ { modern_browser msie 9.0; error_page 404 /after/; }
			location /after/ { return 200 "m=$modern_browser a=$ancient_browser\n"; }
			location /srv/ { modern_browser msie 9.0; return 200 "m=$modern_browser a=$ancient_browser pre=$pre\n"; }
			set $pre "$modern_browser";
		}`, port)
	})
	for _, path := range []string{"/read/", "/srv/", "/after/", "/again/x"} {
		for _, ua := range []string{"Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)", "curl/8"} {
			sameAnswer(t, mport, nport, "GET "+path+" HTTP/1.1\r\nHost: a.test\r\nUser-Agent: "+ua, "")
		}
	}
}
