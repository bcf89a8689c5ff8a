package main

import (
	"fmt"
	"hash/crc32"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/conf"
	"github.com/mosaic-edge/mosaic/server"
)

// TestDirectiveArgumentsAsNGINX gives every directive that mosaic
// registers and Debian's NGINX also knows the same table of arguments,
// in a context both allow, and compares the verdicts of "nginx -t" and
// mosaic's loader (server.Load, all that "mosaic -t" runs): a
// configuration one of them loads and the other refuses is a
// difference, unless argDifferences lists it with its reason.
//
// NGINX stops at the first error, so the probes that mosaic accepts are
// given to NGINX together, each on a line of its own; the line of NGINX's
// error names the probe it refused, which is then run alone (it may have
// failed only beside another) and taken out of the batch. The probes
// that mosaic refuses are run one by one, except those whose refusal
// NGINX's command tables decide (tableVerdict) and those whose verdict
// NGINX gave another probe of their directive from the line alone (see
// sharedVerdict).
func TestDirectiveArgumentsAsNGINX(t *testing.T) {
	nginxPath(t)
	start := time.Now()
	dir := t.TempDir()
	// Arguments that name files (access_log on) land in the directory.
	t.Chdir(dir)
	r := &argRunner{t: t, dir: dir}

	// Each directive's context, two nginx -t at a time as the probes'.
	type placed struct {
		d   server.DirectiveInfo
		ctx server.Context
		ok  bool
	}
	var dirs []*placed
	for _, d := range argDirectives() {
		dirs = append(dirs, &placed{d: d})
	}
	phase := phaseTimer(t)
	parallel(dirs, func(pl *placed) { pl.ctx, pl.ok = r.context(pl.d) })
	phase("contexts")

	var probes []*argProbe
	for _, pl := range dirs {
		if !pl.ok {
			continue
		}
		d, ctx := pl.d, pl.ctx
		for _, args := range argTable {
			p := &argProbe{name: d.Name, ctx: ctx, args: args, probe: args}
			if len(strings.Fields(args)) == 1 && d.MinArgs > 1 {
				// A directive of two or more arguments gets the value
				// in each place (proxy_buffers 1k 1k).
				p.args = strings.TrimSpace(strings.Repeat(args+" ", d.MinArgs))
			}
			probes = append(probes, p)
		}
	}
	if len(probes) == 0 {
		t.Fatal("no directive to probe")
	}

	// mosaic's verdicts, one configuration each.
	parallel(probes, func(p *argProbe) { p.mosaicErr = r.mosaic([]*argProbe{p}) })
	phase("mosaic's loads")

	// NGINX's: the refused ones alone, the accepted ones in batches.
	var good, bad []*argProbe
	for _, p := range probes {
		if p.mosaicErr == nil {
			good = append(good, p)
		} else {
			bad = append(bad, p)
		}
	}
	parallel(byArgCount(bad), r.nginxSolo)
	phase("NGINX alone")
	r.nginxBatch(good)
	phase("NGINX in batches")

	diffs, used := 0, map[*argDifference]bool{}
	for _, p := range probes {
		nginxOK, mosaicOK := p.nginxEmerg == "", p.mosaicErr == nil
		if nginxOK == mosaicOK {
			continue
		}
		if d := listedDifference(p); d != nil {
			used[d] = true
			continue
		}
		diffs++
		t.Errorf("%s \"%s %s\": nginx %s, mosaic %s", p.ctx, p.name, p.args,
			describe(nginxOK, p.nginxEmerg), describe(mosaicOK, fmt.Sprint(p.mosaicErr)))
	}
	for i := range argDifferences {
		if d := &argDifferences[i]; !used[d] {
			t.Errorf("argDifferences lists %q %q (%s), but NGINX and mosaic agree there now", d.names, d.args, d.why)
		}
	}
	t.Logf("%d probes (%d that mosaic refuses, run alone but %d refused by NGINX's tables for their number of arguments, %d as a slot's value and %d as no word of an enum or bitmask, "+
		"%d refused by NGINX for their number of arguments, %d for a flag's value and %d for a value a slot's parser refuses as another; "+
		"the tables' verdicts on %d probes of sampled directives checked by NGINX's), %d differences not listed, in %v",
		len(probes), len(bad), r.settled[fromCounts], r.settled[fromSlot], r.settled[fromWords],
		r.settled[byCount], r.settled[byFlag], r.settled[byParse], r.checked, diffs, time.Since(start).Round(time.Second))
}

