package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/testorigin"
)

// What mosaic does with the origin's own framing and clock, through the
// binary: its Date (kept for the cache, RFC 9111 section 4.2.3), its Age
// and Expires read strictly, a Transfer-Encoding net/http would refuse,
// and interim responses.

// TestCacheOriginDateRules: the freshness rules that need the origin's
// Date, Age lists and strict HTTP-dates, each in a caching location.
func TestCacheOriginDateRules(t *testing.T) {
	t.Parallel()
	notReused := []cstep{{cache: "MISS", origin: 1}, {cache: "MISS", origin: 2}}
	reused := []cstep{{cache: "MISS", origin: 1}, {cache: "HIT", body: "v1", origin: 1}}
	// at sets field to the time d from now.
	at := func(w http.ResponseWriter, field string, d time.Duration) {
		w.Header().Set(field, time.Now().Add(d).UTC().Format(http.TimeFormat))
	}
	rules := []cscenario{
		{
			name: "9111/4.2.3 the origin's Date: an apparent age past max-age is stale",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				at(w, "Date", -2*time.Hour)
				w.Header().Set("Cache-Control", "max-age=3600")
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9111/5.3 an Expires older than Date is stale, both fast",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				at(w, "Date", 400*time.Second)
				at(w, "Expires", 300*time.Second)
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2.3 Age past Expires minus Date is stale, Date fast",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				at(w, "Date", 10*time.Second)
				at(w, "Expires", 20*time.Second)
				w.Header().Set("Age", "15")
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2.3 Age past Expires minus Date is stale, Date slow",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				at(w, "Date", -10*time.Second)
				at(w, "Expires", 10*time.Second)
				w.Header().Set("Age", "25")
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9110/6.6.1 an invalid Date is the time of arrival; Expires counts",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Date", "foo")
				at(w, "Expires", 10*time.Second)
				fmt.Fprint(w, vbody(n))
			},
			steps: reused,
		},
		{
			name: "9111/5.1 an Age list counts its first value: 7200, 0",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header().Set("Age", "7200, 0")
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9111/5.1 an Age list counts its first value: 0, 7200",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Cache-Control", "max-age=3600")
				w.Header().Set("Age", "0, 7200")
				fmt.Fprint(w, vbody(n))
			},
			steps: reused,
		},
		{
			name: "9111/5.3 several Expires lines are invalid",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				at(w, "Expires", time.Hour)
				w.Header().Add("Expires", w.Header().Get("Expires"))
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		},
		{
			name: "9111/4.2 the case of GMT, day and month names is not significant",
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", "THU, 18 aug 2050 02:01:18 gMT")
				fmt.Fprint(w, vbody(n))
			},
			steps: reused,
		},
	}
	for _, v := range []string{
		"Thu, 18  Aug  2050 02:01:18 GMT", // doubled spaces
		"Thu, 18 Aug 2050 2:01:18 GMT",    // a one-digit hour
		"Thu, 18 Aug 2050 02:01:18 UTC",
		"Thu, 18 Aug 50 02:01:18 GMT",
		"Thu 18 Aug 2050 02:01:18 GMT",
		"Thu, 18-Aug-2050 02:01:18 GMT",
		"Thu, 18 Aug 2050 02.01.18 GMT",
	} {
		rules = append(rules, cscenario{
			name: "9111/5.3 an invalid Expires is already expired: " + v,
			origin: func(n int64, w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Expires", v)
				fmt.Fprint(w, vbody(n))
			},
			steps: notReused,
		})
	}
	runScenarios(t, "", rules)
}

