package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// Parse plans and stitching through the binary: a page cached by
// proxy_cache, its fragments proxied uncached, delivered to clients of
// each coding.

// planOrigin serves a page whose runs are long enough to compress, with
// a fragment per request and a branch per cookie.
func planOrigin(t *testing.T) *esiOrigin {
	t.Helper()
	lead := proseForLevels()
	return startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/up/"):
			fmt.Fprintf(w, "FRAG %s", r.URL.Path)
		default:
			// Cacheable without proxy_cache_valid, as the seed's
			// configuration has none.
			w.Header().Set("Cache-Control", "max-age=3600")
			html(w, lead+`<esi:include src="/up/one"/>`+
				`<esi:choose><esi:when test="$(HTTP_COOKIE{g})=='a'">[A <esi:include src="/up/a"/>]</esi:when>`+
				`<esi:otherwise>[other]</esi:otherwise></esi:choose>`+
				`<esi:try><esi:attempt><esi:include src="/up/ok"/></esi:attempt><esi:except>[never]</esi:except></esi:try>`+
				`<esi:vars>$(QUERY_STRING{q}|'-')</esi:vars>`+lead)
		}
	})
}

// proseForLevels returns 16 KB of paragraphs of words in a fixed
// pseudo-random order: text on which gzip's levels 1 and 9 differ by more
// than the few bytes that span boundaries (where fragments arrive) move.
func proseForLevels() string {
	words := strings.Fields("lorem ipsum dolor sit amet a < b consectetur adipiscing elit sed do eiusmod " +
		"tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation " +
		"ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate")
	var b strings.Builder
	x := uint32(1)
	for b.Len() < 16<<10 {
		b.WriteString("<p>")
		for i := 0; i < 12; i++ {
			x = x*1664525 + 1013904223
			b.WriteString(words[x>>16%uint32(len(words))])
			b.WriteByte(' ')
		}
		b.WriteString("</p>\n")
	}
	return b.String()
}

// planGet requests path with the given Accept-Encoding and User-Agent and
// returns the response and its body decoded.
func planGet(t *testing.T, url, ae, ua string, hdr ...string) (*http.Response, string) {
	t.Helper()
	h := http.Header{"User-Agent": {ua}}
	if ae != "" {
		h.Set("Accept-Encoding", ae)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		h.Set(hdr[i], hdr[i+1])
	}
	resp, body := esiDo(t, "GET", url, h)
	return resp, decodeBody(t, resp.Header.Get("Content-Encoding"), []byte(body))
}

// decodeBody decodes with Go's decoders and, when installed, with the
// gzip, zstd and brotli tools, which must agree.
func decodeBody(t *testing.T, coding string, body []byte) string {
	t.Helper()
	var out []byte
	var err error
	tool := ""
	switch coding {
	case "":
		return string(body)
	case "gzip":
		br := bytes.NewReader(body)
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(br); err == nil {
			zr.Multistream(false)
			out, err = io.ReadAll(zr)
		}
		if err == nil && br.Len() != 0 {
			err = fmt.Errorf("%d bytes after the gzip member", br.Len())
		}
		tool = "gzip"
	case "zstd":
		var zr *zstd.Decoder
		if zr, err = zstd.NewReader(bytes.NewReader(body)); err == nil {
			out, err = io.ReadAll(zr)
			zr.Close()
		}
		tool = "zstd"
	case "br":
		out, err = io.ReadAll(brotli.NewReader(bytes.NewReader(body)))
		tool = "brotli"
	default:
		t.Fatalf("Content-Encoding %q", coding)
	}
	if err != nil {
		t.Fatalf("decoding %s: %v", coding, err)
	}
	if _, lerr := exec.LookPath(tool); lerr == nil {
		cmd := exec.Command(tool, "-dc")
		cmd.Stdin = bytes.NewReader(body)
		byTool, terr := cmd.Output()
		if terr != nil || !bytes.Equal(byTool, out) {
			t.Fatalf("%s -dc: %v, %d bytes where Go decodes %d", tool, terr, len(byTool), len(out))
		}
	}
	return string(out)
}

