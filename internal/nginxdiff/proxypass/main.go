// Command proxypass draws random server blocks whose locations proxy to
// an origin of its own (proxy_pass with and without a URI part, with
// variables, to an upstream group, after rewrites and internal
// redirects, with the proxy_* settings that change the request and the
// answer), checks each with both servers' -t, serves the ones both
// accept from Debian's NGINX and from mosaic, sends the same random
// requests to both over raw sockets, and prints where what the origin
// got or what the client got differs. See ../README.md.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

var (
	n    = flag.Int("n", 100, "configurations to draw")
	per  = flag.Int("r", 20, "requests per configuration")
	seed = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same configurations and requests every run)")
	show = flag.Int("show", 3, "examples printed per class")
	dump = flag.Bool("dump", false, "print the configurations and requests that -seed draws, and send nothing")
)

func main() { nginxdiff.Main("proxypass", run) }

func run(dir string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("origin: %w", err)
	}
	defer ln.Close()
	o := &origin{}
	go o.serve(ln)
	g := &gen{r: rand.New(rand.NewSource(*seed)), oport: ln.Addr().(*net.TCPAddr).Port}
	rep := report{classes: nginxdiff.Classes{}, refusals: map[string]int{}}
	for i := range *n {
		c := g.config()
		reqs := make([]request, *per)
		for j := range reqs {
			reqs[j] = g.request(c)
		}
		if *dump {
			fmt.Printf("== config %d\n%s", i, c.text)
			for j, r := range reqs {
				fmt.Printf("%d.%d %q\n", i, j, r.raw())
			}
			continue
		}
		// Four work directories in turn: a server killed at the end of
		// one configuration may still be going when the next starts.
		if err := rep.config(i, c, reqs, o, filepath.Join(dir, strconv.Itoa(i%4))); err != nil {
			return err
		}
	}
	if !*dump {
		rep.print()
	}
	return nil
}

// report counts the configurations and requests and keeps the
// differences by class.
type report struct {
	configs, refusedBoth, served, requests, diffs int
	classes                                       nginxdiff.Classes
	refusals                                      map[string]int // NGINX's message for those both refuse
}

func (rep *report) add(cls, example string) {
	rep.diffs++
	rep.classes.Add(cls, example)
}

// cfgFunc makes c's text a configuration for nginxdiff, with the
// server's own port.
func cfgFunc(c conf) nginxdiff.Config {
	return func(_ string, ports []int) string {
		return strings.ReplaceAll(c.text, "LISTENPORT", strconv.Itoa(ports[0]))
	}
}

// config runs one configuration: both -t verdicts, then, where both
// accept it, the requests.
func (rep *report) config(i int, c conf, reqs []request, o *origin, dir string) error {
	rep.configs++
	nv, mv, err := nginxdiff.Test(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, cfgFunc(c))
	if err != nil {
		return err
	}
	if nv.OK != mv.OK {
		rep.add(fmt.Sprintf("-t nginx=%v mosaic=%v", nv.OK, mv.OK),
			fmt.Sprintf("config %d\n%s  nginx  %s\n  mosaic %s", i, c.text, lastLine(nv.Out), lastLine(mv.Out)))
		return nil
	}
	if !nv.OK {
		rep.refusedBoth++
		rep.refusals[refusal(nv.Out)]++
		return nil
	}
	rep.served++
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, cfgFunc(c))
	if err != nil {
		return err
	}
	defer pair.Stop()
	np, mp := pair.NGINX.Ports[0], pair.Mosaic.Ports[0]
	for j, r := range reqs {
		rep.requests++
		a := exchange(o, np, r)
		b := exchange(o, mp, r)
		if a.String() == b.String() {
			continue
		}
		cls := explain(r, a, b, !strings.Contains(c.text, "merge_slashes off")) + what(a, b)
		rep.add(cls, fmt.Sprintf("%d.%d %s %q\n  %s\n  answer %d %q\n  nginx  %s\n  mosaic %s", i, j, r.kind, r.raw(), c.text, r.answer.status, r.answer.lines, a, b))
	}
	return nil
}

// refusal is the gist of NGINX's -t message: the words before "in" and
// the file's name.
func refusal(out string) string {
	l := lastLine(out)
	if _, m, ok := strings.Cut(l, "[emerg] "); ok {
		l = m
	}
	l, _, _ = strings.Cut(l, " in /")
	return l
}

