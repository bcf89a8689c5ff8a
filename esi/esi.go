// Package esi processes Edge Side Includes in HTTP responses as they stream
// through: <esi:include> elements are replaced by fragments fetched
// concurrently, and the page goes out in document order as soon as each part
// of it is ready. The ESI 1.0 language is understood but esi:inline:
// esi:choose with test expressions, esi:try, and the request's variables in
// esi:vars blocks and include attributes. It works as net/http middleware in any server; the caller
// says how fragments are fetched, with a Fetcher. A page served from a
// cache's store can be parsed once and replayed from its parse plan
// (Options.Plans), and compressed for gzip and zstd clients from runs
// compressed once (Options.Stitch).
//
//	h, err := esi.New(app, esi.Options{Fetcher: esi.FetchHandler(app)})
//
// The package knows no server: the mosaic binary builds its Options from
// the configuration, and fetches fragments as the server's subrequests, in
// package modules/esimod.
package esi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// Defaults of the limits in Options.
const (
	DefaultMaxDepth        = 5
	DefaultMaxIncludes     = 256
	DefaultFragmentTimeout = 60 * time.Second
	// DefaultMaxFragmentSize bounds a fragment's body, held in memory
	// until its place in the page is written.
	DefaultMaxFragmentSize = 1 << 20
	// DefaultMaxHeldSize bounds the page text held behind pending
	// fragments.
	DefaultMaxHeldSize = 1 << 20
)

// Options configure New. Each field is one directive of the server
// (README.md has the directive reference); zero values mean the defaults.
type Options struct {
	// Types are media types processed besides text/html, which always is
	// (esi_types). "*" processes every type.
	Types []string
	// SilentErrors drops the <!-- ESI include error --> marker that otherwise
	// stands where a fragment could not be fetched (esi_silent_errors).
	SilentErrors bool
	// BufferSize is the size of the buffers the page is read or inflated
	// into and fragments are held in (esi_buffer_size). Default: one memory
	// page.
	BufferSize int
	// MaxDepth bounds nesting: a fragment at this depth includes nothing
	// more (esi_max_depth). Default 5.
	MaxDepth int
	// MaxIncludes bounds the includes of one client request, nested ones
	// counted (esi_max_includes). Default 256.
	MaxIncludes int
	// FragmentTimeout bounds each fragment, its nested fragments included
	// (esi_fragment_timeout). Default 60s; negative means no bound.
	FragmentTimeout time.Duration
	// MaxFragmentSize bounds the bytes of a fragment's body, after
	// inflating a gzipped one (esi_max_fragment_size): a fragment's body is
	// held in memory until its place in the page is written, so 256
	// includes of a large file would otherwise hold it 256 times. A longer
	// body fails the include. Default 1 MiB.
	MaxFragmentSize int64
	// MaxHeldSize bounds the bytes of page text held in memory behind
	// fragments not yet in, each include queued there counting 128
	// (esi_max_held_size): past it, reading the page
	// pauses until the fragments ahead are written, as NGINX stops
	// reading an upstream whose buffers are full. Text inside an
	// <esi:remove> or an <esi:try> block is not bounded by it (it waits
	// for the parser itself). Default 1 MiB.
	MaxHeldSize int
	// Surrogate processes only responses whose Surrogate-Control header
	// has content="ESI/1.0", removes Surrogate-Control from every
	// response, and announces the capability to next with a
	// Surrogate-Capability request header (esi_surrogate).
	Surrogate bool
	// Plans keeps the parse of pages that come from a cache's store
	// (esi_plan): later deliveries of the same stored object replay it
	// instead of scanning the page. Nil: every page is parsed.
	Plans *PlanStore
	// PlanShare, with Plans, is where plans are shared with other servers:
	// a plan missing from Plans is looked for there before the page is
	// parsed, and a plan recorded is saved there. Nil: not shared.
	PlanShare PlanShare
	// Stitch compresses processed pages here, writing the verbatim runs
	// of a replayed plan from their stored compressed forms (esi_stitch).
	// It requires Plans. Nil: pages go out plain, for the compression
	// filter.
	Stitch *Stitch
	// Logger receives warnings about markup and errors about fragments.
	// Default slog.Default().
	Logger *slog.Logger
	// Fetcher performs fragment requests. Required.
	Fetcher Fetcher
}

