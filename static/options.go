package static

import (
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/mosaic-edge/mosaic/internal/nolinks"
	"github.com/mosaic-edge/mosaic/internal/notmodified"
)

// Options configure a FileServer. Apart from Root every field may be left
// zero; the zero value behaves like NGINX's default unless its comment says
// otherwise.
type Options struct {
	// Root is the directory files are served from. It is opened once by
	// New; requests can never reach outside it.
	Root string

	// Index lists the files tried, in order, for a request whose URI ends in
	// "/" (NGINX's index directive). nil means {"index.html"}; an empty,
	// non-nil slice tries none, so every directory request is forbidden.
	// Entries are names relative to the requested directory.
	Index []string

	// IndexFallback, when set, answers a directory request for which none
	// of the Index files exists, before Listing and instead of 403: NGINX's
	// absolute last index name ("index index.php /index.php$request_uri"),
	// which the caller redirects to. With no Index names, it answers every
	// directory request, whether or not the directory exists, as NGINX
	// redirects to an absolute name it reaches first without testing the
	// directory.
	IndexFallback func(w http.ResponseWriter, r *http.Request)

	// ContentType maps a file name to its media type (NGINX's types). nil
	// means mime.TypeByExtension. An empty result falls back to DefaultType.
	ContentType func(name string) string

	// DefaultType is the media type of files whose type is unknown
	// (default_type). "" means "application/octet-stream".
	DefaultType string

	// DisableETag stops sending ETag and comparing entity tags (etag off).
	DisableETag bool

	// IfModifiedSince selects how If-Modified-Since is compared with the
	// file's modification time. The zero value follows RFC 9110 (NGINX's
	// "before"); NGINX's own default is ModifiedSinceExact.
	IfModifiedSince ModifiedSince

	// MaxRanges limits the byte ranges of one request (max_ranges): 0 means
	// no limit, n > 0 serves the whole file to requests with more than n
	// ranges, and a negative value turns range requests off altogether.
	MaxRanges int

	// LogNotFound writes an error-log line for every 404 (log_not_found).
	// NGINX's default is on; the zero value here keeps 404s quiet.
	LogNotFound bool

	// Logger receives the error-log lines: why a request got 403, 404 (with
	// LogNotFound) or 500. nil means slog.Default().
	Logger *slog.Logger

	// Error writes the response for a status the server answers without a
	// file: 301, 403, 404, 405, 412, 416 and 500 (the place for NGINX's
	// error_page). Headers that belong to the status (Location, Allow,
	// Content-Range) are already set. nil writes a small HTML page as NGINX
	// does.
	Error func(w http.ResponseWriter, r *http.Request, status int)

	// Variants, when set, names precompressed copies (x.js.br, x.js.gz) to
	// serve in place of a file (gzip_static, brotli_static, zstd_static).
	Variants VariantFunc

	// VaryVariants are the copies whose presence beside a file makes its
	// answer carry Vary: Accept-Encoding even when the copy is not served
	// (the client does not accept its coding): NGINX's gzip_static on with
	// gzip_vary marks the response as soon as it finds the copy, before it
	// declines, so that a shared cache keeps the plain answer for those
	// clients only.
	VaryVariants []Variant

	// Transformed reports whether a filter around the FileServer rebuilds
	// the body of a file of this Content-Type, as an ESI processor does:
	// the file's validators and byte offsets then describe none of what
	// the client gets. Such a file is served whole, Range ignored, and
	// conditional requests are evaluated as for a response without ETag
	// and Last-Modified (If-None-Match matches only "*", If-Match nothing
	// but "*", the dates never), so that no 206, 416 or 304 answers for
	// bytes the client would not receive. nil: no type is.
	Transformed func(contentType string) bool

	// Unranged reports whether a filter around the FileServer changes the
	// length of the body of a file of this Content-Type but keeps it the
	// file's, as NGINX's sub filter does: such a file is served whole,
	// Range ignored and no Accept-Ranges offered, while its validators
	// still answer conditional requests (NGINX's not-modified filter runs
	// before the sub filter).
	// nil: no type is.
	Unranged func(contentType string) bool

	// VaryEncoding reports whether the 200 response for a file of this
	// Content-Type and length, sent without a Content-Encoding, carries Vary:
	// Accept-Encoding from a filter around the FileServer that compresses
	// on the fly (gzip_vary). A 304 carries the Vary its 200 would (RFC
	// 9110 section 15.4.5), but such a filter has no Content-Type to judge
	// a 304 by, so the FileServer adds it. A variant's Vary is the
	// VariantFunc's. nil: never.
	VaryEncoding func(contentType string, length int64) bool

	// VaryDictionary adds Available-Dictionary to the Vary that
	// VaryEncoding adds, for a filter that also compresses against the
	// dictionaries clients name (RFC 9842; compress_dictionary).
	VaryDictionary bool

	// OpenFileCache, when set, keeps descriptors and stat results of the
	// files served (open_file_cache). Several FileServers may share one.
	OpenFileCache *OpenFileCache

	// OpenFileCacheValid is how long a cached entry is used before the
	// path is looked up again to see whether it still names the same,
	// unchanged file (open_file_cache_valid). 0 means NGINX's default, 60
	// seconds. A negative value checks on every use, which serves what an
	// open would find; only paths that can be checked by name are then
	// cached (see the package README), and descriptors are kept only for
	// files of up to 32 KB, since larger ones go out with sendfile from a
	// descriptor of their own.
	OpenFileCacheValid time.Duration

	// OpenFileCacheMinUses is how many times a file must be asked for
	// while its entry lives before its descriptor is kept open
	// (open_file_cache_min_uses). 0 means 1.
	OpenFileCacheMinUses int

	// OpenFileCacheErrors caches failures to open a path (missing,
	// forbidden) as well (open_file_cache_errors).
	OpenFileCacheErrors bool

	// Listing, when set, answers a GET or HEAD for a directory that has
	// none of the Index files, instead of 403 (NGINX's autoindex). dir is
	// the directory, confined to the root; uri is the request's path.
	Listing func(w http.ResponseWriter, r *http.Request, dir fs.FS, uri string)

	// RandomIndex answers a GET, HEAD or POST for a directory with one of
	// its regular files chosen at random, names starting with "." left
	// out, before the Index files are tried (NGINX's random_index): the
	// file is given to IndexRedirect as uri + name, or served here
	// without one. A directory without such a file goes on to Index.
	RandomIndex bool

	// IndexRedirect, when set, is given the URI of the index file found
	// for a directory (uri + name) instead of the file being served here:
	// NGINX's index module makes an internal redirect, so that the index
	// file is served by the location its URI matches ("index index.php"
	// runs the PHP location). nil serves the file directly.
	IndexRedirect func(w http.ResponseWriter, r *http.Request, uri string)

	// Cut, when set, decides the body of a GET or HEAD of a regular file
	// (NGINX's flv and mp4 modules: see Cutter). Precompressed variants
	// are not looked for then, as those modules do not look for them.
	Cut Cutter

	// Symlinks says what a symbolic link on the way to a file does
	// (NGINX's disable_symlinks); the zero value follows links that stay
	// below the root.
	Symlinks Symlinks
	// SymlinksFrom, when links are refused, is the leading part of Root's
	// own path that is not checked for links (disable_symlinks from=):
	// "" checks all of it, Root itself only what lies below it.
	SymlinksFrom string
}

