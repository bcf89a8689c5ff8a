package ssi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/internal/pcre"
	"github.com/mosaic-edge/mosaic/internal/percent"
)

// document is one response being processed: NGINX's per-request SSI
// context (encoding, errmsg, timefmt, the if/block state) and the queue
// that keeps the output in page order while includes are fetched.
type document struct {
	h  *handler
	r  *http.Request
	sh *shared
	w  io.Writer
	p  *Parser

	encoding     string // "entity" (NGINX's default), "url", "none"
	errmsg       string
	timefmt      string
	output       bool // the text and commands at this point are carried out
	outputChosen bool // a branch of the current if was taken
	conditional  int  // 0, condIf after if/elif, condElse after else
	inBlock      bool // between block and endblock: recording
	queue        []*piece
	held         int           // bytes of the page's text in the queue
	pending      []func()      // includes met and not started yet (launch)
	slots        chan struct{} // bounds the includes of this document in flight
	wake         chan struct{} // an include moved on (incBody.poke), or ended
	err          error         // the client's connection failed, or a *tooBigError
}

// maxParallel bounds the includes one document fetches at a time; the
// others start as these end. It is per document, not per page, so that a
// fragment waiting for its own includes never holds the slot they need.
const maxParallel = 32

const (
	condIf   = 1
	condElse = 2
)

// piece is output in page order: text that waits behind an include not
// written yet, or an include's body.
type piece struct {
	data []byte
	inc  *incBody // nil for text
}

func (h *handler) newDocument(r *http.Request, sh *shared, w io.Writer) *document {
	d := &document{h: h, r: r, sh: sh, w: w, encoding: "entity", errmsg: DefaultErrorMessage,
		timefmt: DefaultTimeFormat, output: true}
	d.p = NewParser(h.opts.ValueLength, d.event)
	return d
}

// feed parses b a piece of IncludeBuffer at a time, draining after each:
// the page's text queued behind an include stays bounded (drain) however
// much of the page one write hands over.
func (d *document) feed(b []byte) error {
	for n := d.h.opts.IncludeBuffer; len(b) > n; b = b[n:] {
		d.p.Feed(b[:n])
		d.drain(false)
	}
	d.p.Feed(b)
	d.drain(false)
	return d.err
}

// close ends the page and writes what its includes still owe, in order.
func (d *document) close() {
	d.p.Close()
	d.drain(true)
}

// write puts b out, behind whatever is still awaited.
func (d *document) write(b []byte) {
	if len(b) == 0 || d.err != nil {
		return
	}
	if len(d.queue) > 0 {
		d.queue = append(d.queue, &piece{data: bytes.Clone(b)})
		d.held += len(b)
		return
	}
	d.out(b)
}

// out writes b to the client, unless a write has failed.
func (d *document) out(b []byte) {
	if d.err != nil || len(b) == 0 {
		return
	}
	if _, err := d.w.Write(b); err != nil {
		d.err = errors.Join(errWrite, err)
	}
}

// abandon makes the includes still in the queue stop reading: their
// bodies will not be written.
func (d *document) abandon() {
	for _, pc := range d.queue {
		if pc.inc != nil {
			pc.inc.abandon()
		}
	}
}

// drain writes the queue's head as far as it has come; with wait, all of
// it, waiting for each include in turn while the others go on. Without
// wait it still waits while more than IncludeBuffer bytes of the page's
// text are queued behind an include: the page is read no further, as
// NGINX reads no more of a page whose buffers wait behind an include.
func (d *document) drain(wait bool) {
	for {
		d.launch()
		if len(d.queue) == 0 {
			return
		}
		if d.err != nil {
			d.abandon() // nothing more goes out: the includes stop reading
		}
		pc := d.queue[0]
		if pc.inc == nil {
			d.queue[0] = nil
			d.queue = d.queue[1:]
			d.held -= len(pc.data)
			d.out(pc.data)
			continue
		}
		p, done := pc.inc.take()
		switch {
		case len(p) > 0:
			d.out(p)
			pc.inc.release(p)
		case done:
			d.queue[0] = nil
			d.queue = d.queue[1:]
		case !wait && d.held <= d.h.opts.IncludeBuffer:
			return
		default:
			<-d.wake
		}
	}
}