// phaseTimer returns a function that logs, under name, the CPU time
// the test process and its children (the nginx -t runs) spent and the
// wall time since the last call: the split CI's budget is checked by.
func phaseTimer(t *testing.T) func(name string) {
	read := func() (self, children time.Duration, at time.Time) {
		var s, c syscall.Rusage
		// Getrusage fails only for an unknown "who".
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &s)
		_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c)
		cpu := func(u syscall.Rusage) time.Duration {
			return time.Duration(u.Utime.Nano() + u.Stime.Nano())
		}
		return cpu(s), cpu(c), time.Now()
	}
	self, children, at := read()
	return func(name string) {
		s, c, a := read()
		t.Logf("%s: CPU %v here, %v in NGINX, %v wall", name, (s - self).Round(time.Millisecond),
			(c - children).Round(time.Millisecond), a.Sub(at).Round(time.Millisecond))
		self, children, at = s, c, a
	}
}

// parallel runs f on every item, two at a time.
func parallel[T any](items []T, f func(T)) {
	var wg sync.WaitGroup
	work := make(chan T)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				f(p)
			}
		}()
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
}

// argTable is the arguments tried on each directive, written as they stand
// in the configuration ("" is none).
var argTable = []string{
	"", "0", "-1", "1", "+1", "1ms", "1s", "1500ms", "1h30m", "1k", "1K", "1m", "1M", "1g",
	"1G", "1kk", "1.5", "9223372036854775807", "10000000000000000000", "on", "ON", "off", "abc",
	"1 1", "on off", "1 1 1",
}

// argDifference is a difference of verdicts kept on purpose: for the
// directives of names (space-separated), on the probes of args (entries
// of argTable; none: any), with why.
type argDifference struct {
	names string
	args  []string
	why   string
}

// argDifferences are the verdicts that stay different, with the reason;
// server/README.md (Arguments as NGINX reads them) gives the same table.
var argDifferences = []argDifference{
	{"listen resolver", nil, "host names are resolved when mosaic binds or connects, not while the file is read (NGINX refuses a name it cannot resolve, and tries to bind an address that is not local in -t)"},
	{"set_real_ip_from", []string{"0", "1", "1.5"}, "NGINX resolves these through getaddrinfo as the inet_aton shorthands of 0.0.0.0, 0.0.0.1 and 1.0.0.5; mosaic takes addresses and networks written out"},
	{"ssl_ciphers ssl_ecdh_curve ssl_ocsp_responder ssl_stapling_responder ssl_conf_command " +
		"proxy_ssl_ciphers proxy_ssl_conf_command proxy_ssl_password_file proxy_ssl_trusted_certificate " +
		"grpc_ssl_ciphers grpc_ssl_conf_command grpc_ssl_password_file grpc_ssl_trusted_certificate " +
		"uwsgi_ssl_ciphers uwsgi_ssl_conf_command uwsgi_ssl_password_file uwsgi_ssl_trusted_certificate", nil,
		"mosaic checks a TLS value (a cipher, a curve, a URL, a file) wherever it is written; NGINX only in a server with a certificate or a location that proxies over TLS"},
	{"load_module", nil, "mosaic loads no modules and does not open the file; NGINX fails on a path that is no module"},
	{"aio", []string{"on", "ON"}, "file AIO depends on how NGINX was built (Debian's is not); mosaic ignores aio"},
	{"connection_pool_size", []string{"1m", "1M"}, "NGINX checks the connection pool against large_client_header_buffers; mosaic ignores the pool and checks its size alone"},
	{"client_header_buffer_size subrequest_output_buffer_size ssi_value_length grpc_buffer_size fastcgi_buffer_size uwsgi_buffer_size scgi_buffer_size memcached_buffer_size " +
		"large_client_header_buffers gzip_buffers output_buffers", []string{"0", "9223372036854775807"},
		"mosaic allocates these buffers and bounds them (above 0, at most what its README gives); NGINX takes any size and fails, or truncates, when it allocates"},
	{"ssl_verify_depth proxy_ssl_verify_depth grpc_ssl_verify_depth uwsgi_ssl_verify_depth", []string{"9223372036854775807"},
		"NGINX passes the depth to OpenSSL as an int, truncated; mosaic bounds it"},
	{"worker_processes", []string{"0", "9223372036854775807"}, "NGINX takes 0 (a master without workers) and any count; mosaic maps worker_processes onto GOMAXPROCS, 1 to 65536"},
	{"variables_hash_max_size variables_hash_bucket_size", []string{"0", "9223372036854775807"}, "NGINX fails to build its variables hash with these sizes; mosaic, which has no such hash, checks a number only"},
	{"proxy_cache_convert_head", []string{"off"}, "mosaic always fills a cached HEAD with a GET and refuses off rather than ignore it"},
}

// listedDifference returns the entry of argDifferences that covers p.
func listedDifference(p *argProbe) *argDifference {
	for i := range argDifferences {
		d := &argDifferences[i]
		if !slices.Contains(strings.Fields(d.names), p.name) {
			continue
		}
		if d.args == nil || slices.Contains(d.args, p.probe) {
			return d
		}
	}
	return nil
}