// A Fetcher performs fragment requests: FetchHandler in process, HTTPFetch
// from an origin, or the caller's own (a server's subrequests).
type Fetcher interface {
	// Fetch performs one fragment request. req is built for it: a GET
	// without a body for the resolved URI (URL.Path decoded, as location
	// matching wants it), with the parent's Host and the headers of
	// FragmentHeader, and a context that carries the fragment timeout and
	// the nesting depth. parent is the request of the page holding the
	// include. Fetch may modify req. It must honour req's context: that is
	// how the timeout is enforced. It is called from several goroutines at
	// once.
	Fetch(parent, req *http.Request) (*Fragment, error)
}

// FetchFunc is a function that is a Fetcher.
type FetchFunc func(parent, req *http.Request) (*Fragment, error)

// Fetch calls f(parent, req).
func (f FetchFunc) Fetch(parent, req *http.Request) (*Fragment, error) { return f(parent, req) }

// Fragment is the response to a fragment request.
type Fragment struct {
	Status int
	Header http.Header
	// Body is read to its end and closed by the processor; nil means empty.
	Body io.ReadCloser
	// Final says the body is to be spliced as it is, never processed as
	// nested ESI: the fetcher ran the fragment through a chain that decides
	// that itself (a server's subrequest through the location's own
	// filters). Without it, a body of a processed type is processed by the
	// including page, unless an esi handler already saw the fragment request.
	Final bool
}

// fragmentKey marks the context of a fragment request.
type fragmentKey struct{}

// fragmentInfo travels in a fragment request's context. depth and includes
// let a handler of New that serves the fragment request itself (an in-process
// chain) continue the same bounds; claimed tells the including page that
// such a handler took charge of the fragment's ESI.
type fragmentInfo struct {
	depth    int
	includes *atomic.Int32
	claimed  atomic.Bool
}

// Depth returns how deep in ESI nesting a request is: 0 for a client
// request, 1 for a fragment of its page, and so on.
func Depth(ctx context.Context) int {
	if fi, _ := ctx.Value(fragmentKey{}).(*fragmentInfo); fi != nil {
		return fi.depth
	}
	return 0
}

type handler struct {
	next      http.Handler
	opts      Options
	processes func(contentType string) bool // esi_types
	log       *slog.Logger
	bufs      chunkPool
}

// New returns middleware that processes the ESI markup of next's
// responses of the configured types. It fails when opts has no Fetcher.
func New(next http.Handler, opts Options) (http.Handler, error) {
	if opts.Fetcher == nil {
		return nil, errors.New("esi: Options.Fetcher is nil")
	}
	if f, ok := opts.Fetcher.(FetchFunc); ok && f == nil {
		// It would fail every include, one panic at a time.
		return nil, errors.New("esi: Options.Fetcher is a nil FetchFunc")
	}
	if opts.Stitch != nil {
		if opts.Plans == nil {
			return nil, errors.New("esi: Options.Stitch requires Options.Plans")
		}
		st := *opts.Stitch
		if err := st.validate(); err != nil {
			return nil, err
		}
		opts.Stitch = &st
	}
	if opts.BufferSize <= 0 {
		opts.BufferSize = os.Getpagesize()
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxIncludes <= 0 {
		opts.MaxIncludes = DefaultMaxIncludes
	}
	if opts.FragmentTimeout == 0 {
		opts.FragmentTimeout = DefaultFragmentTimeout
	}
	if opts.MaxFragmentSize <= 0 {
		opts.MaxFragmentSize = DefaultMaxFragmentSize
	}
	if opts.MaxHeldSize <= 0 {
		opts.MaxHeldSize = DefaultMaxHeldSize
	}
	h := &handler{next: next, opts: opts, log: opts.Logger, processes: ProcessedTypes(opts.Types)}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.bufs.size = opts.BufferSize
	return h, nil
}

// ProcessedTypes returns the test that the handler New makes with
// Options.Types types applies to a response's Content-Type: text/html, one
// of types (compared without parameters, case-insensitively), or anything
// at all when types holds "*". A file server behind the handler takes it as
// static.Options.Transformed, so that it serves such files whole.
func ProcessedTypes(types []string) func(contentType string) bool {
	return header.TypeMatcher(types)
}
