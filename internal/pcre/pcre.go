// Package pcre compiles the regular expressions of configuration files
// (location ~, server_name ~, map, if, rewrite, gzip_disable) with the
// syntax and semantics of PCRE2 as NGINX calls it: no UTF mode (patterns
// and subjects are bytes), ASCII case folding and classes, $ matching
// before a final newline. A pattern runs on Go's regexp (RE2, linear time)
// whenever that engine can give PCRE's answer, and on the backtracking
// engine regexp2 otherwise (look-around, back-references, atomic groups,
// possessive quantifiers), under a time limit per match.
package pcre

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// MatchTimeout bounds one match on the backtracking engine. PCRE stops a
// runaway match with its match limit and NGINX then answers 500; this is
// the same guard, in time. A URI of a few kilobytes against any sane
// pattern takes microseconds.
const MatchTimeout = 100 * time.Millisecond

// backtrackStack bounds the backtracking engine's stack, in ints (8 bytes
// each), as PCRE's heap limit does.
const backtrackStack = 1 << 20

// ErrLimit is what Match returns (wrapped) when a match ran past
// MatchTimeout or the backtracking stack limit.
var ErrLimit = errors.New("regular expression match limit exceeded")

// Regexp is a compiled configuration regex. It is safe for concurrent use.
type Regexp struct {
	expr  string
	names []string
	// keep is the group that holds where the last \K passed set the
	// match's start (see opKeep), or 0.
	keep int
	re2  *regexp.Regexp  // nil when only backtracking can give PCRE's answer
	bt   *regexp2.Regexp // nil when RE2 answers every subject
	// endSensitive marks a pattern with $, \Z or multiline ^: PCRE lets
	// these match around a newline that ends the subject, which the RE2
	// program does not express, so such subjects go to bt.
	endSensitive bool
	// slotOver is the longest subject that the backtracking engine
	// matches without a slot of requestSlots: for a client's pattern
	// (CompileRequest) what requestMatchBudget allows for its size, for
	// a configuration's configSlotOver. Below 0 for a pattern whose
	// setup alone passes the budget: every match takes a slot.
	slotOver int
	// longSlots is the pool of a match past slotOver, shortSlots of one
	// within it (nil for a configuration's: the administrator's pattern
	// on at most configSlotOver bytes).
	longSlots, shortSlots func() chan struct{}
}

// requestSlots bounds to GOMAXPROCS the backtracking matches of a
// client's pattern (CompileRequest) on long subjects that run at once. A
// match's stacks grow with its subject, up to about 1.2 KB a byte of it
// (40 MB allocated by one of ^(?:((((((((a))))))))|b)*x on 64 KiB of
// "a", 10 MB on 8 KiB) and beyond backtrackStack's 8 MiB, which bounds
// only one of them: 200 concurrent matches of a 64 KB subject held 472
// MB of heap. NGINX runs one match at a time per worker process; a match
// is CPU bound, so more at once only cuts each one's time short.
//
// A match of a short subject takes no slot here (audit8): its memory is
// bounded by its subject and its pattern's size, and ordinary subjects
// (a User-Agent, a URI, an argument) and patterns are short, so a flood
// of runaway matches on long ones never makes an ordinary match wait or
// fail. With slots for every client pattern, 16 goroutines looping a
// runaway match on 64 KiB made 10 of 20 matches of a User-Agent fail
// after their SlotWait. Short ones are counted by shortRequestSlots.
// The compiles of patterns past compileSlotOver take these slots too.
var requestSlots = newSlots(1)

// configSlots are requestSlots for a configuration's patterns on
// subjects past configSlotOver (audit9): a pool of their own, so that a
// client's runaway patterns, which may hold every one of requestSlots
// for MatchTimeout each, never make a configuration's match wait. Who
// holds these is the administrator's patterns, which a client can make
// slow only as far as the configuration lets it.
var configSlots = newSlots(1)