// argDirectives returns the registered directives the test probes: those
// without a block (a name registered twice, as upstream's "server", by
// its registration without one). Those of the events block are left out:
// nginxTest writes that block itself.
func argDirectives() []server.DirectiveInfo {
	var out []server.DirectiveInfo
	seen := map[string]bool{}
	for _, d := range server.Directives() {
		if d.Block || seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		out = append(out, d)
	}
	return out
}

// argProbe is one directive with one set of arguments and the verdicts.
type argProbe struct {
	name, args string
	probe      string // the entry of argTable
	ctx        server.Context
	mosaicErr  error
	nginxEmerg string // "" when NGINX accepts it
}

func (p *argProbe) line() string {
	if p.args == "" {
		return p.name + ";"
	}
	return p.name + " " + p.args + ";"
}

// argContexts are the contexts tried for a directive, in order, with the
// configuration that wraps it there (on one line).
var argContexts = []struct {
	ctx  server.Context
	wrap string // %d: the probe's number
}{
	{server.CtxLocation, "location /p%d { %s }"},
	{server.CtxServer, "server { listen 127.0.0.2:%d; %s }"},
	{server.CtxHTTP, "%[2]s"},
	{server.CtxUpstream, "upstream u%d { server 127.0.0.1:1; %s }"},
	{server.CtxMain, "%[2]s"},
}

type argRunner struct {
	t   *testing.T
	dir string
	n   int
	mu  sync.Mutex
	// settled counts the probes nginxSolo settled without a run, by
	// why (byCount, ..., fromWords); checked, those of sampled
	// directives whose tables' verdict NGINX's confirmed: from their own
	// run, or shared (sharedVerdict) from a run of their group.
	settled [whys]int
	checked int
}

// file writes probes into a configuration of their own and returns its
// path and the line of each probe.
func (r *argRunner) file(probes []*argProbe) (string, map[int]*argProbe) {
	path, text, lines := r.text(probes)
	writeFile(r.t, path, text)
	return path, lines
}

// text is file without the file: the path it would have, the
// configuration and the line of each probe.
func (r *argRunner) text(probes []*argProbe) (string, string, map[int]*argProbe) {
	r.mu.Lock()
	r.n++
	path := filepath.Join(r.dir, fmt.Sprintf("p%d.conf", r.n))
	r.mu.Unlock()
	var main, http, servers, locs []*argProbe
	for _, p := range probes {
		switch p.ctx {
		case server.CtxMain:
			main = append(main, p)
		case server.CtxServer:
			servers = append(servers, p)
		case server.CtxLocation:
			locs = append(locs, p)
		default:
			http = append(http, p)
		}
	}
	lines := map[int]*argProbe{}
	var b strings.Builder
	n := 0
	add := func(s string, p *argProbe) {
		n++
		b.WriteString(s + "\n")
		if p != nil {
			lines[n] = p
		}
	}
	wrap := func(i int, p *argProbe) string {
		for _, c := range argContexts {
			if c.ctx == p.ctx {
				return fmt.Sprintf(c.wrap, i+1, p.line())
			}
		}
		panic("no context")
	}
	for i, p := range main {
		add(wrap(i, p), p)
	}
	add("http {", nil)
	for i, p := range http {
		add(wrap(i, p), p)
	}
	for i, p := range servers {
		add(wrap(i, p), p)
	}
	add("server { listen 127.0.0.1:1;", nil)
	for i, p := range locs {
		add(wrap(i, p), p)
	}
	add("} }", nil)
	return path, b.String(), lines
}

// mosaic loads probes as "mosaic -t" does, from the text as if read from
// its file: the file itself is not written (thousands of files, a good
// part of the test's time on a loaded disk).
func (r *argRunner) mosaic(probes []*argProbe) error {
	path, text, _ := r.text(probes)
	cfg, err := server.LoadString(path, text)
	if err == nil {
		cfg.Close()
	}
	return err
}

var nginxErrLine = regexp.MustCompile(`\[emerg\] (.*) in (\S+):(\d+)$`)

// nginx runs "nginx -t" on probes and returns its [emerg] line ("" when it
// loads) and the probe that line names, if any.
func (r *argRunner) nginx(probes []*argProbe) (string, *argProbe) {
	path, lines := r.file(probes)
	out, err := nginxTest(r.t, path).CombinedOutput()
	if err == nil {
		return "", nil
	}
	emerg := strings.TrimSpace(string(out))
	for _, l := range strings.Split(string(out), "\n") {
		if k := strings.Index(l, "[emerg]"); k >= 0 {
			emerg = l[k:]
			if m := nginxErrLine.FindStringSubmatch(emerg); m != nil && m[2] == path {
				n, _ := strconv.Atoi(m[3])
				return emerg, lines[n]
			}
			return emerg, nil
		}
	}
	return emerg, nil
}