// The seed's "Stitching the gzip" configuration loads unchanged and,
// with only its listen, upstream and cache directory moved to the test's,
// stitches: the page is cached plain, and gzip clients get one gzip member
// whose runs after the second hit come from the plan's stored forms.
func TestSeed003PlanStitchConfiguration(t *testing.T) {
	seed := testdataConf(t, "seed003-plan-stitch.conf")
	dir := t.TempDir()
	path := filepath.Join(dir, "seed.conf")
	if err := os.WriteFile(path, []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	configTest(t, path)

	o := planOrigin(t)
	moved := strings.NewReplacer(
		"server 127.0.0.1:9000;", "server "+o.addr()+";",
		"/var/cache/nginx/pages", filepath.Join(dir, "pages"),
		"    server {\n", "    server {\n        listen 127.0.0.1:{port};\n"+
			"        location /up/ { proxy_pass http://app; }\n",
	).Replace(seed)
	moved = "error_log stderr debug;\n" + moved
	if strings.Count(moved, "listen") != 1 || strings.Contains(moved, "9000") || strings.Contains(moved, "/var/cache") {
		t.Fatal("testdata/seed003-plan-stitch.conf no longer has the lines the test moves")
	}
	port := freePort(t)
	p := startMosaic(t, dir, moved, port)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	_, plain := planGet(t, base+"/page?q=1", "", "test", "Cookie", "g=a")
	if !strings.Contains(plain, "[A FRAG /up/a]") || !strings.Contains(plain, "FRAG /up/ok") || strings.Contains(plain, "never") {
		t.Fatalf("plain page: %q", plain[len(plain)-300:])
	}
	for i := 0; i < 4; i++ {
		resp, got := planGet(t, base+"/page?q=1", "gzip", "test", "Cookie", "g=a")
		if resp.Header.Get("Content-Encoding") != "gzip" || got != plain {
			t.Fatalf("delivery %d: Content-Encoding %q, body equal: %v", i, resp.Header.Get("Content-Encoding"), got == plain)
		}
		if resp.Header.Get("Vary") != "" {
			t.Errorf("Vary %q without gzip_vary", resp.Header.Get("Vary"))
		}
	}
	// Another branch of the same plan.
	resp, got := planGet(t, base+"/page?q=1", "gzip", "test", "Cookie", "g=b")
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(got, "[other]") || strings.Contains(got, "[A ") {
		t.Fatalf("other branch: %q", resp.Header.Get("Content-Encoding"))
	}
	// No zstd and no brotli here: those clients get the plain page.
	for _, ae := range []string{"zstd", "br", "identity"} {
		if resp, got := planGet(t, base+"/page?q=1", ae, "test", "Cookie", "g=a"); resp.Header.Get("Content-Encoding") != "" || got != plain {
			t.Errorf("Accept-Encoding %s: Content-Encoding %q", ae, resp.Header.Get("Content-Encoding"))
		}
	}
	waitFor(t, "the plan recorded", func() bool { return strings.Count(p.out.String(), "parse plan of the page recorded") == 1 })
	if n := strings.Count(p.out.String(), "replaying the parse plan"); n < 5 {
		t.Errorf("%d replays logged, want at least 5", n)
	}
}

// The seed's fragment-caching example loads unchanged (its load_module is
// ignored with a notice).
func TestSeed003FragmentCachingConfiguration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "seed.conf")
	if err := os.WriteFile(path, []byte(testdataConf(t, "seed003-fragment-caching.conf")), 0o644); err != nil {
		t.Fatal(err)
	}
	configTest(t, path)
}

