// Package reqkey holds the context keys that only a request's own
// contexts carry, never a connection's or the server's: the ones a module
// puts on a request it serves (context.WithValue over the request's
// context). The server's root of a request's context answers a lookup of
// one that no context above it holds at once, without walking up the
// connection's contexts, which never hold it: most requests carry none
// of them, and each lookup of one would otherwise walk to the end.
package reqkey

// Key is a request's context key (see the package's comment). A key of
// this type must never be put on a context that a connection or the
// server shares between requests: the request's root would not find it.
type Key uint8

// The keys.
const (
	_ Key = iota
	// Revalidation marks a cache's request to revalidate a stored entry
	// (header.WithRevalidation).
	Revalidation
	// Accel holds the X-Accel-Redirect being served (proxy.Accel).
	Accel
)