// byArgCount groups probes by directive, context and number of
// arguments, in their order.
func byArgCount(probes []*argProbe) [][]*argProbe {
	type key struct {
		name string
		ctx  server.Context
		n    int
	}
	index := map[key]int{}
	var groups [][]*argProbe
	for _, p := range probes {
		k := key{p.name, p.ctx, len(strings.Fields(p.args))}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], p)
	}
	return groups
}

// nginxSolo runs each probe of a group (one directive, context and
// number of arguments) alone, but a probe whose refusal NGINX's command
// tables decide (tableVerdict) is not run, and one shares the verdict of
// one run before it unrun where NGINX decided that from the line alone
// (sharedVerdict).
//
// The directives of a deterministic sample (sampled) are run as if
// there were no tables, and the tables' verdicts on them must be
// NGINX's, word for word: the tables were read from NGINX's sources,
// this holds them to Debian's binary.
func (r *argRunner) nginxSolo(group []*argProbe) {
	var ran []*argProbe
	check := sampled(group[0].name)
	for _, p := range group {
		emerg, why, known := tableVerdict(p)
		if known && !check {
			p.nginxEmerg = emerg
			r.count(why)
			continue
		}
		if !r.share(ran, p) {
			p.nginxEmerg, _ = r.nginx([]*argProbe{p})
			ran = append(ran, p)
		}
		if !known {
			continue
		}
		if got := emergText(p.nginxEmerg); got != emerg {
			r.t.Errorf("%s \"%s %s\": NGINX says %q, its command tables %q", p.ctx, p.name, p.args, got, emerg)
		}
		r.mu.Lock()
		r.checked++
		r.mu.Unlock()
	}
}

// sampled reports whether the directive name is one of the eighth whose
// probes are run even where NGINX's command tables decide their verdict.
// The sample, by a hash of the name, is the same on every run.
func sampled(name string) bool {
	return crc32.ChecksumIEEE([]byte(name))%8 == 0
}

// emergText is an [emerg] line without the file and line it names.
func emergText(emerg string) string {
	if m := nginxErrLine.FindStringSubmatch(emerg); m != nil {
		return "[emerg] " + m[1]
	}
	return emerg
}

func (r *argRunner) count(why int) {
	r.mu.Lock()
	r.settled[why]++
	r.mu.Unlock()
}

// share gives p the verdict of a probe of ran that settles it, and
// counts why; false when none does.
func (r *argRunner) share(ran []*argProbe, p *argProbe) bool {
	for _, q := range ran {
		emerg, why, ok := sharedVerdict(q, p)
		if !ok {
			continue
		}
		p.nginxEmerg = emerg
		r.count(why)
		return true
	}
	return false
}

// Why sharedVerdict or tableVerdict settled a probe.
const (
	byCount    = iota // the number of arguments
	byFlag            // a flag's value other than on or off
	byParse           // a value a slot's parser refuses (nginxSlots)
	fromCounts        // a number of arguments nginxCounts refuses
	fromSlot          // a value the directive's slot refuses (nginxSlots)
	fromWords         // no word of the directive's table (nginxWords)
	whys
)

// tableVerdict returns the refusal NGINX's command tables decide for p
// without a run, and why; false where they do not decide one.
//
// ngx_conf_handler, once it has found the directive's registration for
// the context (the test probes a directive where NGINX allows it),
// checks the number of arguments against the registration's type
// before it calls the handler: where all registrations of the name take
// the same counts (nginxCounts), another count is refused, whatever
// the arguments say. Past that check, a handler that is a slot of
// nginxSlots refuses a value its parser refuses (see sharedVerdict), and
// ngx_conf_set_enum_slot (the first argument) and
// ngx_conf_set_bitmask_slot (every argument, in turn) refuse the first
// word not in their table, in any case (nginxWords), naming it; both
// check only a duplicate first, which a probe alone has none of.
func tableVerdict(p *argProbe) (emerg string, why int, ok bool) {
	counts, listed := nginxCounts[p.name]
	if !listed {
		return "", 0, false
	}
	args := strings.Fields(p.args)
	if !takes(counts, len(args)) {
		return fmt.Sprintf("[emerg] invalid number of arguments in \"%s\" directive", p.name), fromCounts, true
	}
	if slot, ok := nginxSlots[p.name]; ok && len(args) == 1 && !slot.parses(args[0]) {
		return fmt.Sprintf("[emerg] \"%s\" directive %s", p.name, slot.refusal()), fromSlot, true
	}
	w, ok := nginxWords[p.name]
	if !ok {
		return "", 0, false
	}
	if w.enum && len(args) > 1 {
		args = args[:1]
	}
	for _, a := range args {
		if !slices.Contains(strings.Fields(w.words), strings.ToLower(a)) {
			return fmt.Sprintf("[emerg] invalid value \"%s\"", a), fromWords, true
		}
	}
	return "", 0, false
}

