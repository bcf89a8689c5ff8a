// Package cache is an HTTP cache usable as net/http middleware: RFC 9111
// (a shared cache) and RFC 5861 semantics with NGINX's proxy_cache_*
// rules, over memory, disk and Redis/Valkey stores.
//
// New puts a Cache in front of the handler that produces the responses to
// store. The cache does not know what that handler is: a reverse proxy
// (mosaic's proxy package, httputil.ReverseProxy) or any other. It asks
// the handler for a response by calling it with a Fill, an
// http.ResponseWriter that tees what is written to the client and to the
// store. The one thing the cache cannot tell from the response itself is
// whether it is the origin's answer or the handler's own error page for
// an origin it could not reach; a handler says so with Fill.Fail (or
// ReportFailure, which finds the Fill behind wrapping writers), and the
// cache then stores nothing and may serve a stale entry instead.
//
// PurgeHandler and MetricsHandler are the administrative endpoints of a
// Store and of the counters (Stats) of one or more caches.
//
// The server's proxy_cache_* directives are wired in modules/cachemod,
// which builds Options from them and puts the Cache in front of the
// location's proxy.
package cache
