// Package connfields marks a request whose response a cache stores: the
// upstream's Proxy-Connection, TE and Upgrade are then to reach the
// cache whatever the client's protocol, since NGINX stores the upstream's
// header as it came and a later HTTP/1.x hit gets them; the cache keeps
// them back from an HTTP/2 client itself. The mark rides on the
// request's context, so that a filter between the cache and the proxy,
// which hands the proxy a writer of its own, does not hide it, as
// asking the writer for it would.
package connfields

import "context"

type keptKey struct{}

// Keep returns ctx marked: the response's writer keeps the upstream's
// connection fields back from an HTTP/2 client itself.
func Keep(ctx context.Context) context.Context {
	return context.WithValue(ctx, keptKey{}, true)
}

// Kept reports whether ctx is marked by Keep.
func Kept(ctx context.Context) bool {
	v, _ := ctx.Value(keptKey{}).(bool)
	return v
}