// takes reports whether counts, as nginxCounts writes them (digits; a
// "+" after the last: that many or more), lets n arguments through.
func takes(counts string, n int) bool {
	if more, ok := strings.CutSuffix(counts, "+"); ok {
		least, _ := strconv.Atoi(more)
		return n >= least
	}
	return n < 10 && strings.ContainsRune(counts, rune('0'+n))
}

// ngxWords is the words a directive's ngx_conf_set_enum_slot (enum) or
// ngx_conf_set_bitmask_slot takes, in lower case, space-separated.
type ngxWords struct {
	enum  bool
	words string
}

// sharedVerdict returns NGINX's verdict on p, of first's group, when
// first's, from a run, says what it is without a run, and why.
//
// NGINX checks the count in ngx_conf_handler from the directive's
// declared type before it calls the directive's handler, so that verdict
// depends on nothing else: not on the arguments' text, nor on other
// lines. (Two handlers write the same words themselves:
// worker_cpu_affinity, after "auto", which argTable never gives first,
// and include inside types, which is a block.)
//
// A value other than on or off (in any case, ngx_strcasecmp) is refused
// by ngx_conf_set_flag_slot, the only writer of that message (in NGINX's
// source and Debian's binary), before its post handler, the one part
// that could look further: only a duplicate comes first, and a probe run
// alone has none. So a directive refused with it for one such value is a
// flag, refused the same way for any other.
//
// The size, offset, number and time slots (nginxSlots) are alike: after the
// duplicate check, the value's parse alone decides, with words that do
// not name the value, before any post handler. A directive of those
// whose run refused a value the parser refuses, in those words, refuses
// any other value the parser refuses in the same words.
func sharedVerdict(first, p *argProbe) (emerg string, why int, ok bool) {
	countErr := fmt.Sprintf("invalid number of arguments in \"%s\" directive", first.name)
	if strings.Contains(first.nginxEmerg, countErr) {
		return first.nginxEmerg, byCount, true
	}
	if len(strings.Fields(first.args)) != 1 || len(strings.Fields(p.args)) != 1 {
		return "", 0, false
	}
	notFlag := func(v string) string {
		return fmt.Sprintf("invalid value \"%s\" in \"%s\" directive, it must be \"on\" or \"off\"", v, first.name)
	}
	if strings.Contains(first.nginxEmerg, notFlag(first.args)) {
		if strings.EqualFold(p.args, "on") || strings.EqualFold(p.args, "off") {
			return "", 0, false
		}
		return strings.Replace(first.nginxEmerg, notFlag(first.args), notFlag(p.args), 1), byFlag, true
	}
	slot, listed := nginxSlots[first.name]
	if !listed || !strings.Contains(first.nginxEmerg, fmt.Sprintf("\"%s\" directive %s", first.name, slot.refusal())) ||
		slot.parses(first.args) || slot.parses(p.args) {
		return "", 0, false
	}
	return first.nginxEmerg, byParse, true
}

// ngxSlot is one of NGINX's generic handlers of a one-value directive.
type ngxSlot int

const (
	sizeSlot ngxSlot = iota // ngx_conf_set_size_slot: ngx_parse_size
	offSlot                 // ngx_conf_set_off_slot: ngx_parse_offset
	numSlot                 // ngx_conf_set_num_slot: ngx_atoi
	msecSlot                // ngx_conf_set_msec_slot: ngx_parse_time, milliseconds
	secSlot                 // ngx_conf_set_sec_slot: ngx_parse_time, seconds
)