// esi_plan records on the first hit and replays on the later ones, per
// location; esi_plan off and a location without it record nothing.
func TestESIPlanThroughBinary(t *testing.T) {
	o := planOrigin(t)
	port := freePort(t)
	conf := func(gen string) string {
		return `
	error_log stderr debug;
	http {
		esi on;
		esi_plan_zone plans:1m;
		proxy_cache_path memory keys_zone=pages:1m;
		server { listen 127.0.0.1:{port};
			location = /gen { return 200 "` + gen + `"; }
			location /page/ { proxy_pass http://{origin}; proxy_cache pages; proxy_cache_valid 200 1h; esi_plan plans; }
			location /off/ { proxy_pass http://{origin}; proxy_cache pages; proxy_cache_valid 200 1h; esi_plan plans;
				location /off/inner { esi_plan off; } }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`
	}
	base, p := esiSite(t, port, o, conf("1"))
	var first string
	for i, cookie := range []string{"g=a", "g=a", "g=b", "g=a"} {
		_, body := planGet(t, base+"/page/x", "", "test", "Cookie", cookie)
		if cookie == "g=a" && first == "" {
			first = body
		}
		if cookie == "g=a" && body != first {
			t.Fatalf("delivery %d differs from the first", i)
		}
		if (cookie == "g=b") != strings.Contains(body, "[other]") {
			t.Fatalf("delivery %d with %s: wrong branch", i, cookie)
		}
	}
	for i := 0; i < 3; i++ {
		planGet(t, base+"/off/inner", "", "test")
	}
	waitFor(t, "two replays", func() bool { return strings.Count(p.out.String(), "replaying the parse plan") == 2 })
	if n := strings.Count(p.out.String(), "parse plan of the page recorded"); n != 1 {
		t.Errorf("%d plans recorded, want 1 (the first hit of /page/x)\n%s", n, p.out.String())
	}
	if strings.Contains(p.out.String(), "/off/inner") && strings.Contains(p.out.String(), `plan of the page recorded" uri=/off`) {
		t.Error("esi_plan off recorded a plan")
	}

	// A reload that declares the zone alike keeps its plans.
	writeFile(t, filepath.Join(p.cmd.Dir, "mosaic.conf"), strings.NewReplacer("{origin}", o.addr(), "{port}", fmt.Sprint(port)).Replace(conf("2")))
	p.cmd.Process.Signal(syscall.SIGHUP)
	waitFor(t, "the reload", func() bool { _, body := httpGet(t, base+"/gen"); return body == "2" })
	planGet(t, base+"/page/x", "", "test", "Cookie", "g=a")
	waitFor(t, "a replay after the reload", func() bool { return strings.Count(p.out.String(), "replaying the parse plan") == 3 })
	if n := strings.Count(p.out.String(), "parse plan of the page recorded"); n != 1 {
		t.Errorf("%d plans recorded after the reload, want the one from before", n)
	}
}

// esi_plan naming no zone, esi_stitch without esi_plan, a zone too small
// and esi_stitch_level out of range are configuration errors.
func TestESIPlanConfigErrors(t *testing.T) {
	t.Parallel()
	for conf, want := range map[string]string{
		`esi on; esi_plan nope;`:                                      `unknown esi_plan_zone "nope"`,
		`esi on; esi_stitch on;`:                                      `"esi_stitch on" requires "esi_plan"`,
		`esi_plan_zone tiny:16k; esi on;`:                             `too small`,
		`esi_plan_zone z:1m; esi on; esi_plan z; esi_stitch_level 0;`: `invalid value "0" in "esi_stitch_level" directive, it must be 1..9`,
		`esi_plan_zone z:1m; esi_plan_zone z:2m;`:                     `duplicate zone "z"`,
		`esi_plan_zone z;`:                                            `it must be "name:size"`,
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "m.conf")
		writeFile(t, path, "http { "+conf+" server { listen 127.0.0.1:1; location / { return 200; } } }")
		out, err := exec.Command(checkPath, "-t", "-c", path).CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v\n%s\nwant %q", conf, err, out, want)
		}
	}
}

