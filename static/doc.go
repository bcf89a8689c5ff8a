// Package static serves files from a directory the way NGINX's static and
// index modules do: the same ETag and Last-Modified formats, conditional
// requests, byte ranges (single and multipart), directory redirects, index
// files and error statuses.
//
// It is a plain net/http handler, made by New. The mosaic server (package
// modules/staticmod) calls ServePath after it has mapped the request URI to
// a path through root, alias or try_files; a Go program can use the
// FileServer directly. A filter in front of it that serves precompressed
// copies, compresses on the fly or rebuilds bodies tells it so through
// Options (Variants, VaryEncoding, Transformed): the package imports none
// of them.
//
// Every path is resolved inside the root, by openat2 with RESOLVE_BENEATH on
// Linux and through an [os.Root] elsewhere, so neither ".." segments nor
// symbolic links can reach a file outside it. File bodies go to the
// connection through io.ReaderFrom, which lets net/http use sendfile. An
// [OpenFileCache] keeps descriptors and stat results between requests, as
// NGINX's open_file_cache does; checked on every use (a negative
// Options.OpenFileCacheValid, the mosaic binary's default), it costs an
// lstat per path component, for paths of up to two, where an open costs an
// open, an fstat and a close.
package static