// nginxSlots are the directives whose every registration in NGINX
// 1.22.1's sources (every module and context; Debian's build), found as
// a variable's name too, takes one argument with one of the slots: the
// names of a command table's entries with ngx_conf_set_size_slot,
// ngx_conf_set_off_slot, ngx_conf_set_num_slot, ngx_conf_set_msec_slot or
// ngx_conf_set_sec_slot and NGX_CONF_TAKE1, less those registered
// elsewhere with another handler (keepalive_timeout, limit_conn_status,
// limit_req_status, variables too). Names mosaic does not register are
// never probed.
var nginxSlots = func() map[string]ngxSlot {
	m := map[string]ngxSlot{}
	for slot, names := range map[ngxSlot]string{
		sizeSlot: "client_body_buffer_size client_header_buffer_size connection_pool_size fastcgi_buffer_size " +
			"fastcgi_busy_buffers_size fastcgi_limit_rate fastcgi_max_temp_file_size fastcgi_send_lowat " +
			"fastcgi_temp_file_write_size grpc_buffer_size gzip_hash gzip_min_length gzip_window " +
			"http2_body_preread_size http2_chunk_size http2_pool_size http2_recv_buffer_size image_filter_buffer " +
			"imap_client_buffer memcached_buffer_size mp4_buffer_size mp4_max_buffer_size postpone_gzipping " +
			"postpone_output preread_buffer_size proxy_buffer proxy_buffer_size proxy_busy_buffers_size " +
			"proxy_downstream_buffer proxy_limit_rate proxy_max_temp_file_size proxy_send_lowat " +
			"proxy_temp_file_write_size proxy_upstream_buffer read_ahead request_pool_size scgi_buffer_size " +
			"scgi_busy_buffers_size scgi_limit_rate scgi_max_temp_file_size scgi_temp_file_write_size send_lowat " +
			"sendfile_max_chunk slice smtp_client_buffer ssi_min_file_chunk ssi_value_length ssl_buffer_size " +
			"subrequest_output_buffer_size uwsgi_buffer_size uwsgi_busy_buffers_size uwsgi_limit_rate " +
			"uwsgi_max_temp_file_size uwsgi_temp_file_write_size",
		offSlot: "client_max_body_size directio_alignment fastcgi_cache_max_range_offset proxy_cache_max_range_offset " +
			"scgi_cache_max_range_offset uwsgi_cache_max_range_offset worker_rlimit_core",
		numSlot: "devpoll_changes devpoll_events epoll_events eventport_events fastcgi_cache_min_uses " +
			"fastcgi_next_upstream_tries grpc_next_upstream_tries grpc_ssl_verify_depth gzip_comp_level " +
			"http2_max_concurrent_pushes http2_max_concurrent_streams http2_streams_index_size iocp_threads " +
			"keepalive_requests kqueue_changes kqueue_events map_hash_bucket_size map_hash_max_size max_errors " +
			"max_ranges memcached_gzip_flag memcached_next_upstream_tries min_delete_depth open_file_cache_min_uses " +
			"post_acceptex proxy_cache_min_uses proxy_headers_hash_bucket_size proxy_headers_hash_max_size " +
			"proxy_next_upstream_tries proxy_requests proxy_responses proxy_ssl_verify_depth " +
			"referer_hash_bucket_size referer_hash_max_size scgi_cache_min_uses scgi_next_upstream_tries " +
			"server_names_hash_bucket_size server_names_hash_max_size ssl_verify_depth types_hash_bucket_size " +
			"types_hash_max_size userid_service uwsgi_cache_min_uses uwsgi_modifier1 uwsgi_modifier2 " +
			"uwsgi_next_upstream_tries uwsgi_ssl_verify_depth variables_hash_bucket_size variables_hash_max_size " +
			"worker_aio_requests worker_rlimit_nofile",
		msecSlot: "accept_mutex_delay auth_delay auth_http_timeout client_body_timeout client_header_timeout " +
			"fastcgi_cache_lock_age fastcgi_cache_lock_timeout fastcgi_connect_timeout fastcgi_next_upstream_timeout " +
			"fastcgi_read_timeout fastcgi_send_timeout grpc_connect_timeout grpc_next_upstream_timeout " +
			"grpc_read_timeout grpc_send_timeout keepalive_time lingering_time lingering_timeout " +
			"memcached_connect_timeout memcached_next_upstream_timeout memcached_read_timeout " +
			"memcached_send_timeout preread_timeout proxy_cache_lock_age proxy_cache_lock_timeout " +
			"proxy_connect_timeout proxy_next_upstream_timeout proxy_protocol_timeout proxy_read_timeout " +
			"proxy_send_timeout proxy_timeout resolver_timeout scgi_cache_lock_age scgi_cache_lock_timeout " +
			"scgi_connect_timeout scgi_next_upstream_timeout scgi_read_timeout scgi_send_timeout send_timeout " +
			"smtp_greeting_delay ssl_handshake_timeout timeout timer_resolution uwsgi_cache_lock_age " +
			"uwsgi_cache_lock_timeout uwsgi_connect_timeout uwsgi_next_upstream_timeout uwsgi_read_timeout " +
			"uwsgi_send_timeout worker_shutdown_timeout",
		secSlot: "open_file_cache_valid ssl_session_timeout",
	} {
		for _, n := range strings.Fields(names) {
			m[n] = slot
		}
	}
	return m
}()

// refusal is the words the slot refuses a value with.
func (s ngxSlot) refusal() string {
	if s == numSlot {
		return "invalid number"
	}
	return "invalid value"
}

