// Command ranges sends random Range and conditional requests to Debian's
// NGINX and to mosaic on the same configuration (static files and a
// proxied, cached origin of its own), byte for byte over raw sockets, and
// prints the differences grouped by class. See ../README.md.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
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
	n         = flag.Int("n", 2000, "requests to send")
	seed      = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same requests every run)")
	show      = flag.Int("show", 3, "examples printed per class")
	keep      = flag.Bool("keep", false, "start the servers, print their ports and wait, to send requests by hand")
	dump      = flag.Bool("dump", false, "print the -n requests that -seed gives, and send nothing")
	looseLM   = flag.Bool("looselm", false, "origins may send a Last-Modified without GMT")
	goodDates = flag.Bool("gooddates", false, "draw only well-formed dates")
)

// config is the server both run: the files under root through the
// directives that change ranges and conditionals, and the origin at
// oport proxied, gzipped and cached.
func config(root string, oport int) nginxdiff.Config {
	return func(dir string, ports []int) string {
		return fmt.Sprintf(`proxy_cache_path %[4]s keys_zone=z:1m;
server { listen 127.0.0.1:%[1]d; root %[2]s;
  types { text/plain txt; application/octet-stream bin; } default_type application/octet-stream;
  location /s/ { alias %[2]s/; }
  location /sb/ { alias %[2]s/; if_modified_since before; }
  location /so/ { alias %[2]s/; if_modified_since off; max_ranges 2; }
  location /se/ { alias %[2]s/; etag off; max_ranges 1; }
  location /s0/ { alias %[2]s/; max_ranges 0; }
  location /sg/ { alias %[2]s/; gzip on; gzip_types text/plain; gzip_min_length 1; }
  location /ep/ { root %[2]s; error_page 404 /s/100.txt; }
  location /e2/ { root %[2]s; error_page 404 =200 /s/100.txt; }
  location /o/ { proxy_pass http://127.0.0.1:%[3]d; }
  location /pf/ { proxy_pass http://127.0.0.1:%[3]d/o/; proxy_force_ranges on; }
  location /pg/ { proxy_pass http://127.0.0.1:%[3]d/o/; gzip on; gzip_types text/plain; gzip_min_length 1; }
  location /c/ { proxy_pass http://127.0.0.1:%[3]d/o/; proxy_cache z; proxy_cache_valid 200 206 10m; }
  location /cf/ { proxy_pass http://127.0.0.1:%[3]d/o/; proxy_cache z; proxy_cache_valid 200 206 10m; proxy_force_ranges on; max_ranges 3; }
}
`, ports[0], root, oport, filepath.Join(dir, "cache"))
	}
}

func main() { nginxdiff.Main("ranges", run) }

func run(dir string) error {
	rnd = rand.New(rand.NewSource(*seed))
	if *dump {
		for i := range *n {
			fmt.Printf("%d %q\n", i, genReq().raw())
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
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, config(root, oport))
	if err != nil {
		return err
	}
	defer pair.Stop()
	nport, mport := pair.NGINX.Ports[0], pair.Mosaic.Ports[0]
	if *keep {
		fmt.Printf("nginx %d mosaic %d origin %d dir %s\n", nport, mport, oport, dir)
		select {}
	}
	compare(nport, mport)
	return nil
}

// writeFiles writes every size as .txt and .bin under root, dated mtime.
func writeFiles(root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	for _, s := range sizes {
		for _, ext := range []string{".txt", ".bin"} {
			p := filepath.Join(root, strconv.Itoa(s)+ext)
			if err := os.WriteFile(p, content(s), 0o644); err != nil {
				return fmt.Errorf("files: %w", err)
			}
			if err := os.Chtimes(p, mtime, mtime); err != nil {
				return fmt.Errorf("files: %w", err)
			}
		}
	}
	return nil
}

// compare sends *n requests to both, one at a time (a cache key's miss
// must come before its hit), and prints the count, then each class of
// difference with *show examples.
func compare(nport, mport int) {
	classes := nginxdiff.Classes{}
	firstLoc := map[string]string{} // a cache key's k: the location that filled it
	diffs := 0
	for range *n {
		r := genReq()
		raw := r.raw()
		nr, nb, nerr := nginxdiff.Send(nport, raw, r.method)
		mr, mb, merr := nginxdiff.Send(mport, raw, r.method)
		ns, ms := summary(nr, nb), summary(mr, mb)
		if nerr != nil {
			ns += " ERR " + nerr.Error()
		}
		if merr != nil {
			ms += " ERR " + merr.Error()
		}
		loc := strings.SplitN(r.path, "/", 3)[1]
		shared := false
		if _, k, ok := strings.Cut(r.path, "?k="); ok {
			if f, seen := firstLoc[k]; !seen {
				firstLoc[k] = loc
			} else if f != loc {
				shared = true
			}
		}
		if ns == ms {
			continue
		}
		diffs++
		nst, mst := "?", "?"
		if nr != nil {
			nst = strconv.Itoa(nr.StatusCode)
		}
		if mr != nil {
			mst = strconv.Itoa(mr.StatusCode)
		}
		cls := explain(r, loc, shared) + loc + " n" + nst + " m" + mst
		if nst == mst {
			cls += " " + fieldDiff(ns, ms)
		}
		classes.Add(cls, fmt.Sprintf("%q\n  nginx  %s\n  mosaic %s", raw, nginxdiff.Trunc(ns, 600), nginxdiff.Trunc(ms, 600)))
	}
	fmt.Printf("requests %d, differences %d, classes %d\n", *n, diffs, len(classes))
	classes.Print(os.Stdout, *show)
}

// summary is what is compared of an answer: the status, the fields that
// ranges and conditionals set, and below 400 the body, gunzipped, with a
// multipart boundary replaced by B (each server draws its own).
func summary(resp *http.Response, body []byte) string {
	if resp == nil {
		return "no answer"
	}
	h := resp.Header
	ct := h.Get("Content-Type")
	_, boundary, _ := strings.Cut(ct, "boundary=")
	norm := func(s string) string {
		if boundary == "" {
			return s
		}
		return strings.ReplaceAll(s, boundary, "B")
	}
	enc := h.Get("Content-Encoding")
	if enc == "gzip" && len(body) > 0 {
		if zr, err := gzip.NewReader(bytes.NewReader(body)); err == nil {
			if d, err := io.ReadAll(zr); err == nil {
				body = d
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", resp.StatusCode)
	keys := []string{"Content-Range", "Content-Type", "ETag", "Last-Modified", "Accept-Ranges", "Content-Encoding"}
	if enc == "" && resp.StatusCode < 400 {
		keys = append(keys, "Content-Length")
	}
	for _, k := range keys {
		if v := h.Values(k); len(v) > 0 {
			fmt.Fprintf(&b, " %s=%q", k, norm(strings.Join(v, "|")))
		}
	}
	if resp.StatusCode < 400 {
		fmt.Fprintf(&b, " body=%q", norm(string(body)))
	}
	return b.String()
}