// shortRequestSlots bounds a client's matches within
// requestMatchBudget that run at once (audit9), shortPerProc a
// GOMAXPROCS: each takes at most 1.6 MB and MatchTimeout, but before
// their number was bounded only by connections, and a flood of short
// runaway patterns (^(a|aa)+$ on 40 bytes) held every CPU, so that the
// run queue held one goroutine per such request ahead of every other
// request's work. With these slots they hold at most shortPerProc × 1.6
// MB a CPU (13 MB on 2 CPUs) and the run queue at most shortPerProc
// matching goroutines a CPU, a wait of 4 × Go's 10 ms time slice for
// the rest. The price: past shortPerProc runaways a CPU, an ordinary
// client match queues behind them (at most SlotWait, then a 500), as an
// NGINX worker busy with a match serves nothing else. The compiles of
// shorter patterns take these slots too.
var shortRequestSlots = newSlots(shortPerProc)

// shortPerProc is shortRequestSlots' slots a GOMAXPROCS: ordinary
// matches take microseconds, so a few a CPU absorb bursts of them.
const shortPerProc = 4

// newSlots makes, on first use (once worker_processes has set
// GOMAXPROCS), a pool of perProc slots a GOMAXPROCS.
func newSlots(perProc int) func() chan struct{} {
	return sync.OnceValue(func() chan struct{} {
		return make(chan struct{}, perProc*runtime.GOMAXPROCS(0))
	})
}

// requestMatchBudget bounds, for a client's pattern, the subject's bytes
// × the pattern's compiled size (compiledSize, PCRE2's code units) of a
// match that takes no slot. A match's stacks took up to 13.2 bytes a
// unit a byte among the patterns tried (nested captures the most: 22 MB
// for 200 of them around an "a", 1,623 units, on 1 KiB; rv-audit8 found
// 19.2, 1.57 MB for "(()?)" ×20 then "a", repeated, on 171 bytes), so
// a match in the budget allocates 1 to 1.6 MB at most: 940 bytes of
// subject for ^(?:((((((((a))))))))|b)*x, 1,300 for a 63-unit
// User-Agent pattern.
// A client chooses the pattern and, often, the subject.
const requestMatchBudget = 80 << 10

// matchSetup is what a match costs before its first subject byte, in
// bytes of subject against requestMatchBudget: regexp2 sets up a
// runner's tables for every group, about 36 bytes a code unit (2 MB for
// 7,000 empty captures on an empty subject, 2.9 MB on one byte, which
// subject × size alone let run without a slot; rv-audit8).
const matchSetup = 3

// configSlotOver is the longest subject a configuration's pattern
// matches without a slot: 8 KiB is the most a URI or a header can hold
// with NGINX's default large_client_header_buffers (4 8k), so with the
// default buffers a configuration's matches never wait. Past it, a
// client's 64 KB header against a pattern that backtracks (if ($http_x ~
// ...)) would hold up to 40 MB a request, any number of requests at once.
const configSlotOver = 8 << 10

// SlotWait bounds the wait for a slot of any pool (requestSlots,
// configSlots, shortRequestSlots). A match holds one for at most
// MatchTimeout (a compile, bounded by MaxRequestPattern, for tens of
// milliseconds), so ten of them queued per slot may end in time; a
// match that waited longer fails as one past its limit does (a 500,
// never a request hung for as long as others keep the slots).
// NGINX has no such wait: a worker busy with a match serves nothing else.
const SlotWait = 10 * MatchTimeout

