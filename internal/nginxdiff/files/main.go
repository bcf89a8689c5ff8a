// Command files draws a random tree of files under a temporary root
// (odd names, index files, symbolic links of every kind, a FIFO, an
// unreadable file), random servers over it (root and alias, index,
// autoindex, disable_symlinks, try_files, error_page, types, the open
// file cache, etag and if_modified_since) and random requests (encoded
// bytes, dot segments, slashes added and taken away, methods), sends the
// same bytes to Debian's NGINX and to mosaic and prints where their
// answers differ, grouped by class. See ../README.md.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

var (
	n       = flag.Int("n", 2000, "requests to send")
	seed    = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same tree, servers and requests every run)")
	nserv   = flag.Int("servers", 12, "servers drawn, each on its own port")
	show    = flag.Int("show", 3, "examples printed per class")
	keep    = flag.Bool("keep", false, "start the servers, print their ports and wait, to send requests by hand")
	dump    = flag.Bool("dump", false, "print the configuration and the requests that -seed gives, and send nothing")
	onlyOne = flag.Int("only", -1, "send only the request with this index")
)

func main() { nginxdiff.Main("files", run) }

func run(dir string) error {
	rnd = rand.New(rand.NewSource(*seed))
	tree := buildTree()
	servers := make([]server, *nserv)
	for i := range servers {
		servers[i] = genServer()
	}
	cfg := func(_ string, ports []int) string {
		var b strings.Builder
		for i, s := range servers {
			fmt.Fprintf(&b, s.text, ports[i], dir)
		}
		return b.String()
	}
	paths := reachable(tree)
	reqs := make([]req, *n)
	for i := range reqs {
		reqs[i] = genReq(servers, paths)
	}
	if *dump {
		fmt.Print(cfg("", make([]int, len(servers))))
		for i, r := range reqs {
			fmt.Printf("%d s%d %q\n", i, r.server, r.raw())
		}
		return nil
	}
	if err := writeTree(dir, tree); err != nil {
		return err
	}
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, len(servers), cfg)
	if err != nil {
		return err
	}
	defer pair.Stop()
	if *keep {
		fmt.Printf("nginx %v mosaic %v dir %s\n", pair.NGINX.Ports, pair.Mosaic.Ports, dir)
		select {}
	}
	compare(reqs, servers, pair)
	return nil
}

// compare sends the requests one at a time (the open file cache makes
// order matter) and prints the count, then each class with examples.
func compare(reqs []req, servers []server, pair *nginxdiff.Pair) {
	classes := nginxdiff.Classes{}
	diffs, sent := 0, 0
	linked, linkedDiff := 0, 0 // requests through a link out of the root
	for i, r := range reqs {
		if *onlyOne >= 0 && i != *onlyOne {
			continue
		}
		sent++
		raw := r.raw()
		np, mp := pair.NGINX.Ports[r.server], pair.Mosaic.Ports[r.server]
		ns := send(np, raw, r.method)
		ms := send(mp, raw, r.method)
		out := outLink(r) != ""
		if out {
			linked++
		}
		if ns.equal(ms) {
			continue
		}
		if out {
			linkedDiff++
		}
		diffs++
		cls := explain(r, servers[r.server], ns, ms)
		classes.Add(cls, fmt.Sprintf("#%d s%d %q\n  nginx  %s\n  mosaic %s", i, r.server, raw, ns, ms))
	}
	fmt.Printf("requests %d, differences %d, classes %d\n", sent, diffs, len(classes))
	fmt.Printf("through a link out of the root: %d requests, %d differ\n", linked, linkedDiff)
	classes.Print(os.Stdout, *show)
}

// answer is what is compared of one response.
type answer struct {
	status int
	fields [][2]string // name, value, in the order of fieldNames
	body   string      // a hash, a listing's entries, or "error page"
	err    string
}

var fieldNames = []string{"Location", "Content-Type", "Content-Length", "ETag", "Last-Modified"}

func (a answer) equal(b answer) bool { return a.String() == b.String() }

func (a answer) String() string {
	if a.err != "" {
		return "ERR " + a.err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", a.status)
	for _, f := range a.fields {
		fmt.Fprintf(&b, " %s=%q", f[0], f[1])
	}
	fmt.Fprintf(&b, " body=%s", a.body)
	return b.String()
}

func (a answer) field(k string) string {
	for _, f := range a.fields {
		if f[0] == k {
			return f[1]
		}
	}
	return ""
}

var portRE = regexp.MustCompile(`^http://a\.test:\d+`)

// send sends one request and reduces the answer: the port in an absolute
// Location set aside, the server's own error pages taken as equal, a
// listing reduced to its entries.
func send(port int, raw, method string) answer {
	all, _, err := nginxdiff.Exchange(port, []byte(raw), 5*time.Second, 10*time.Second)
	if len(all) == 0 {
		return answer{err: fmt.Sprintf("empty answer: %v", err)}
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), &http.Request{Method: method})
	if err != nil {
		return answer{err: fmt.Sprintf("parse: %v: %.200q", err, all)}
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{err: fmt.Sprintf("body: %v", err)}
	}
	a := answer{status: resp.StatusCode}
	for _, k := range fieldNames {
		v := strings.Join(resp.Header.Values(k), "|")
		if k == "Location" {
			v = portRE.ReplaceAllString(v, "http://a.test:PORT")
		}
		if v != "" {
			a.fields = append(a.fields, [2]string{k, v})
		}
	}
	a.body = reduceBody(resp, body)
	// Each server signs its own error page, whose length then says
	// nothing; a HEAD shows no page, only its length.
	if a.body == "error page" || method == "HEAD" && resp.StatusCode >= 300 && resp.Header.Get("ETag") == "" {
		a.fields = slices.DeleteFunc(a.fields, func(f [2]string) bool { return f[0] == "Content-Length" })
	}
	return a
}

// reduceBody is what is compared of a body: an error page of the
// server's own is "error page", a listing its entries, anything else its
// length and hash.
func reduceBody(resp *http.Response, body []byte) string {
	ct := resp.Header.Get("Content-Type")
	switch {
	case resp.StatusCode >= 300 && bytes.Contains(body, []byte("<center>")):
		return "error page"
	case bytes.Contains(body, []byte("<title>Index of ")):
		return "html listing " + strconv.Quote(strings.Join(htmlEntries(body), "|"))
	case strings.HasPrefix(ct, "text/xml") && bytes.Contains(body, []byte("<list>")):
		return "xml listing " + hash(body)
	case strings.HasPrefix(ct, "application/json") && bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		var v []map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			return "bad json: " + err.Error()
		}
		c, _ := json.Marshal(v) // sorted keys, one spelling of each value
		return "json listing " + strconv.Quote(string(c))
	}
	return hash(body)
}

func hash(b []byte) string { return fmt.Sprintf("%d:%x", len(b), sha256.Sum256(b))[:20] }

var entryRE = regexp.MustCompile(`<a href="([^"]*)">([^<]*)</a>( *)([^\r\n]*)`)

// htmlEntries reads an HTML listing's lines: the link, the name shown,
// and the date and size columns with their spacing collapsed.
func htmlEntries(body []byte) []string {
	var out []string
	for _, m := range entryRE.FindAllSubmatch(body, -1) {
		out = append(out, string(m[1])+" "+string(m[2])+" "+strings.Join(strings.Fields(string(m[4])), " "))
	}
	return out
}