func (d *document) event(ev *Event) {
	switch ev.Kind {
	case Text:
		switch {
		case d.output:
			d.write(ev.Data)
		case d.inBlock:
			d.appendBlock(ev.Data)
		}
	case Invalid:
		d.fail(ssiError("%s", ev.Err))
	case Command:
		err := d.command(ev.Name, ev.Params)
		var big *tooBigError
		switch {
		case errors.As(err, &big):
			d.h.logf(d.r, err)
			d.err = err // nothing more is written, and the request ends
		case err != nil:
			d.fail(err)
		}
	}
}

// tooBigError is an include set= whose response is longer than the
// variable may hold: it ends the request (aborted).
type tooBigError struct {
	uri   string
	limit int64
}

func (e *tooBigError) Error() string {
	return fmt.Sprintf(`too big subrequest response: include "%s" answered more than %d bytes (subrequest_output_buffer_size)`, e.uri, e.limit)
}

// fail logs a command's error and puts errmsg in its place, unless errors
// are silent. NGINX does so even where the output is off.
func (d *document) fail(err error) {
	d.h.logf(d.r, err)
	if !d.h.opts.SilentErrors {
		d.write([]byte(d.errmsg))
	}
}

func (d *document) appendBlock(b []byte) {
	d.sh.mu.Lock()
	defer d.sh.mu.Unlock()
	if n := len(d.sh.blocks); n > 0 {
		d.sh.blocks[n-1].body = append(d.sh.blocks[n-1].body, b...)
	}
}

// commandSpec is a command's parameters, conditional level and whether it
// runs where the output is off (endblock).
type commandSpec struct {
	params    []string // the allowed parameter names
	mandatory []string
	cond      int
	always    bool
	run       func(d *document, p map[string]string) error
}

var commands map[string]*commandSpec

func init() {
	commands = map[string]*commandSpec{
		"include":  {params: []string{"virtual", "file", "wait", "set", "stub"}, run: (*document).include},
		"echo":     {params: []string{"var", "default", "encoding"}, mandatory: []string{"var"}, run: (*document).echo},
		"config":   {params: []string{"errmsg", "timefmt"}, run: (*document).config},
		"set":      {params: []string{"var", "value"}, mandatory: []string{"var", "value"}, run: (*document).set},
		"if":       {params: []string{"expr"}, mandatory: []string{"expr"}, run: (*document).ifCommand},
		"elif":     {params: []string{"expr"}, mandatory: []string{"expr"}, cond: condIf, run: (*document).elif},
		"else":     {cond: condIf, run: (*document).elseCommand},
		"endif":    {cond: condElse, run: (*document).endif},
		"block":    {params: []string{"name"}, mandatory: []string{"name"}, run: (*document).block},
		"endblock": {always: true, run: (*document).endblock},
	}
}

// command checks a command as NGINX's body filter does, then runs it.
func (d *document) command(name string, params []Param) error {
	spec := commands[name]
	if spec == nil {
		if d.output {
			return ssiError(`invalid SSI command: "%s"`, name)
		}
		return nil
	}
	if !d.output && !spec.always {
		if d.inBlock {
			// A command within a block is kept as text, rebuilt with
			// double quotes, for the stub that will show it.
			var b strings.Builder
			b.WriteString("<!--#" + name)
			for _, p := range params {
				b.WriteString(" " + p.Name + `="` + p.Value + `"`)
			}
			b.WriteString(" -->")
			d.appendBlock([]byte(b.String()))
			return nil
		}
		if spec.cond == 0 {
			return nil
		}
	}
	if spec.cond != 0 && (d.conditional == 0 || d.conditional > spec.cond) {
		return ssiError(`invalid context of SSI command: "%s"`, name)
	}
	if len(params) > maxParams {
		return ssiError(`too many SSI command parameters: "%s"`, name)
	}
	got := make(map[string]string, len(params))
	for _, p := range params {
		known := false
		for _, n := range spec.params {
			known = known || n == p.Name
		}
		if !known {
			return ssiError(`invalid parameter name: "%s" in "%s" SSI command`, p.Name, name)
		}
		if _, dup := got[p.Name]; dup {
			return ssiError(`duplicate "%s" parameter in "%s" SSI command`, p.Name, name)
		}
		got[p.Name] = p.Value
	}
	for _, n := range spec.mandatory {
		if _, ok := got[n]; !ok {
			return ssiError(`mandatory "%s" parameter is absent in "%s" SSI command`, n, name)
		}
	}
	return spec.run(d, got)
}