// esi_stitch_level sets the level: 1 and 9 make different, both valid,
// gzip bodies of the same page; gzip_vary, gzip_disable and
// gzip_http_version apply to stitched responses; zstd on with
// compress_prefer makes zstd clients get stitched zstd, and brotli on
// brotli clients stitched brotli, which the compression filter leaves
// alone (its $brotli_ratio stays unset).
// TestESIPlanBehindSSI: a page that the location's SSI rebuilds for each
// request after the cache is not the stored body, and gets no parse plan:
// a stitched delivery used to write the runs stored from the first
// client's page (its cookie echoed by SSI) to every other client.
func TestESIPlanBehindSSI(t *testing.T) {
	o := startESIOrigin(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/p/page":
			html(w, `<p>token=<!--# echo var="cookie_t" --></p>[<esi:include src="/up/f"/>]`)
		default:
			html(w, "frag")
		}
	})
	port := freePort(t)
	base, _ := esiSite(t, port, o, `http {
		esi on;
		esi_plan_zone plans:4m;
		proxy_cache_path memory keys_zone=pages:4m;
		server { listen 127.0.0.1:{port};
			location /p/ { ssi on; proxy_pass http://{origin}; proxy_cache pages; proxy_cache_valid 200 1h;
				esi_plan plans; esi_stitch on; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`)
	// A miss, a hit that would record the plan, one that would store the
	// runs, then other clients.
	for _, tok := range []string{"AAAA", "AAAA", "AAAA", "BBBB", "CCCC"} {
		resp, body := esiDo(t, "GET", base+"/p/page", http.Header{"Cookie": {"t=" + tok}, "Accept-Encoding": {"gzip"}})
		got := decodeBody(t, resp.Header.Get("Content-Encoding"), []byte(body))
		if want := "<p>token=" + tok + "</p>[frag]"; got != want {
			t.Errorf("client %s: got %q, want %q", tok, got, want)
		}
	}
}

func TestESIStitchThroughBinary(t *testing.T) {
	o := planOrigin(t)
	port := freePort(t)
	logPath := filepath.Join(t.TempDir(), "z.log")
	base, _ := esiSite(t, port, o, strings.ReplaceAll(`
	http {
		log_format z "$uri $http_accept_encoding|$sent_http_content_encoding|$brotli_ratio";
		esi on;
		esi_plan_zone plans:4m;
		proxy_cache_path memory keys_zone=pages:4m;
		proxy_cache pages; proxy_cache_valid 200 1h;
		esi_plan plans;
		esi_stitch on;
		server { listen 127.0.0.1:{port};
			location /l1/ { proxy_pass http://{origin}; esi_stitch_level 1; }
			location /l9/ { proxy_pass http://{origin}; esi_stitch_level 9; gzip_vary on; }
			location /gates/ { proxy_pass http://{origin}; gzip_disable "Oldie"; gzip_http_version 1.1; }
			location /z/ { proxy_pass http://{origin}; zstd on; brotli on; compress_prefer br zstd gzip; gzip_vary on;
				access_log {zlog} z; }
			location /zb/ { proxy_pass http://{origin}; zstd on; brotli on; gzip_vary on; esi_stitch off;
				access_log {zlog} z; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`, "{zlog}", logPath))
	_, plain := planGet(t, base+"/l1/p", "", "test")
	sizes := map[string]int{}
	for _, loc := range []string{"/l1/p", "/l9/p"} {
		for i := 0; i < 3; i++ { // miss, recording hit, stitched hit
			resp, body := esiDo(t, "GET", base+loc, http.Header{"Accept-Encoding": {"gzip"}})
			if got := decodeBody(t, resp.Header.Get("Content-Encoding"), []byte(body)); resp.Header.Get("Content-Encoding") != "gzip" || got != plain {
				t.Fatalf("%s delivery %d: Content-Encoding %q, body equal %v", loc, i, resp.Header.Get("Content-Encoding"), got == plain)
			}
			sizes[loc] = len(body)
			if vary := resp.Header.Get("Vary"); (loc == "/l9/p") != (vary == "Accept-Encoding") {
				t.Errorf("%s: Vary %q", loc, vary)
			}
		}
	}
	if sizes["/l1/p"] <= sizes["/l9/p"] {
		t.Errorf("level 1 made %d bytes, level 9 %d", sizes["/l1/p"], sizes["/l9/p"])
	}

	if resp, got := planGet(t, base+"/gates/p", "gzip", "Oldie/1.0"); resp.Header.Get("Content-Encoding") != "" || got != plain {
		t.Errorf("gzip_disable: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	if resp, got := planGet(t, base+"/gates/p", "gzip", "test"); resp.Header.Get("Content-Encoding") != "gzip" || got != plain {
		t.Errorf("gates, a client gzip is allowed for: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	if ce := http10ContentEncoding(t, port, "/gates/p"); ce != "" {
		t.Errorf("gzip_http_version 1.1, an HTTP/1.0 request: Content-Encoding %q", ce)
	}

	for i := 0; i < 3; i++ {
		resp, got := planGet(t, base+"/z/p", "gzip, zstd", "test")
		if resp.Header.Get("Content-Encoding") != "zstd" || got != plain || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("zstd delivery %d: Content-Encoding %q, Vary %q, body equal %v", i, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), got == plain)
		}
		resp, got = planGet(t, base+"/z/p", "gzip", "test")
		if resp.Header.Get("Content-Encoding") != "gzip" || got != plain {
			t.Fatalf("gzip client of /z/: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
		}
		resp, got = planGet(t, base+"/z/p", "br", "test")
		if resp.Header.Get("Content-Encoding") != "br" || got != plain || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("brotli delivery %d: Content-Encoding %q, Vary %q, body equal %v", i, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), got == plain)
		}
		if resp, _ := esiDo(t, "GET", base+"/z/p", http.Header{"Accept-Encoding": {"zstd, br"}}); resp.Header.Get("Content-Encoding") != "br" {
			t.Fatalf("brotli and zstd client of /z/ (br preferred): Content-Encoding %q", resp.Header.Get("Content-Encoding"))
		}
	}
	// Without esi_stitch the filter compresses for the brotli client, and
	// says so in $brotli_ratio; the stitched ones leave it unset.
	if resp, got := planGet(t, base+"/zb/p", "br", "test"); resp.Header.Get("Content-Encoding") != "br" || got != plain {
		t.Fatalf("brotli client of /zb/: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	waitFor(t, "the access log of /zb/", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "/zb/p")
	})
	b, _ := os.ReadFile(logPath)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		filtered := !strings.HasSuffix(line, "|-")
		if strings.HasPrefix(line, "/z/p ") && strings.Contains(line, "|br|") && filtered {
			t.Errorf("the filter compressed a stitched brotli response: %s", line)
		}
		if strings.HasPrefix(line, "/zb/p ") && !filtered {
			t.Errorf("the filter did not compress without esi_stitch: %s", line)
		}
	}
}

