package main

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// stubShape is stub_status's text with the numbers taken out.
func stubShape(body string) string {
	return regexp.MustCompile(`[0-9]+`).ReplaceAllString(body, "N")
}

// closeGet sends a GET on a connection of its own and returns the body.
func closeGet(t *testing.T, port int, path string) string {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestStubStatusThroughBinary counts real connection states: one idle
// kept-alive connection (waiting), one with half a request header
// (reading), and the request for the page itself (writing), in NGINX's
// exact layout, which Debian's NGINX is asked for too; the
// $connections_* variables say the same.
func TestStubStatusThroughBinary(t *testing.T) {
	dir := t.TempDir()
	port := freePort(t)
	conf := `
		location = /basic_status { stub_status; }
		location = /vars { return 200 "$connections_active $connections_reading $connections_writing $connections_waiting"; }`
	startMosaic(t, dir, "http { server { listen 127.0.0.1:{port};"+conf+"} }", port)
	// waitPort's probe was accepted and closed; let it be counted out.
	dial := func() net.Conn {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	idle := dial()
	fmt.Fprintf(idle, "GET /vars HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(resp.Body)
	half := dial()
	io.WriteString(half, "GET /x HTTP/1.1\r\nHost:")
	// Every look is one more connection and request; the probe of
	// waitPort (accepted, closed without a request) may take a moment
	// to be counted out, and the half-sent header to be read.
	var got string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = closeGet(t, port, "/basic_status")
		if strings.HasPrefix(got, "Active connections: 3 \n") && strings.HasSuffix(got, "Reading: 1 Writing: 1 Waiting: 1 \n") {
			break
		}
	}
	var accepts, handled, requests int
	fmt.Sscanf(strings.Split(got, "\n")[2], " %d %d %d ", &accepts, &handled, &requests)
	if stubShape(got) != "Active connections: N \nserver accepts handled requests\n N N N \nReading: N Writing: N Waiting: N \n" ||
		!strings.HasPrefix(got, "Active connections: 3 \n") || !strings.HasSuffix(got, "Reading: 1 Writing: 1 Waiting: 1 \n") ||
		accepts < 4 || handled != accepts || requests != accepts-1 {
		t.Errorf("stub_status:\n%q", got)
	}
	// The look before may still be counted while its connection closes.
	var v string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if v = closeGet(t, port, "/vars"); v == "3 1 1 1" {
			break
		}
	}
	if v != "3 1 1 1" {
		t.Errorf("$connections_*: %q, want \"3 1 1 1\"", v)
	}

	// NGINX's page has the same layout.
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		nport := freePort(t)
		ndir := filepath.Join(dir, "nginx")
		os.MkdirAll(ndir, 0o755)
		startNGINX(t, ndir, fmt.Sprintf("server { listen 127.0.0.1:%d; %s }", nport, conf), nport)
		if n := closeGet(t, nport, "/basic_status"); stubShape(n) != stubShape(got) {
			t.Errorf("NGINX's page %q, mosaic's %q", n, got)
		}
	}
}