// variable looks a name up as NGINX's SSI does: a capture of the last
// regular expression ($1), a variable of the page, DATE_LOCAL/DATE_GMT in
// this document's timefmt, then the request's variables. A date that
// cannot be formatted is empty here; echo reports it (lookup).
func (d *document) variable(name string) (string, bool) {
	v, ok, _ := d.lookup(name)
	return v, ok
}

// lookup is variable with the error of a date strftime formats nothing
// for (an empty timefmt, or a date longer than NGINX's buffer): NGINX's
// DATE_LOCAL and DATE_GMT fail then, and its echo writes the error
// message, not an empty value.
func (d *document) lookup(name string) (string, bool, error) {
	d.sh.mu.Lock()
	if len(name) == 1 && name[0] >= '0' && name[0] <= '9' && int(name[0]-'0') < len(d.sh.captures) {
		v := d.sh.captures[name[0]-'0']
		d.sh.mu.Unlock()
		return v, true, nil
	}
	v, ok := d.sh.vars[name]
	d.sh.mu.Unlock()
	if ok {
		return v, true, nil
	}
	var date string
	switch name {
	case "date_local":
		date = strftime(d.timefmt, time.Now())
	case "date_gmt":
		date = strftime(d.timefmt, time.Now().In(gmt))
	default:
		if d.h.opts.Variable != nil {
			v, ok := d.h.opts.Variable(d.r, name)
			return v, ok, nil
		}
		return "", false, nil
	}
	if date == "" {
		return "", true, ssiError(`timefmt "%s" formats no %s`, d.timefmt, strings.ToUpper(name))
	}
	return date, true, nil
}

var gmt = time.FixedZone("GMT", 0)

func (d *document) setVar(name, value string) {
	d.sh.mu.Lock()
	d.sh.vars[strings.ToLower(name)] = value
	d.sh.mu.Unlock()
}

func (d *document) eval(text string, prefix bool) (string, error) {
	dir := ""
	if prefix {
		dir = uriDir(d.uri())
	}
	return evaluate(text, prefix, dir, d.variable)
}

// uri is the request's URI as it stands, NGINX's r->uri, which a relative
// include is relative to: the server's $uri, which follows an internal
// redirect (try_files, error_page) of an included request whose response
// processes a stub, where the request the fetcher returns keeps the URI
// it was issued for; the URL's path without the server.
func (d *document) uri() string {
	if d.h.opts.Variable != nil {
		if u, ok := d.h.opts.Variable(d.r, "uri"); ok && strings.HasPrefix(u, "/") {
			return u
		}
	}
	return d.r.URL.Path
}

func (d *document) echo(p map[string]string) error {
	value, found, err := d.lookup(strings.ToLower(p["var"]))
	if err != nil {
		return err
	}
	if !found {
		def, ok := p["default"]
		value = "(none)"
		if ok {
			value = def
		}
	}
	if value == "" {
		return nil
	}
	if enc, ok := p["encoding"]; ok {
		switch enc {
		case "none", "url", "entity":
			// NGINX keeps the encoding for the echoes that follow.
			d.encoding = enc
		default:
			d.h.logf(d.r, ssiError(`unknown encoding "%s" in the "echo" command`, enc))
		}
	}
	switch d.encoding {
	case "url":
		value = escapeURL(value)
	case "entity":
		value = entities.Replace(value)
	}
	d.write([]byte(value))
	return nil
}

func (d *document) config(p map[string]string) error {
	if v, ok := p["timefmt"]; ok {
		d.timefmt = v
	}
	if v, ok := p["errmsg"]; ok {
		d.errmsg = v
	}
	return nil
}

func (d *document) set(p map[string]string) error {
	v, err := d.eval(p["value"], false)
	if err != nil {
		return err
	}
	d.setVar(p["var"], v)
	return nil
}

