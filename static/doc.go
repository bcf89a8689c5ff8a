// Package static serves files from a directory the way NGINX's static and
// index modules do: the same ETag and Last-Modified formats, conditional
// requests, byte ranges (single and multipart), directory redirects, index
// files and error statuses.
//
// It is a plain net/http handler. The mosaic server calls ServePath after it
// has mapped the request URI to a path through root, alias or try_files; a Go
// program can use the FileServer returned by Handler directly.
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
