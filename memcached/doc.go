// Package memcached fetches responses stored in memcached, as NGINX's
// ngx_http_memcached_module does: a "get" of one key, the key escaped as
// NGINX escapes it, the answer's first line parsed as NGINX parses it
// (VALUE, END, or anything else, which is an invalid answer), and the
// value followed by its "\r\nEND\r\n" trailer.
//
// Wire speaks this protocol for the proxy package's Options.Wire, which
// the server's memcached_pass uses (modules/memcachedmod); Client and
// Handler use it on their own, as a net/http handler in front of one
// memcached server.
package memcached