// http10ContentEncoding sends an HTTP/1.0 request accepting gzip and
// returns the response's Content-Encoding.
func http10ContentEncoding(t *testing.T, port int, path string) string {
	t.Helper()
	c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip\r\n\r\n", path)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.Header.Get("Content-Encoding")
}

// With the page's cache zone in Redis, a plan one server records is
// replayed by another server of the zone, which never parses the page.
func TestESIPlanSharedThroughRedis(t *testing.T) {
	redisAddr := startRedisServer(t)
	o := planOrigin(t)
	conf := `
	error_log stderr debug;
	http {
		esi on;
		esi_plan_zone plans:1m;
		proxy_cache_path redis://` + redisAddr + `/0 keys_zone=shared:1m;
		server { listen 127.0.0.1:{port};
			location /page/ { proxy_pass http://{origin}; proxy_cache shared; proxy_cache_valid 200 1h; esi_plan plans; }
			location /up/ { internal; esi off; proxy_pass http://{origin}; }
		}
	}`
	baseA, a := esiSite(t, freePort(t), o, conf)
	_, first := planGet(t, baseA+"/page/s", "", "test", "Cookie", "g=a") // miss
	planGet(t, baseA+"/page/s", "", "test", "Cookie", "g=a")             // hit: recorded, shared
	waitFor(t, "the plan recorded", func() bool { return strings.Contains(a.out.String(), "parse plan of the page recorded") })
	// The plan is saved after the response: in Redis, beside the page.
	waitFor(t, "the plan saved", func() bool { return len(redisKeys(t, redisAddr, "*esi_plan:*")) > 0 })

	baseB, b := esiSite(t, freePort(t), o, conf)
	_, got := planGet(t, baseB+"/page/s", "", "test", "Cookie", "g=a")
	if got != first {
		t.Fatal("server B's page differs from server A's")
	}
	waitFor(t, "server B replays", func() bool { return strings.Contains(b.out.String(), "replaying the parse plan") })
	if strings.Contains(b.out.String(), "parse plan of the page recorded") {
		t.Errorf("server B recorded a plan of its own:\n%s", b.out.String())
	}
	if o.count("/page/s") != 1 {
		t.Errorf("the origin served the page %d times", o.count("/page/s"))
	}
}
