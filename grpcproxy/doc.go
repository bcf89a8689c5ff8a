// Package grpcproxy passes gRPC calls to gRPC servers over HTTP/2, as
// NGINX's grpc_pass does: in the clear with prior knowledge (grpc://) or
// over TLS with ALPN h2 (grpcs://), to one server, an upstream group
// balanced by package proxy, or a Unix-domain socket. Request and
// response bodies stream both ways at once, so unary, server-streaming,
// client-streaming and bidirectional calls all work; the response's
// trailers (grpc-status, grpc-message) reach the client as trailers.
//
// Handler is a net/http handler usable without the server; the server's
// grpc_* directives are wired in modules/grpcmod.
package grpcproxy