// parses reports whether the slot's parser takes v. mosaic's loader reads
// these values with conf's parsers, written to NGINX's rules on amd64
// (size_t, off_t and ngx_int_t all bounded by 2^63-1); TestSlotParsersAsNGINX
// holds them to NGINX's verdicts, which is what lets a refused probe's
// verdict stand for another value the parser refuses.
func (s ngxSlot) parses(v string) bool {
	var err error
	switch s {
	case numSlot:
		_, ok := conf.Atoi(v)
		return ok
	case offSlot:
		_, err = conf.ParseOffset(v)
	case msecSlot:
		_, err = conf.ParseTime(v)
	case secSlot:
		_, err = conf.ParseSeconds(v)
	default:
		_, err = conf.ParseSize(v)
	}
	return err == nil
}

// TestSlotParsersAsNGINX checks the parsers nginxSlots' sharing relies
// on against NGINX: one directive of each slot, alone with each value
// of argTable, is refused in the slot's words exactly when the slot's
// parser (parses) refuses the value.
func TestSlotParsersAsNGINX(t *testing.T) {
	nginxPath(t)
	t.Parallel()
	r := &argRunner{t: t, dir: t.TempDir()}
	for _, name := range []string{"client_body_buffer_size", "client_max_body_size", "keepalive_requests",
		"send_timeout", "open_file_cache_valid"} {
		slot := nginxSlots[name]
		for _, v := range argTable {
			if len(strings.Fields(v)) != 1 {
				continue
			}
			emerg, _ := r.nginx([]*argProbe{{name: name, ctx: server.CtxHTTP, args: v}})
			refused := strings.Contains(emerg, fmt.Sprintf("\"%s\" directive %s", name, slot.refusal()))
			if refused == slot.parses(v) {
				t.Errorf("%s %s: NGINX says %q, the slot's parser takes it: %v", name, v, emerg, slot.parses(v))
			}
		}
	}
}

// nginxBatch runs probes together, at most one of a directive per
// configuration (two would be duplicates): a probe NGINX's error names,
// or found by halving when the error names none, is run alone. The
// batches, of disjoint probes, are settled two at a time.
func (r *argRunner) nginxBatch(probes []*argProbe) {
	byArgs := map[string][]*argProbe{}
	var keys []string
	for _, p := range probes {
		if byArgs[p.args] == nil {
			keys = append(keys, p.args)
		}
		byArgs[p.args] = append(byArgs[p.args], p)
	}
	sort.Strings(keys)
	parallel(keys, func(k string) { r.settle(byArgs[k]) })
}

// settle finds NGINX's verdict for every probe of a batch.
func (r *argRunner) settle(batch []*argProbe) {
	for len(batch) > 0 {
		emerg, named := r.nginx(batch)
		if emerg == "" {
			return
		}
		if len(batch) == 1 {
			batch[0].nginxEmerg = emerg
			return
		}
		if named == nil {
			half := len(batch) / 2
			r.settle(batch[:half])
			r.settle(batch[half:])
			return
		}
		named.nginxEmerg, _ = r.nginx([]*argProbe{named})
		rest := batch[:0:0]
		for _, p := range batch {
			if p != named {
				rest = append(rest, p)
			}
		}
		batch = rest
	}
}

// context returns the first context, in argContexts' order, that mosaic
// allows d in and NGINX knows it in; false if NGINX does not know it.
func (r *argRunner) context(d server.DirectiveInfo) (server.Context, bool) {
	for _, c := range argContexts {
		if d.Context&c.ctx == 0 {
			continue
		}
		// Twelve arguments: too many or wrong for every directive, so
		// that NGINX's error says whether it knows the name here.
		p := &argProbe{name: d.Name, ctx: c.ctx, args: strings.TrimSpace(strings.Repeat("x ", 12))}
		emerg, _ := r.nginx([]*argProbe{p})
		switch {
		case strings.Contains(emerg, "unknown directive"):
			return 0, false
		case strings.Contains(emerg, "is not allowed here"):
			continue
		}
		return c.ctx, true
	}
	return 0, false
}

func describe(ok bool, why string) string {
	if ok {
		return "accepts"
	}
	return "refuses (" + why + ")"
}