// takeSlot waits for a slot of slots up to SlotWait.
func takeSlot(slots chan struct{}) error {
	select {
	case slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(SlotWait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return nil
	case <-t.C:
		return fmt.Errorf("%w (%v waiting for one of %d slots)", ErrLimit, SlotWait, cap(slots))
	}
}

// Compile compiles expr with PCRE syntax and semantics; caseless is NGINX's "~*".
func Compile(expr string, caseless bool) (*Regexp, error) {
	return compile(expr, caseless, false)
}

// MaxRequestPattern bounds a pattern that CompileRequest takes. NGINX's
// PCRE2 (link size 2) refuses a pattern whose compiled form passes 64 KiB,
// which 32 KiB of literal bytes reaches (compiledSize holds the rest, a
// short pattern that compiles large); the bound also keeps the parse
// itself to milliseconds.
const MaxRequestPattern = 32 << 10

// CompileRequest is Compile for a pattern built while serving a request
// from what a client sent (SSI's if expr="$a = /$arg_p/"). Such a
// pattern always runs on the backtracking engine, whose every match is
// bounded by MatchTimeout and, on a subject too long for its size
// (requestMatchBudget), runs in one of GOMAXPROCS slots (requestSlots):
// Go's regexp is linear in the subject but not in the pattern, and a
// few kilobytes of pattern with a thousand groups ("(a)?" repeated) hold
// a CPU for seconds a match on it.
//
// The compile itself runs in a slot too (compileSlotOver). Its error,
// which quotes the client's pattern into the error log, is cut at
// maxCompileError bytes as NGINX's is.
func CompileRequest(expr string, caseless bool) (*Regexp, error) {
	if len(expr) > MaxRequestPattern {
		return nil, cutError(fmt.Sprintf(`pcre2_compile() failed: regular expression is too large in "%s"`, expr[:maxCompileError]))
	}
	slots := shortRequestSlots()
	if len(expr) > compileSlotOver {
		slots = requestSlots()
	}
	if err := takeSlot(slots); err != nil {
		// NGINX's words for a compile that failed, so that the log
		// (SSI's, which prints the error alone) tells it from a match.
		return nil, fmt.Errorf("pcre2_compile() failed: %w", err)
	}
	defer func() { <-slots }()
	re, err := compileSized(expr, caseless, true, true)
	if err != nil {
		return nil, cutError(err.Error())
	}
	return re, nil
}

// compileSlotOver is the longest client's pattern compiled in a slot of
// shortRequestSlots; a longer one takes one of requestSlots (audit9). A
// compile allocates up to about 900 bytes a byte of pattern (a group of
// 8,000 alternatives: 7 MB for 8 KB; "()" repeated 745, 10 MB for 14
// KB; runtime.MemStats, 2026-12-07 03:42 UTC) and takes up to tens of
// milliseconds, and a client sends one a request: unbounded, a flood of
// 8 KB patterns in URIs held 7 MB a request. Under 1 KiB a compile takes
// about what a short match may (0.9 MB); the longest, 32 KiB, about 29
// MB, GOMAXPROCS at once.
const compileSlotOver = 1 << 10

// maxCompileError is NGX_MAX_CONF_ERRSTR: NGINX formats a compile error
// into a buffer of that size, so a request-time pattern reaches the log
// cut there.
const maxCompileError = 1024

func cutError(msg string) error {
	return errors.New(msg[:min(len(msg), maxCompileError)])
}

// compile is Compile; forceBT (CompileRequest, tests and benchmarks)
// leaves out RE2.
func compile(expr string, caseless, forceBT bool) (*Regexp, error) {
	return compileSized(expr, caseless, forceBT, false)
}

// compileSized is compile that, with sized (CompileRequest), refuses
// what PCRE2 would compile past its size limit (compiledSize). The
// tests that hold the engines to each other compile without it: RE2
// takes some patterns PCRE2 finds too large.
func compileSized(expr string, caseless, forceBT, sized bool) (*Regexp, error) {
	tree, p, err := parse(expr, caseless)
	if err != nil {
		var se *syntaxError
		errors.As(err, &se)
		if se.off >= len(expr) {
			return nil, fmt.Errorf(`pcre2_compile() failed: %s in "%s"`, se.msg, expr)
		}
		return nil, fmt.Errorf(`pcre2_compile() failed: %s in "%s" at "%s"`, se.msg, expr, expr[se.off:])
	}
	re := &Regexp{expr: expr, names: p.capName, endSensitive: p.endSensitive, slotOver: configSlotOver, longSlots: configSlots}
	if len(p.keeps) > 0 {
		re.keep = p.ncap + 1
	}
	if sized {
		size := compiledSize(tree)
		if size > maxCompiled {
			return nil, fmt.Errorf(`pcre2_compile() failed: regular expression is too large in "%s"`, expr)
		}
		re.slotOver = requestMatchBudget/size - matchSetup
		re.longSlots, re.shortSlots = requestSlots, shortRequestSlots
	}
	if !forceBT && !p.needsBacktrack && !emptyLoopCaptures(tree) {
		// Go refuses some patterns PCRE takes (a repeat count over 1000, a
		// program too large); the backtracking engine runs those.
		re.re2, _ = regexp.Compile(emit(tree, dialectRE2, false))
	}
	if re.re2 == nil || re.endSensitive {
		bt, err := regexp2.Compile(emit(tree, dialectRegexp2, sized), regexp2.OptionMaxBacktrackingStackSize(backtrackStack))
		if err != nil {
			return nil, fmt.Errorf(`pcre2_compile() failed: %v in "%s"`, err, expr)
		}
		bt.MatchTimeout = MatchTimeout
		re.bt = bt
	}
	return re, nil
}

// emptyLoopCaptures reports a repeated group that can match the empty
// string and holds a capture: what such a capture holds after the loop
// depends on how an engine stops empty iterations, where RE2 and PCRE
// differ.
func emptyLoopCaptures(n *node) bool {
	if n.op == opRepeat && (n.max > 1 || n.max == -1) && canBeEmpty(n.subs[0]) && hasCapture(n.subs[0]) {
		return true
	}
	for _, s := range n.subs {
		if emptyLoopCaptures(s) {
			return true
		}
	}
	return false
}

func canBeEmpty(n *node) bool {
	switch n.op {
	case opSet:
		return false
	case opConcat:
		for _, s := range n.subs {
			if !canBeEmpty(s) {
				return false
			}
		}
		return true
	case opAlt:
		for _, s := range n.subs {
			if canBeEmpty(s) {
				return true
			}
		}
		return false
	case opRepeat:
		return n.min == 0 || canBeEmpty(n.subs[0])
	case opCapture, opGroup, opAtomic:
		return canBeEmpty(n.subs[0])
	}
	return true // empty, assertions, look-around, back-references
}

func hasCapture(n *node) bool {
	if n.op == opCapture {
		return true
	}
	for _, s := range n.subs {
		if hasCapture(s) {
			return true
		}
	}
	return false
}

// MustCompile is Compile for patterns written in code; it panics on error.
func MustCompile(expr string, caseless bool) *Regexp {
	re, err := Compile(expr, caseless)
	if err != nil {
		panic(err)
	}
	return re
}

// String returns the pattern as written.
func (re *Regexp) String() string { return re.expr }

// MatchError is the error a match of re on subject that could not
// complete (err, ErrLimit) is logged with, in NGINX's words (its
// ngx_regex_exec_array and ngx_http_regex_exec): the same line whichever
// directive's match it was. It wraps err.
func MatchError(err error, subject string, re *Regexp) error {
	return fmt.Errorf("pcre2_match() failed: %w on %q using %q", err, subject, re.String())
}

// NumCaptures returns the number of numbered groups, not counting the whole match.
func (re *Regexp) NumCaptures() int { return len(re.names) - 1 }

// Names returns len NumCaptures()+1 names: Names()[i] is group i's name or "".
func (re *Regexp) Names() []string { return re.names }

// Match returns nil when s does not match; otherwise the captures: [0] the
// whole match, [i] group i ("" for a group that did not take part). err is
// non-nil (wrapping ErrLimit) only when the match could not be completed.
func (re *Regexp) Match(s string) (caps []string, err error) {
	idx, err := re.index(s, true)
	if idx == nil {
		return nil, err
	}
	return captures(s, idx, len(re.names)), nil
}

// MatchTaken is Match with the captures cut after the last group that
// took part in the match, as PCRE's return value counts them: NGINX's SSI
// reads $n past them as no capture at all.
func (re *Regexp) MatchTaken(s string) (caps []string, err error) {
	idx, err := re.index(s, true)
	if idx == nil {
		return nil, err
	}
	n := min(len(re.names), len(idx)/2)
	for n > 1 && idx[2*(n-1)] < 0 {
		n--
	}
	return captures(s, idx, n), nil
}

// captures are the first n groups of a match's offsets.
func captures(s string, idx []int, n int) []string {
	caps := make([]string, n)
	for i := range caps {
		if 2*i+1 < len(idx) && idx[2*i] >= 0 {
			caps[i] = s[idx[2*i]:idx[2*i+1]]
		}
	}
	return caps
}

// MatchString reports whether s matches; err as for Match.
func (re *Regexp) MatchString(s string) (bool, error) {
	if re.re2 != nil && !re.toBT(s) && isASCII(s) {
		return re.re2.MatchString(s), nil
	}
	idx, err := re.index(s, false)
	return idx != nil, err
}

func (re *Regexp) toBT(s string) bool {
	return re.re2 == nil || re.endSensitive && len(s) > 0 && s[len(s)-1] == '\n'
}

// index returns the byte offsets of the match and, with groups, of every
// group (-1 for one that did not take part), or nil.
func (re *Regexp) index(s string, groups bool) ([]int, error) {
	if !re.toBT(s) {
		switch {
		case !isASCII(s):
			// Bytes above 0x7f are characters of their own, as in PCRE
			// without UTF: the reader hands each byte over as one rune.
			return re.re2.FindReaderSubmatchIndex(&byteRunes{s: s}), nil
		case groups:
			return re.re2.FindStringSubmatchIndex(s), nil
		}
		return re.re2.FindStringIndex(s), nil
	}
	pool := re.shortSlots
	if len(s) > re.slotOver {
		pool = re.longSlots
	}
	var slots chan struct{}
	if pool != nil {
		slots = pool()
		if err := takeSlot(slots); err != nil {
			return nil, err
		}
		defer func() { <-slots }()
	}
	in := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		in[i] = btRune(s[i])
	}
	start := time.Now()
	idx, err := re.runBT(in, groups)
	for err != nil && !errors.Is(err, regexp2.ErrBacktrackingStackLimit) && time.Since(start) < MatchTimeout {
		// regexp2 reads its deadlines off a clock that a goroutine of
		// its own sets every 100 ms; waiting for a CPU, that goroutine
		// leaves it stale, and a match that starts on a stale clock is
		// cut as soon as the clock catches up: a 30 ms pause in an
		// ordinary match with the clock's goroutine 150 ms late failed
		// it at 36 ms as "100ms" (rv-audit9b). A match cut before
		// MatchTimeout of wall time runs again, its deadline from the
		// clock just set. Each cut needs the clock set mid-match, 100
		// ms apart at the least, so a runaway runs twice, rarely more,
		// and for MatchTimeout plus one match's limit at the most.
		idx, err = re.runBT(in, groups)
	}
	if err != nil {
		// regexp2's own message quotes the whole subject; the caller
		// logs the subject once.
		limit := MatchTimeout.String()
		if errors.Is(err, regexp2.ErrBacktrackingStackLimit) {
			limit = "backtracking stack"
		}
		if slots != nil {
			// The slots busy as it ends, its own among them: what an
			// operator reads of the contention, and what the tests read
			// of the bound through the binary (audit9).
			return nil, fmt.Errorf("%w (%s; %d of %d slots busy)", ErrLimit, limit, len(slots), cap(slots))
		}
		return nil, fmt.Errorf("%w (%s)", ErrLimit, limit)
	}
	return idx, nil
}

// runBT runs the backtracking engine on in for index.
func (re *Regexp) runBT(in []rune, groups bool) ([]int, error) {
	var idx []int
	err := re.bt.FindRunesMatches(in, 0, func(v regexp2.MatchView) bool {
		n := len(re.names)
		if !groups {
			n = 1
		}
		idx = make([]int, 2*n)
		for i := 0; i < n; i++ {
			start, length, ok := v.GroupRange(i)
			if !ok {
				idx[2*i], idx[2*i+1] = -1, -1
				continue
			}
			idx[2*i], idx[2*i+1] = start, start+length
		}
		if re.keep > 0 {
			// \K: the match starts where the last \K passed was.
			if start, _, ok := v.GroupRange(re.keep); ok {
				idx[0] = start
			}
		}
		return false
	})
	return idx, err
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// byteRunes reads a string as one rune per byte, each of width 1, so that
// the offsets Go's regexp reports are byte offsets.
type byteRunes struct {
	s string
	i int
}

func (r *byteRunes) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	c := r.s[r.i]
	r.i++
	return rune(c), 1, nil
}
