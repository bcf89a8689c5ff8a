package static

// file is what open hands a request: what the path names and, for a
// regular file, a descriptor to read it through.
type file struct {
	info fileInfo
	// d is nil when only the stat result is known: a directory or other
	// kind of file that the open file cache keeps without a descriptor.
	d descriptor
	// shared, when set, owns d: the open file cache's descriptor, which
	// other requests read at the same time. It is read at offsets only,
	// never through its file position, and released rather than closed.
	shared *sharedFD
}

// close gives the descriptor back: closes it, or releases the cache's.
func (f *file) close() {
	switch {
	case f.shared != nil:
		f.shared.release()
	case f.d != nil:
		f.d.Close()
	}
}
