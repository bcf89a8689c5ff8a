// Command gateway sends requests to Debian's NGINX and to mosaic on the
// same configuration, whose FastCGI, SCGI and uwsgi applications (in the
// tool) answer each with a randomly drawn answer, malformed as often as
// not, and prints where the two servers' answers differ. See ../README.md.
package main

import (
	"flag"
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nginxdiff"
)

var (
	n    = flag.Int("n", 1000, "pairs of requests to send (each pair over one client connection)")
	seed = flag.Int64("seed", 1, "seed of the generator (math/rand: a seed gives the same cases every run)")
	show = flag.Int("show", 3, "examples printed per class")
	only = flag.String("only", "", "send only the pairs whose first case is one of these numbers (comma-separated)")
)

// locations, by the first letter of the path: which gateway and which
// settings answer.
var locations = []string{"f", "k", "b", "i", "c", "s", "u"}

func config(fport, sport, uport int) nginxdiff.Config {
	return func(dir string, ports []int) string {
		return fmt.Sprintf(`upstream fk { server 127.0.0.1:%[2]d; keepalive 4; }
	fastcgi_cache_path %[5]s keys_zone=fz:1m;
	fastcgi_read_timeout 2s; scgi_read_timeout 2s; uwsgi_read_timeout 2s;
	fastcgi_buffer_size 4k; scgi_buffer_size 4k; uwsgi_buffer_size 4k;
	fastcgi_param REQUEST_URI $request_uri; scgi_param REQUEST_URI $request_uri; uwsgi_param REQUEST_URI $request_uri;
	server { listen 127.0.0.1:%[1]d;
		location /f/ { fastcgi_pass 127.0.0.1:%[2]d; }
		location /k/ { fastcgi_pass fk; fastcgi_keep_conn on; }
		location /b/ { fastcgi_pass 127.0.0.1:%[2]d; fastcgi_buffering off; }
		location /i/ { fastcgi_pass 127.0.0.1:%[2]d; fastcgi_intercept_errors on; error_page 404 500 503 /local/errpage; }
		location /c/ { fastcgi_pass 127.0.0.1:%[2]d; fastcgi_cache fz; fastcgi_cache_key $request_uri; fastcgi_cache_valid 200 301 302 404 10m; }
		location /s/ { scgi_pass 127.0.0.1:%[3]d; }
		location /u/ { uwsgi_pass 127.0.0.1:%[4]d; }
		location /local/ { return 200 "LOCAL $request_method $uri $args\n"; }
		location @named { return 200 "NAMED\n"; }
	}
`, ports[0], fport, sport, uport, filepath.Join(dir, "cache"))
	}
}

func main() { nginxdiff.Main("gateway", run) }

func run(dir string) error {
	var aports []int
	for _, app := range []func(net.Conn){fcgiApp, scgiApp, uwsgiApp} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("application: %w", err)
		}
		defer ln.Close()
		go serve(ln, app)
		aports = append(aports, ln.Addr().(*net.TCPAddr).Port)
	}
	pair, err := nginxdiff.Start(*nginxdiff.NGINXBin, *nginxdiff.MosaicBin, dir, 1, config(aports[0], aports[1], aports[2]))
	if err != nil {
		return err
	}
	defer pair.Stop()
	compare(pair)
	return nil
}

// tcase is one pair: two requests pipelined over one connection.
type tcase struct {
	index   int
	loc     string
	cases   [2]int
	methods [2]string
}

func (t tcase) raw() string {
	return fmt.Sprintf("%s /%s/%d HTTP/1.1\r\nHost: a.test\r\n\r\n%s /%s/%d HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n",
		t.methods[0], t.loc, t.cases[0], t.methods[1], t.loc, t.cases[1])
}

func genCase(r *rand.Rand, i int) tcase {
	t := tcase{index: i, loc: locations[r.Intn(len(locations))], cases: [2]int{2 * i, 2*i + 1}}
	for j := range t.methods {
		t.methods[j] = "GET"
		if r.Intn(6) == 0 {
			t.methods[j] = "HEAD"
		}
	}
	if t.loc == "c" { // the same answer twice: a miss, then a hit
		t.cases[1] = t.cases[0]
	}
	return t
}

