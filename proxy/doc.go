// Package proxy is a reverse proxy usable as net/http middleware, with the
// semantics and defaults of NGINX's proxy_pass: upstream groups, smooth
// weighted round robin, passive health checks, keepalive connection
// reuse, https upstreams, streaming in both directions and protocol
// upgrades.
//
// New builds a Handler from Options; an Upstream, shared by the handlers
// that proxy to it, holds a group's balancer state and idle connections.
//
// The proxy knows nothing of what stands in front of it. Code that must
// tell an upstream's response from the proxy's own error page, such as a
// cache that would serve a stale entry instead, sets Options.OnFailure,
// which is given the Failure, named as NGINX's proxy_next_upstream and
// proxy_cache_use_stale name it.
//
// The server's upstream block and proxy_* directives are wired in
// modules/proxymod, which builds Options from them.
package proxy