func (d *document) ifCommand(p map[string]string) error {
	if d.conditional != 0 {
		return ssiError(`the "if" command inside the "if" command`)
	}
	return d.elif(p)
}

func (d *document) elif(p map[string]string) error {
	if d.outputChosen {
		d.output = false
		return nil
	}
	c, err := parseCondition(p["expr"])
	if err != nil {
		return err
	}
	left, err := d.eval(c.left, false)
	if err != nil {
		return err
	}
	var match bool
	if c.op == "" {
		match = left != ""
	} else {
		right, err := d.eval(c.right, false)
		if err != nil {
			return err
		}
		if c.regex {
			if match, err = d.match(right, left); err != nil {
				return err
			}
		} else {
			match = left == right
		}
		if c.op == "!=" {
			match = !match
		}
	}
	d.output, d.outputChosen = match, match
	d.conditional = condIf
	return nil
}

// match runs a regular expression of an if; a match keeps its captures
// ($1...) and named captures (variables) for the page. The pattern is
// built at request time, maybe from what the client sent ($arg_p), so it
// is compiled with the request-time bounds (length, time per match).
func (d *document) match(pattern, subject string) (bool, error) {
	re, err := pcre.CompileRequest(pattern, false)
	if err != nil {
		return false, ssiError("%v", err)
	}
	// As in NGINX, $n is a capture up to the last group that took part
	// ($2 of /(x)(y)?/ on "x" is none), and every named group is set.
	caps, err := re.MatchTaken(subject)
	if err != nil {
		return false, ssiError("%w", pcre.MatchError(err, subject, re))
	}
	if caps == nil {
		return false, nil
	}
	d.sh.mu.Lock()
	d.sh.captures = caps
	for i, n := range re.Names() {
		if n == "" {
			continue
		}
		v := ""
		if i < len(caps) {
			v = caps[i]
		}
		d.sh.vars[strings.ToLower(n)] = v
	}
	d.sh.mu.Unlock()
	return true, nil
}

func (d *document) elseCommand(map[string]string) error {
	d.output = !d.outputChosen
	d.conditional = condElse
	return nil
}

func (d *document) endif(map[string]string) error {
	d.output, d.outputChosen, d.conditional = true, false, 0
	return nil
}

func (d *document) block(p map[string]string) error {
	d.sh.mu.Lock()
	d.sh.blocks = append(d.sh.blocks, block{name: p["name"]})
	d.sh.mu.Unlock()
	d.output, d.inBlock = false, true
	return nil
}

func (d *document) endblock(map[string]string) error {
	d.output, d.inBlock = true, false
	return nil
}