// lastLine is the line of a -t output that says what is wrong.
func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range ls {
		if strings.Contains(l, "emerg") || strings.Contains(l, "rror") {
			return l
		}
	}
	return ls[len(ls)-1]
}

// outcome is what is compared of one request: the status, what the
// origin got, and the answer's Location, Refresh and Set-Cookie, the
// server's own port replaced by PORT.
type outcome struct {
	status                     string
	origin                     []record
	location, refresh, cookies string
}

func (o outcome) String() string {
	return fmt.Sprintf("status=%s origin=%v location=%q refresh=%q cookie=%q", o.status, o.origin, o.location, o.refresh, o.cookies)
}

// exchange sends r to port with the origin set to r's answer.
func exchange(o *origin, port int, r request) outcome {
	o.set(r.answer)
	all, _, err := nginxdiff.Exchange(port, []byte(r.raw()), 5*time.Second, 5*time.Second)
	p := ":" + strconv.Itoa(port)
	out := outcome{origin: o.take()}
	// $server_port in a header sent upstream names each server's own.
	for i := range out.origin {
		for j, h := range out.origin[i].hdr {
			out.origin[i].hdr[j] = strings.ReplaceAll(h, p, ":PORT")
		}
	}
	if len(all) == 0 {
		out.status = fmt.Sprintf("no answer (%v)", err)
		return out
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(all)), &http.Request{Method: r.method})
	if err != nil {
		out.status = fmt.Sprintf("unreadable %q", all)
		return out
	}
	io.Copy(io.Discard, resp.Body)
	norm := func(k string) string {
		return strings.ReplaceAll(strings.Join(resp.Header.Values(k), " | "), p, ":PORT")
	}
	out.status = strconv.Itoa(resp.StatusCode)
	out.location, out.refresh, out.cookies = norm("Location"), norm("Refresh"), norm("Set-Cookie")
	return out
}

// what names the parts of two outcomes that differ: of what the origin
// got, the number of requests, the request line, each header field by
// name, the body.
func what(a, b outcome) string {
	var d []string
	if a.status != b.status {
		d = append(d, "status")
	}
	switch {
	case len(a.origin) != len(b.origin):
		d = append(d, fmt.Sprintf("upstream-requests:%d/%d", len(a.origin), len(b.origin)))
	default:
		for i := range a.origin {
			ra, rb := a.origin[i], b.origin[i]
			if ra.line != rb.line {
				d = append(d, "line")
			}
			d = append(d, fieldsDiffer(ra.hdr, rb.hdr)...)
			if ra.body != rb.body {
				d = append(d, "body")
			}
		}
	}
	for _, f := range []struct {
		name string
		a, b string
	}{{"Location", a.location, b.location}, {"Refresh", a.refresh, b.refresh}, {"Set-Cookie", a.cookies, b.cookies}} {
		if f.a != f.b {
			d = append(d, "client:"+f.name)
		}
	}
	return strings.Join(d, ",")
}

// fieldsDiffer names the header fields (lower case) whose lines differ,
// "+name" where only NGINX sent it, "-name" where only mosaic did.
func fieldsDiffer(a, b []string) []string {
	vals := func(h []string) map[string]string {
		m := map[string]string{}
		for _, l := range h {
			k, v, _ := strings.Cut(l, ":")
			m[strings.ToLower(k)] += v + "\n"
		}
		return m
	}
	ma, mb := vals(a), vals(b)
	var d []string
	for k, v := range ma {
		switch w, ok := mb[k]; {
		case !ok:
			d = append(d, "+"+k)
		case w != v:
			d = append(d, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			d = append(d, "-"+k)
		}
	}
	sort.Strings(d)
	return d
}

func (rep *report) print() {
	fmt.Printf("configurations %d (refused by both %d, served %d), requests %d, differences %d, classes %d\n",
		rep.configs, rep.refusedBoth, rep.served, rep.requests, rep.diffs, len(rep.classes))
	rs := make([]string, 0, len(rep.refusals))
	for k := range rep.refusals {
		rs = append(rs, k)
	}
	sort.Strings(rs)
	for _, k := range rs {
		fmt.Printf("refused by both %5d %s\n", rep.refusals[k], k)
	}
	rep.classes.Print(os.Stdout, *show)
	os.Stdout.Sync()
}