// TestMetricsThroughBinary: the metrics endpoint counts responses by
// server and status, bytes, upstream times, cache statuses, compressed
// bytes per coding (gzip, br, zstd) and limit rejections by zone.
func TestMetricsThroughBinary(t *testing.T) {
	origin := newUpOrigin(t, "origin", "")
	held := newUpOrigin(t, "held", "hold")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "www", "page.html"), strings.Repeat("<p>compress me</p>", 200))
	writeFile(t, filepath.Join(dir, "www", "limited"), "x")
	writeFile(t, filepath.Join(dir, "www", "esi", "p.html"), `<esi:include src="/frag"/><esi:include src="/nofrag"/>`)
	port := freePort(t)
	startMosaic(t, dir, fmt.Sprintf(`http {
		proxy_cache_path %[1]s/cache keys_zone=c:1m;
		limit_req_zone $binary_remote_addr zone=one:1m rate=1r/m;
		limit_conn_zone $binary_remote_addr zone=conns:1m;
		server {
			listen 127.0.0.1:{port};
			server_name site;
			root %[1]s/www;
			gzip on; gzip_types text/html;
			brotli on; brotli_types text/html;
			zstd on; zstd_types text/html;
			location /app/ { proxy_pass http://%[2]s; proxy_cache c; proxy_cache_valid 200 1m; }
			location = /metrics { metrics; }
			location = /teapot { return 418; }
			location /esi/ { esi on; }
			location = /frag { return 200 "f"; }
			location = /limited { limit_req zone=one; }
			location = /held { limit_conn conns 1; limit_conn_status 429; proxy_pass http://%[3]s; }
		}
	}`, dir, origin.addr(), held.addr()), port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	for range 2 {
		getBody(t, base+"/app/x")
	}
	getBody(t, base+"/teapot")
	getBody(t, base+"/esi/p.html")
	getBody(t, base+"/limited")
	getBody(t, base+"/limited")
	// One request holds the connection limit; the next is refused.
	heldDone := make(chan int, 1)
	go func() {
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/held")
		if err != nil {
			heldDone <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		heldDone <- resp.StatusCode
	}()
	select {
	case <-held.arrived:
	case <-time.After(5 * time.Second):
		t.Fatal("the held request never reached its origin")
	}
	if code, _ := getBody(t, base+"/held"); code != 429 {
		t.Errorf("second request to /held: %d, want 429", code)
	}
	close(held.hold)
	if code := <-heldDone; code != 200 {
		t.Errorf("held request: %d", code)
	}
	for _, coding := range []string{"gzip", "br", "zstd"} {
		req, _ := http.NewRequest("GET", base+"/page.html", nil)
		req.Header.Set("Accept-Encoding", coding)
		resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("Content-Encoding"); got != coding {
			t.Fatalf("page asked in %s came in %q", coding, got)
		}
	}

	_, m := getBody(t, base+"/metrics")
	for _, want := range []string{
		`mosaic_http_responses_total{server="site",code="200"} 8`,
		`mosaic_esi_fragments_total{result="ok"} 1`,
		`mosaic_http_responses_total{server="site",code="503"} 1`,
		`mosaic_limit_rejected_total{limit="req",zone="one"} 1`,
		`mosaic_limit_rejected_total{limit="conn",zone="conns"} 1`,
		`mosaic_http_responses_total{server="site",code="429"} 1`,
		`mosaic_esi_fragments_total{result="error"} 1`,
		`mosaic_http_responses_total{server="site",code="418"} 1`,
		`mosaic_upstream_response_seconds_count{upstream="` + origin.addr() + `"} 1`,
		`mosaic_upstream_response_seconds_bucket{upstream="` + origin.addr() + `",le="+Inf"} 1`,
		`mosaic_cache_responses_total{status="HIT"} 1`,
		`mosaic_cache_responses_total{status="MISS"} 1`,
		"# TYPE mosaic_connections gauge",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, m)
		}
	}
	if !regexp.MustCompile(`mosaic_http_sent_bytes_total\{server="site"\} [0-9]{3,}`).MatchString(m) {
		t.Errorf("no bytes counted:\n%s", m)
	}
	// The page (3,600 bytes) went once in each coding, and the ESI page
	// was gzipped too; the input is derived from $gzip_ratio (and
	// $brotli_ratio, $zstd_ratio), rounded to two decimals.
	for _, c := range []struct {
		coding  string
		min, mx int
	}{{"gzip", 3600, 4000}, {"br", 3400, 3800}, {"zstd", 3400, 3800}} {
		var in, out int
		if mm := regexp.MustCompile(`mosaic_compression_input_bytes_total\{coding="` + c.coding + `"\} ([0-9]+)\n`).FindStringSubmatch(m); mm != nil {
			fmt.Sscan(mm[1], &in)
		}
		if mm := regexp.MustCompile(`mosaic_compression_output_bytes_total\{coding="` + c.coding + `"\} ([0-9]+)\n`).FindStringSubmatch(m); mm != nil {
			fmt.Sscan(mm[1], &out)
		}
		if in < c.min || in > c.mx || out == 0 || out > in/5 {
			t.Errorf("%s: compressed bytes: %d in, %d out:\n%s", c.coding, in, out, m)
		}
	}
}

// TestStubStatusHTTP2: an HTTP/2 connection between streams counts as
// waiting, and its streams as requests.
func TestStubStatusHTTP2(t *testing.T) {
	dir := t.TempDir()
	sport := freePort(t)
	conf, tlsPort := tlsSite(t, dir, fmt.Sprintf(`server { listen 127.0.0.1:%d; location = /s { stub_status; } }`, sport))
	startMosaic(t, dir, conf, freePort(t))
	h2 := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "mosaic.test"}, ForceAttemptHTTP2: true,
	}}
	t.Cleanup(h2.CloseIdleConnections)
	url := fmt.Sprintf("https://127.0.0.1:%d/scheme", tlsPort)
	h2Get(t, h2, url)
	h2Get(t, h2, url)
	var got string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		// The probes of the start (one per port) may take a moment to go.
		if got = closeGet(t, sport, "/s"); strings.HasPrefix(got, "Active connections: 2 \n") {
			break
		}
	}
	var accepts, handled, requests int
	fmt.Sscanf(strings.Split(got, "\n")[2], " %d %d %d ", &accepts, &handled, &requests)
	if !strings.HasPrefix(got, "Active connections: 2 \n") || !strings.HasSuffix(got, "Reading: 0 Writing: 1 Waiting: 1 \n") ||
		// Accepted: the start's probes (no request; startMosaic waits
		// for each of the three ports), the HTTP/2 connection (two
		// streams), one connection per look (one request each).
		requests < 3 || accepts != requests+2 {
		t.Errorf("stub_status with an idle HTTP/2 connection:\n%q", got)
	}
}