// include fetches a document. "file" is a URI too, as in NGINX, and is
// waited for; so are "wait" and "set". The others run in parallel with
// the rest of the page.
func (d *document) include(p map[string]string) error {
	uri, virtual := p["virtual"]
	file, isFile := p["file"]
	waitArg, hasWait := p["wait"]
	setName, hasSet := p["set"]
	stub, hasStub := p["stub"]
	switch {
	case virtual && isFile:
		return ssiError(`inclusion may be either virtual="%s" or file="%s"`, uri, file)
	case !virtual && !isFile:
		return ssiError(`no parameter in "include" SSI command`)
	case hasSet && hasStub:
		return ssiError(`"set" and "stub" cannot be used together in "include" SSI command`)
	}
	wait := false
	if hasWait {
		if !virtual {
			return ssiError(`"wait" cannot be used with file="%s"`, file)
		}
		switch strings.ToLower(waitArg) {
		case "no":
		case "yes":
			wait = true
		default:
			return ssiError(`invalid value "%s" in the "wait" parameter`, waitArg)
		}
	}
	if isFile {
		uri, wait = file, true
	}
	uri, err := d.eval(uri, true)
	if err != nil {
		return err
	}
	if unsafeURI(uri) {
		return ssiError(`unsafe URI "%s" was detected`, uri)
	}
	uri = fetchURI(uri)
	var stubBody []byte
	if hasStub {
		found := false
		d.sh.mu.Lock()
		for _, b := range d.sh.blocks {
			if b.name == stub {
				stubBody, found = bytes.Clone(b.body), true
				break
			}
		}
		d.sh.mu.Unlock()
		if !found {
			return ssiError(`"stub"="%s" for "include" not found`, stub)
		}
	}
	if d.h.opts.Fetch == nil {
		return ssiError(`no fetcher for "include" of "%s"`, uri)
	}
	d.sh.mu.Lock()
	d.sh.includes++
	over := d.sh.includes > d.h.opts.MaxIncludes
	d.sh.mu.Unlock()
	if over {
		return ssiError(`include "%s": more than %d includes in one request`, uri, d.h.opts.MaxIncludes)
	}
	if hasSet {
		// The body goes into the variable, not the page. As in NGINX, a
		// variable that does not exist yet exists, empty, from now on,
		// and only a 2xx with a body replaces the value: an include that
		// fails leaves the fallback the page set before.
		name := strings.ToLower(setName)
		d.sh.mu.Lock()
		if _, ok := d.sh.vars[name]; !ok {
			d.sh.vars[name] = ""
		}
		d.sh.mu.Unlock()
		d.drain(true)
		body, status, err := d.fetchSet(uri)
		if err != nil {
			return err
		}
		if status < 300 && len(body) > 0 {
			d.setVar(name, string(body))
		}
		return nil
	}
	if wait {
		// NGINX resumes a page that waits only once all it included
		// before has gone out, and this include with it: its body goes
		// straight out.
		d.drain(true)
		return d.fetchInto(uri, hasStub, stubBody, func(p []byte) bool {
			d.out(p)
			return d.err == nil
		})
	}
	if d.wake == nil {
		d.wake = make(chan struct{}, 1)
	}
	inc := newIncBody(d.h.opts.IncludeBuffer, d.wake)
	d.queue = append(d.queue, &piece{inc: inc})
	errmsg := d.errmsg // as configured where the include stands
	d.pending = append(d.pending, func() {
		if err := d.fetchInto(uri, hasStub, stubBody, inc.write); err != nil {
			d.h.logf(d.r, err)
			if !d.h.opts.SilentErrors {
				inc.write([]byte(errmsg))
			}
		}
		inc.finish()
	})
	return nil
}

// launch starts the includes met so far. As in NGINX, an include runs once
// the page has been read as far as it has come (the end of the piece fed,
// or a wait), so it sees the variables that piece sets after it.
func (d *document) launch() {
	if len(d.pending) == 0 {
		return
	}
	if d.slots == nil {
		d.slots = make(chan struct{}, maxParallel)
	}
	// Never waiting for a slot: the document must go on writing the
	// includes that hold them, whose buffers may be full.
	for len(d.pending) > 0 {
		select {
		case d.slots <- struct{}{}:
		default:
			return
		}
		run := d.pending[0]
		d.pending[0] = nil
		d.pending = d.pending[1:]
		go func() {
			run()
			<-d.slots
			select {
			case d.wake <- struct{}{}:
			default:
			}
		}()
	}
}

// fetchSet issues the request of an include set= and reads its body for
// the variable: at most the SetLimit of its response, and more is a
// tooBigError.
func (d *document) fetchSet(uri string) (body []byte, status int, err error) {
	resp, err := d.h.opts.Fetch(d.r, uri)
	if err != nil {
		return nil, 0, ssiError(`include "%s": %v`, uri, err)
	}
	defer resp.Body.Close()
	limit := int64(os.Getpagesize())
	if d.h.opts.SetLimit != nil {
		if n := d.h.opts.SetLimit(resp); n > 0 {
			limit = n
		}
	}
	body, err = io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if int64(len(body)) > limit {
		return nil, 0, &tooBigError{uri: uri, limit: limit}
	}
	if err != nil {
		d.h.logf(d.r, ssiError(`include "%s": %v`, uri, err))
	}
	return body, resp.StatusCode, nil
}

