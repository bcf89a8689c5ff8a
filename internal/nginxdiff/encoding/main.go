// Command encoding sends random Accept-Encoding negotiations to Debian's
// NGINX with ngx_brotli's filter and static modules and to mosaic, on the
// same randomly drawn locations (gzip, brotli, their types, lengths,
// gzip_proxied, gzip_vary, gzip_http_version, gzip_disable, the static
// modules, etag, charset) over static files with and without .gz and .br
// siblings and an origin of its own, and prints the differences grouped
// by class. See ../README.md.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

var (
	n     = flag.Int("n", 2000, "requests to send")
	nlocs = flag.Int("locs", 24, "locations drawn (each once as files and once proxied)")
	seed  = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same locations and requests every run)")
	show  = flag.Int("show", 3, "examples printed per class")
	keep  = flag.Bool("keep", false, "start the servers, print their ports and wait, to send requests by hand")
	dump  = flag.Bool("dump", false, "print the configuration and the -n requests that -seed gives, and send nothing")
)

// modules loads ngx_brotli into NGINX; mosaic has brotli built in and
// accepts the lines.
const modules = `load_module /usr/lib/nginx/modules/ngx_http_brotli_filter_module.so;
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
`

// config is the server both run: each drawn location twice, /lN/ over
// the files under root and /pN/ proxied to the origin at oport.
func config(root string, oport int, locs []loc) nginxdiff.Config {
	return func(dir string, ports []int) string {
		var b strings.Builder
		fmt.Fprintf(&b, `server { listen 127.0.0.1:%d; root %s;
  types { text/html html; text/css css; image/png png; application/json json; text/plain txt; }
  default_type application/octet-stream;
`, ports[0], root)
		for i, l := range locs {
			fmt.Fprintf(&b, "  location /l%d/ { alias %s/; %s }\n", i, root, l.directives)
			fmt.Fprintf(&b, "  location /p%d/ { proxy_pass http://127.0.0.1:%d/; %s }\n", i, oport, l.directives)
		}
		b.WriteString("}\n")
		return b.String()
	}
}

func main() { nginxdiff.Main("encoding", run) }

func run(dir string) error {
	rnd = rand.New(rand.NewSource(*seed))
	locs := make([]loc, *nlocs)
	for i := range locs {
		locs[i] = genLoc()
	}
	if *dump {
		fmt.Print(config("ROOT", 0, locs)("", []int{0}))
		for i := range *n {
			fmt.Printf("%d %q\n", i, genReq(len(locs)).raw())
		}
		return nil
	}
	root := filepath.Join(dir, "www")
	if err := writeFiles(root); err != nil {
		return err
	}
	ol, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	defer ol.Close()
	go http.Serve(ol, http.HandlerFunc(origin))
	oport := ol.Addr().(*net.TCPAddr).Port
	pair, err := nginxdiff.StartMain(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, modules, config(root, oport, locs))
	if err != nil {
		return err
	}
	defer pair.Stop()
	nport, mport := pair.NGINX.Ports[0], pair.Mosaic.Ports[0]
	if *keep {
		fmt.Printf("nginx %d mosaic %d origin %d dir %s\n", nport, mport, oport, dir)
		select {}
	}
	compare(nport, mport, locs)
	return nil
}

// compare sends *n requests to both, one at a time, and prints the
// count, then each class of difference with *show examples.
func compare(nport, mport int, locs []loc) {
	classes := nginxdiff.Classes{}
	diffs := 0
	for range *n {
		r := genReq(len(locs))
		raw := r.raw()
		na := answer(nport, r)
		ma := answer(mport, r)
		if na.String() == ma.String() {
			continue
		}
		diffs++
		cls := explain(r, locs[r.loc], na, ma) + where(r) + " n" + na.status + " m" + ma.status + " " + na.diff(ma)
		classes.Add(cls, fmt.Sprintf("%q\n  loc    %s\n  nginx  %s\n  mosaic %s", raw, locs[r.loc].directives, nginxdiff.Trunc(na.String(), 400), nginxdiff.Trunc(ma.String(), 400)))
	}
	fmt.Printf("requests %d, differences %d, classes %d\n", *n, diffs, len(classes))
	classes.Print(os.Stdout, *show)
}

// where names the kind of response: a static file or the origin's.
func where(r req) string {
	if r.proxied {
		return "proxied"
	}
	return "file"
}

// fields are the compared fields of an answer, in order.
var fields = []string{"Content-Encoding", "Vary", "ETag", "Content-Length", "Last-Modified", "Accept-Ranges", "body"}

// ans is what is compared of an answer.
type ans struct {
	status string
	f      map[string]string
}

// answer sends r and keeps the status, the fields, whether a length
// came (not its value: compressed lengths differ) and the body decoded;
// an error page's body is each server's own and not kept.
func answer(port int, r req) ans {
	a := ans{f: map[string]string{}}
	resp, body, err := nginxdiff.Send(port, r.raw(), r.method)
	if resp == nil {
		a.status = "ERR"
		a.f["body"] = err.Error()
		return a
	}
	a.status = strconv.Itoa(resp.StatusCode)
	h := resp.Header
	for _, k := range fields[:len(fields)-1] {
		if v := h.Values(k); len(v) > 0 {
			a.f[k] = strings.Join(v, "|")
		}
	}
	if _, ok := a.f["Content-Length"]; ok {
		a.f["Content-Length"] = "yes"
	}
	if err != nil {
		a.f["body"] = "ERR " + err.Error()
	} else if len(body) > 0 && (r.proxied || resp.StatusCode < 400) {
		a.f["body"] = decode(h.Get("Content-Encoding"), body)
		// Each server draws its own multipart boundary.
		if _, b, ok := strings.Cut(h.Get("Content-Type"), "boundary="); ok && b != "" {
			a.f["body"] = strings.ReplaceAll(a.f["body"], b, "B")
		}
	}
	return a
}

func (a ans) String() string {
	var b strings.Builder
	b.WriteString(a.status)
	for _, k := range fields {
		if v, ok := a.f[k]; ok {
			if k == "body" && len(v) > 60 {
				v = fmt.Sprintf("%d bytes %.40q...", len(v), v)
			}
			fmt.Fprintf(&b, " %s=%q", k, v)
		}
	}
	if v := a.f["body"]; len(v) > 60 {
		// Two long bodies that share their start and length may still
		// differ: the whole body counts.
		fmt.Fprintf(&b, " sum=%x", sum(v))
	}
	return b.String()
}

// diff names the fields whose values differ.
func (a ans) diff(o ans) string {
	var out []string
	for _, k := range fields {
		va, oka := a.f[k]
		vo, oko := o.f[k]
		if va != vo || oka != oko {
			out = append(out, k)
		}
	}
	return strings.Join(out, ",")
}

func sum(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}