// TestCacheOriginDate: a caching location passes the origin's Date and
// keeps it on hits, with the Age it implies; a response without one gets
// the time it arrived, kept too; a location without the cache sends
// mosaic's own Date, as NGINX does.
func TestCacheOriginDate(t *testing.T) {
	t.Parallel()
	originDate := time.Now().Add(-time.Minute).UTC().Format(http.TimeFormat)
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/none") {
			w.Header()["Date"] = nil // net/http adds none
		} else {
			w.Header().Set("Date", originDate)
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, vbody(n))
	})
	port := freePort(t)
	startMosaic(t, t.TempDir(), fmt.Sprintf(`http {
    access_log off;
    proxy_cache_path memory keys_zone=dates:8m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location /cached/ { proxy_pass http://%[1]s/; proxy_cache dates; }
        location /plain/ { proxy_pass http://%[1]s/; }
    }
}`, o.addr()), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	miss := cacheDo(t, http.MethodGet, base+"/cached/a")
	if got := miss.header.Get("Date"); miss.cacheStatus() != "MISS" || got != originDate {
		t.Errorf("miss: %s with Date %q, want the origin's %q", miss.cacheStatus(), got, originDate)
	}
	// mosaic's own Date is the clock during the exchange: between the
	// request and its answer, to the second, however slow the machine.
	before := time.Now().Truncate(time.Second)
	none := cacheDo(t, http.MethodGet, base+"/cached/none")
	noneDate := none.header.Get("Date")
	if d, err := http.ParseTime(noneDate); err != nil || d.Before(before) || d.After(time.Now()) {
		t.Errorf("miss without Date: Date %q, want the time of arrival", noneDate)
	}
	time.Sleep(1100 * time.Millisecond) // mosaic's clock moves past both
	hit := cacheDo(t, http.MethodGet, base+"/cached/a")
	if got := hit.header.Get("Date"); hit.cacheStatus() != "HIT" || got != originDate {
		t.Errorf("hit: %s with Date %q, want the stored %q", hit.cacheStatus(), got, originDate)
	}
	if age, _ := strconv.Atoi(hit.header.Get("Age")); age < 60 || age > 70 {
		t.Errorf("hit: Age %q, want the minute the origin's Date implies", hit.header.Get("Age"))
	}
	if hit := cacheDo(t, http.MethodGet, base+"/cached/none"); hit.cacheStatus() != "HIT" || hit.header.Get("Date") != noneDate {
		t.Errorf("hit without an origin Date: %s with Date %q, want the stored %q", hit.cacheStatus(), hit.header.Get("Date"), noneDate)
	}
	before = time.Now().Truncate(time.Second)
	plain := cacheDo(t, http.MethodGet, base+"/plain/a")
	if d, err := http.ParseTime(plain.header.Get("Date")); err != nil || plain.header.Get("Date") == originDate || d.Before(before) || d.After(time.Now()) {
		t.Errorf("no cache: Date %q, want mosaic's own (NGINX hides the origin's)", plain.header.Get("Date"))
	}
}

// rawOrigin answers every request with head, then body, then closes the
// connection, counting the requests.
func rawOrigin(t *testing.T, head string, body []byte) (*testorigin.Raw, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	o := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		n.Add(1)
		io.WriteString(c, head)
		c.Write(body)
	})
	return o, &n
}