// Symlinks is a policy for symbolic links in the paths of files.
type Symlinks uint8

const (
	// FollowSymlinks follows links, as long as they lead to a file below
	// the root (disable_symlinks off).
	FollowSymlinks Symlinks = iota
	// RefuseSymlinks refuses a file whose path goes through a link, below
	// the root and in the root's own path after SymlinksFrom: 403 for a
	// link at the file, 404 for one on the way (disable_symlinks on).
	RefuseSymlinks
	// RefuseSymlinksIfNotOwner follows a link whose owner owns what it
	// leads to and refuses the path with 403 otherwise, in the same
	// places (disable_symlinks if_not_owner).
	RefuseSymlinksIfNotOwner
)

// mode is the nolinks mode of s, 0 for FollowSymlinks.
func (s Symlinks) mode() nolinks.Mode {
	switch s {
	case RefuseSymlinks:
		return nolinks.Refuse
	case RefuseSymlinksIfNotOwner:
		return nolinks.IfNotOwner
	}
	return 0
}

// ModifiedSince is how If-Modified-Since is evaluated, after NGINX's
// if_modified_since directive; the cache and the slice filter share it.
type ModifiedSince = notmodified.Since

const (
	// ModifiedSinceBefore answers 304 when the file was modified at or before
	// the given time, as RFC 9110 specifies.
	ModifiedSinceBefore = notmodified.Before
	// ModifiedSinceExact answers 304 only when the times are equal.
	ModifiedSinceExact = notmodified.Exact
	// ModifiedSinceOff ignores If-Modified-Since.
	ModifiedSinceOff = notmodified.Off
)