// compare sends the pairs one at a time (the error logs' new lines then
// belong to the pair) and prints each difference, then the count per
// class with examples.
func compare(p *nginxdiff.Pair) {
	r := rand.New(rand.NewSource(*seed))
	onlySet := map[int]bool{}
	for _, s := range strings.Split(*only, ",") {
		var k int
		if _, err := fmt.Sscan(s, &k); err == nil {
			onlySet[k] = true
		}
	}
	nlog := &logTail{path: filepath.Join(p.NGINX.Dir, "error.log")}
	mlog := &logTail{path: filepath.Join(p.Mosaic.Dir, "error.log")}
	classes := nginxdiff.Classes{}
	diffs := 0
	for i := range *n {
		t := genCase(r, i)
		if len(onlySet) > 0 && !onlySet[t.cases[0]] {
			continue
		}
		raw := t.raw()
		nlog.skip()
		mlog.skip()
		ns := exchange(p.NGINX.Ports[0], t, nlog)
		ms := exchange(p.Mosaic.Ports[0], t, mlog)
		if ns.String() == ms.String() {
			continue
		}
		diffs++
		cls := classify(t, ns, ms)
		ex := fmt.Sprintf("#%d %q\n  case %d %s\n  case %d %s\n  nginx  %s\n  mosaic %s", i, raw,
			t.cases[0], draw(t.cases[0]).describe(), t.cases[1], draw(t.cases[1]).describe(), ns, ms)
		classes.Add(cls, ex)
	}
	fmt.Printf("pairs %d, differences %d, classes %d\n", *n, diffs, len(classes))
	classes.Print(os.Stdout, *show)
}

// describe names what the case drew and shows its stream.
func (a *answer) describe() string {
	s := fmt.Sprintf("%v %q", a.tags, a.stream)
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// outcome is what is compared of one pair's exchange.
type outcome struct {
	answers []reply
	err     string // what could not be parsed of what followed
	closed  bool
	logs    []string // the error-log classes, when an answer is a 502 or 504
}

func (o outcome) String() string {
	var b strings.Builder
	for _, a := range o.answers {
		b.WriteString(a.String() + " ")
	}
	if o.err != "" {
		b.WriteString("ERR:" + o.err + " ")
	}
	if o.closed {
		b.WriteString("closed")
	} else {
		b.WriteString("open")
	}
	if len(o.logs) > 0 {
		fmt.Fprintf(&b, " log%q", o.logs)
	}
	return b.String()
}

func exchange(port int, t tcase, log *logTail) outcome {
	got, closed, err := nginxdiff.Exchange(port, []byte(t.raw()), 3*time.Second, 6*time.Second)
	o := outcome{closed: closed}
	if err != nil {
		o.err = err.Error()
		return o
	}
	o.answers, o.err = parseAnswers(got, t.methods[:])
	for _, a := range o.answers {
		if a.status == 502 || a.status == 504 {
			// Give an asynchronous logger a moment.
			time.Sleep(20 * time.Millisecond)
			o.logs = log.classes()
			break
		}
	}
	return o
}

// logTail reads what a server's error log gained since skip.
type logTail struct {
	path string
	off  int64
}

func (l *logTail) skip() {
	if fi, err := os.Stat(l.path); err == nil {
		l.off = fi.Size()
	}
}

// errClass keeps an error line's message up to its context (NGINX's
// "while ..." or the value after a colon), without quoted
// values and numbers: "upstream sent invalid header".
var (
	errLine  = regexp.MustCompile(`\[(?:error|crit|alert)\] (?:\d+#\d+: )?(?:\*\d+ )?(.*)|level=(?:error|ERROR) msg="([^"]*)"`)
	errStrip = regexp.MustCompile(`"[^"]*"|\d+|\(.*\)`)
)

func (l *logTail) classes() []string {
	b, err := os.ReadFile(l.path)
	if err != nil || int64(len(b)) < l.off {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b[l.off:]), "\n") {
		m := errLine.FindStringSubmatch(line)
		if m == nil || strings.Contains(line, "sent in stderr") {
			// STDERR's lines: NGINX logs those it reads, which depends on
			// how far it reads after the head (not at all for HEAD).
			continue
		}
		msg := m[1] + m[2]
		for _, sep := range []string{" while ", ":"} {
			if i := strings.Index(msg, sep); i >= 0 {
				msg = msg[:i]
			}
		}
		out = append(out, strings.TrimSpace(errStrip.ReplaceAllString(msg, "")))
	}
	return out
}