// The sizes of response buffering, which mosaic ignores, are checked
// against each other at every level as NGINX checks them: what one
// server loads, the other does.
func TestBufferSizesCheckedAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, conf := range []string{
		`proxy_buffer_size 16k;`,
		`proxy_buffer_size 16k; proxy_buffers 8 16k;`,
		`proxy_buffers 4 256k; proxy_buffer_size 128k; proxy_busy_buffers_size 256k;`,
		`proxy_buffers 1 8k;`,
		`proxy_buffers 4 16k; proxy_busy_buffers_size 64k;`,
		`proxy_temp_file_write_size 2k;`,
		`server { location / { proxy_buffers 2 4k; } }`,
		`proxy_busy_buffers_size 16k; server { location / { proxy_buffers 3 8k; } }`,
		`fastcgi_max_temp_file_size 0;`,
		`fastcgi_max_temp_file_size 1k;`,
		`fastcgi_buffer_size 32k;`,
		`fastcgi_buffers 16 16k; fastcgi_buffer_size 32k;`,
		`uwsgi_temp_file_write_size 2k;`,
		`uwsgi_buffers 2 4k; uwsgi_busy_buffers_size 4k;`,
		`grpc_buffer_size 1m;`,
		// Sizes whose double passes int64 and any count of buffers:
		// NGINX's arithmetic is that of size_t.
		`proxy_buffers 3 9223372036854775807; proxy_max_temp_file_size 0;`,
		`fastcgi_buffers 3 4611686018427387904; fastcgi_max_temp_file_size 0;`,
		`proxy_buffer_size 4611686018427387904; proxy_max_temp_file_size 0;`,
		`proxy_buffers 2000000 4k;`,
	} {
		mout, merr, emerg := testBoth(t, dir, i, conf)
		if (merr == nil) != (emerg == "") {
			t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}

// An upstream zone needs a size of at least eight pages on one of the
// zone lines of its name, in NGINX and in mosaic; two lines that size
// one zone differently are refused by both.
func TestUpstreamZoneSizesAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, conf := range []string{
		`upstream u { zone z; server 127.0.0.1:1; }`,
		`upstream u { zone z 64k; server 127.0.0.1:1; } upstream v { zone z; server 127.0.0.1:2; }`,
		`upstream v { zone z; server 127.0.0.1:2; } upstream u { zone z 64k; server 127.0.0.1:1; }`,
		`upstream u { zone z 1k; server 127.0.0.1:1; }`,
		`upstream u { zone z 32k; server 127.0.0.1:1; }`,
		`upstream u { zone z 64k; server 127.0.0.1:1; } upstream v { zone z 128k; server 127.0.0.1:2; }`,
		`upstream u { zone z 64k; server 127.0.0.1:1; } upstream v { zone z 64k; server 127.0.0.1:2; }`,
		`upstream u { zone z 64k; server 127.0.0.1:1; } upstream v { zone z; server 127.0.0.1:2; } upstream w { zone z 65536; server 127.0.0.1:3; }`,
	} {
		mout, merr, emerg := testBoth(t, dir, i, conf)
		if (merr == nil) != (emerg == "") {
			t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}

// The directives of the upstream block whose names the http level has
// too (keepalive_requests, keepalive_timeout, keepalive_time), which
// TestDirectiveArgumentsAsNGINX probes at the http level only, read their
// arguments as NGINX's.
func TestUpstreamArgumentsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	i := 0
	for _, name := range []string{"keepalive_requests", "keepalive_timeout", "keepalive_time"} {
		for _, arg := range []string{"0", "+1", "1500ms", "1M", "9223372036854775807", "10000000000000000000"} {
			conf := fmt.Sprintf("upstream u { server 127.0.0.1:1; %s %s; }", name, arg)
			mout, merr, emerg := testBoth(t, dir, i, conf)
			i++
			if (merr == nil) != (emerg == "") {
				t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
			}
		}
	}
}

// The parameters of proxy_cache_path that tune NGINX's cache loader and
// manager, which mosaic accepts without effect, are still checked as
// NGINX checks them: a word where a number, a time or on|off belongs is
// refused by both.
func TestCachePathParametersAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	i := 0
	for _, p := range []string{"use_temp_path=off", "use_temp_path=abc", "loader_files=0", "loader_files=abc",
		"manager_files=-1", "loader_sleep=50ms", "loader_sleep=abc", "loader_threshold=1M", "manager_sleep=1500ms",
		"manager_threshold=abc", "min_free=1g", "min_free=abc", "loader_files="} {
		conf := fmt.Sprintf("proxy_cache_path %s keys_zone=a:1m %s;", filepath.Join(dir, "cache"), p)
		mout, merr, emerg := testBoth(t, dir, i, conf)
		i++
		if (merr == nil) != (emerg == "") {
			t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}

// limit_req's burst= and delay= are numbers as ngx_atoi reads them, up
// to int64's limit, in NGINX and in mosaic.
func TestLimitReqArgumentsAsNGINX(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, args := range []string{"burst=9223372036854775807", "burst=5 delay=9223372036854775807",
		"burst=10000000000000000000", "burst=+5", "burst=0", "burst=5 delay=0"} {
		conf := "limit_req_zone $binary_remote_addr zone=z:1m rate=1r/s; limit_req zone=z " + args + ";"
		mout, merr, emerg := testBoth(t, dir, i, conf)
		if (merr == nil) != (emerg == "") {
			t.Errorf("%s: nginx says %q, mosaic %v: %s", conf, emerg, merr, mout)
		}
	}
}