// fetchInto issues the include's request and hands its body to put as it
// arrives, or the stub's text where NGINX shows it; put returns false
// when the document wants no more. The error is for a request that could
// not be made; a body that breaks off is logged and ends there.
func (d *document) fetchInto(uri string, hasStub bool, stub []byte, put func([]byte) bool) error {
	resp, err := d.h.opts.Fetch(d.r, uri)
	if err != nil {
		return ssiError(`include "%s": %v`, uri, err)
	}
	defer resp.Body.Close()
	if hasStub && resp.StatusCode >= 300 {
		// NGINX shows the stub when the included request ends with an
		// error status, as the response of that request, which its SSI
		// processes...
		put(d.processStub(resp, stub))
		return nil
	}
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	total := 0
	for {
		n, err := resp.Body.Read(*bp)
		total += n
		if n > 0 && !put((*bp)[:n]) {
			return nil
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			d.h.logf(d.r, ssiError(`include "%s": %v`, uri, err))
			break
		}
	}
	if hasStub && total == 0 {
		// ... or when it put out nothing; SSI passes over a response
		// announced empty, and then the stub with it.
		if resp.Header.Get("Content-Length") == "0" {
			put(stub)
		} else {
			put(d.processStub(resp, stub))
		}
	}
	return nil
}

// readBufs are the buffers includes read their bodies through.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// processStub runs a stub's text through SSI, as NGINX sends it through
// the included request's filters: its variables ($uri, $args) and the
// URIs it includes are the included request's.
func (d *document) processStub(resp *http.Response, b []byte) []byte {
	r := d.r
	if resp.Request != nil {
		r = resp.Request
	}
	var out bytes.Buffer
	sub := d.h.newDocument(r, d.sh, &out)
	sub.p.Feed(b)
	sub.close()
	return out.Bytes()
}

// unsafeURI refuses what NGINX's ngx_http_parse_unsafe_uri refuses: no
// path (variables that were all empty: resolved against the page, it
// would include the page itself), a path that climbs with "..", or holds
// a NUL, as written and, where it has escapes, once decoded as NGINX
// decodes it. NGINX includes the decoded path, and so does the subrequest
// here: "%2e%2e" and "..%2f" would otherwise climb out of a prefix such as
// "/pub/$arg_p" into a location the client may not reach (subrequests skip
// access rules).
func unsafeURI(uri string) bool {
	if uri == "" || uri[0] == '?' {
		return true
	}
	path, _, _ := strings.Cut(uri, "?")
	return climbs(path) || strings.IndexByte(path, '%') >= 0 && climbs(percent.Unescape(path))
}

// fetchURI writes an include's URI as the fetcher reads it, a URL
// reference, for what NGINX makes of it: a path and arguments split at
// the first "?". The path is NGINX's, percent-decoded, escaped again so
// that "#", "?" and an escape that is none are bytes of it, and so that a
// leading "//" starts no host: "/$lang/header.html" with $lang empty is
// the file /header.html, not a host "header.html" and the site's index.
// The arguments are escaped where a URL reference cannot hold them
// (escapeArgs).
func fetchURI(uri string) string {
	path, args, hasArgs := strings.Cut(uri, "?")
	p := (&url.URL{Path: percent.Unescape(path)}).EscapedPath()
	if strings.HasPrefix(p, "//") {
		p = "/%2F" + p[2:]
	}
	if hasArgs {
		p += "?" + escapeArgs(args)
	}
	return p
}

// escapeArgs escapes in an include's arguments the bytes a URL reference
// cannot hold there: "#", which would end them, and the control bytes
// url.Parse refuses (a tab a header put in), which would fail the
// include. NGINX passes them as they are; the included location's $args
// shows them escaped.
func escapeArgs(args string) string {
	escaped := func(c byte) bool { return c == '#' || c < ' ' || c == 0x7f }
	i := 0
	for i < len(args) && !escaped(args[i]) {
		i++
	}
	if i == len(args) {
		return args // the usual case: nothing to escape, nothing allocated
	}
	var b strings.Builder
	b.WriteString(args[:i])
	for ; i < len(args); i++ {
		if c := args[i]; escaped(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// climbs reports a NUL or a ".." segment in path.
func climbs(path string) bool {
	if strings.IndexByte(path, 0) >= 0 {
		return true
	}
	for seg := range strings.SplitSeq(path, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// aborted reports an include set= that got more than it may hold: the
// request ends.
func (d *document) aborted() bool {
	var big *tooBigError
	return errors.As(d.err, &big)
}