// TestCacheOriginTransferEncoding: a Transfer-Encoding other than chunked
// is read by RFC 9112's framing, not answered with 502 (net/http refuses
// it); its codings are undone, and the response is stored without the
// field. A coding mosaic cannot undo (compress is one) is 502 with an
// error-log line naming the upstream, neither relayed nor stored as if it
// were the body; so is chunked applied twice, which cannot be framed.
func TestCacheOriginTransferEncoding(t *testing.T) {
	t.Parallel()
	const text = "a body sent with a transfer coding"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, text)
	zw.Close()
	gzipped, gzipHits := rawOrigin(t, "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Type: text/plain\r\nTransfer-Encoding: gzip\r\n\r\n", gz.Bytes())
	unknown, _ := rawOrigin(t, "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nContent-Length: 4\r\nTransfer-Encoding: foo\r\n\r\n", []byte(text))
	lzw, _ := rawOrigin(t, "HTTP/1.1 200 OK\r\nCache-Control: max-age=60\r\nTransfer-Encoding: compress, chunked\r\n\r\n", []byte("4\r\nbody\r\n0\r\n\r\n"))
	twice, _ := rawOrigin(t, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", []byte("0\r\n\r\n"))
	port := freePort(t)
	p := startMosaic(t, t.TempDir(), fmt.Sprintf(`error_log stderr error;
http {
    access_log off;
    proxy_cache_path memory keys_zone=te:8m;
    server {
        listen 127.0.0.1:{port};
        add_header X-Cache $upstream_cache_status always;
        location /gzip/ { proxy_pass http://%s/; proxy_cache te; }
        location /unknown/ { proxy_pass http://%s/; proxy_cache te; }
        location /compress/ { proxy_pass http://%s/; proxy_cache te; }
        location /twice/ { proxy_pass http://%s/; }
    }
}`, gzipped.Addr(), unknown.Addr(), lzw.Addr(), twice.Addr()), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	for i, want := range []string{"MISS", "HIT"} {
		resp, err := cacheClient.Get(base + "/gzip/a")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != text || resp.Header.Get("X-Cache") != want {
			t.Errorf("request %d: %d %s %q, want 200 %s with the decoded body", i+1, resp.StatusCode, resp.Header.Get("X-Cache"), b, want)
		}
		// The hit is chunked, as the miss (the origin gave no length),
		// and carries no coding of the origin's.
		if want == "HIT" && (!slices.Equal(resp.TransferEncoding, []string{"chunked"}) || resp.Header.Get("Transfer-Encoding") != "") {
			t.Errorf("the hit's Transfer-Encoding is %q (field %q), want chunked alone", resp.TransferEncoding, resp.Header.Get("Transfer-Encoding"))
		}
	}
	if n := gzipHits.Load(); n != 1 {
		t.Errorf("origin saw %d requests, want 1", n)
	}
	for _, c := range []struct{ path, addr string }{{"/unknown/a", unknown.Addr()}, {"/compress/a", lzw.Addr()}} {
		for range 2 { // a second time: nothing was stored
			if got := cacheDo(t, http.MethodGet, base+c.path); got.status != http.StatusBadGateway {
				t.Errorf("%s: %d %q, want 502", c.path, got.status, got.body)
			}
		}
		upstream := fmt.Sprintf("upstream=http://%s/a ", c.addr)
		if !slices.ContainsFunc(strings.Split(p.out.String(), "\n"), func(l string) bool {
			return strings.Contains(l, "level=error") && strings.Contains(l, upstream) && strings.Contains(l, `unknown \"Transfer-Encoding\"`)
		}) {
			t.Errorf("no error-log line for %s naming %s", c.path, upstream)
		}
	}
	if got := cacheDo(t, http.MethodGet, base+"/twice/a"); got.status != http.StatusBadGateway {
		t.Errorf("chunked twice: %d, want 502", got.status)
	}
}

// TestCacheOriginInterim: 103 Early Hints (and 102) from the origin reach
// clients of the HTTP/1.1 and HTTP/2 listeners as they come, through a
// caching location and a plain one; the cache stores only the final
// response.
func TestCacheOriginInterim(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	o := newCacheOrigin(t, func(n int64, w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusProcessing)
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("Cache-Control", "max-age=60")
		fmt.Fprint(w, vbody(n))
	})
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	port, tlsPort := freePort(t), freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
    access_log off;
    proxy_cache_path memory keys_zone=hints:8m;
    server {
        listen 127.0.0.1:{port};
        listen 127.0.0.1:%d ssl http2;
        ssl_certificate %s; ssl_certificate_key %s;
        add_header X-Cache $upstream_cache_status always;
        location /cached/ { proxy_pass http://%s/; proxy_cache hints; }
        location /plain/ { proxy_pass http://%[4]s/; }
    }
}`, tlsPort, cert, key, o.addr()), port)
	h1 := fmt.Sprintf("http://127.0.0.1:%d", port)
	h2 := fmt.Sprintf("https://127.0.0.1:%d", tlsPort)
	h2Client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"},
		ForceAttemptHTTP2: true,
	}}

	// get returns the interim responses, the protocol, X-Cache and Link.
	get := func(client *http.Client, url string) (interim []string, proto, cache, link string) {
		t.Helper()
		var mu sync.Mutex
		trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			mu.Lock()
			defer mu.Unlock()
			interim = append(interim, strings.TrimSpace(fmt.Sprint(code, " ", h.Get("Link"))))
			return nil
		}}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodGet, url, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return interim, resp.Proto, resp.Header.Get("X-Cache"), resp.Header.Get("Link")
	}
	want := "102\n103 </style.css>; rel=preload; as=style"
	for _, c := range []struct {
		client                           *http.Client
		base, path, wantProto, wantCache string
	}{
		{cacheClient, h1, "/cached/1", "HTTP/1.1", "MISS"},
		{h2Client, h2, "/cached/2", "HTTP/2.0", "MISS"},
		{cacheClient, h1, "/plain/1", "HTTP/1.1", ""},
		{h2Client, h2, "/plain/2", "HTTP/2.0", ""},
	} {
		interim, proto, cache, link := get(c.client, c.base+c.path)
		if strings.Join(interim, "\n") != want || proto != c.wantProto || cache != c.wantCache || link != "" {
			t.Errorf("%s %s: interim %q, %s, X-Cache %q, Link %q; want %q, %s, %q and no Link",
				c.wantProto, c.path, interim, proto, cache, link, want, c.wantProto, c.wantCache)
		}
	}
	before := hits.Load()
	if interim, _, cache, _ := get(cacheClient, h1+"/cached/1"); cache != "HIT" || len(interim) != 0 || hits.Load() != before {
		t.Errorf("second request: %s with interim %q, want a HIT without any", cache, interim)
	}
}
