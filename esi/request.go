package esi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// FragmentHeader returns the header of a fragment request made for a client
// request with header h, shaped as Varnish shapes its ESI subrequests. The
// client's headers are carried over, except:
//
//   - the conditional ones (If-*) and Range, so that a fragment never
//     answers 304 or 206 to a request the client did not make for it;
//   - those of a request body (Content-*, Transfer-Encoding, Trailer,
//     Expect): a fragment request is a GET without one;
//   - the hop-by-hop ones (Connection and what it names, Keep-Alive,
//     Proxy-Connection, TE, Upgrade);
//   - Accept-Encoding: fragments are spliced as plaintext, so they are asked
//     for in plaintext (a gzipped one is still inflated).
//
// Several Cookie headers, as HTTP/2 clients send them, are merged into one
// with "; ". The result shares nothing with h.
func FragmentHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	// The values share one array, as http.Header.Clone's do: one
	// allocation rather than one per field. A capacity that ends with
	// each field keeps an append to one from writing into the next.
	n := 0
	for _, v := range h {
		n += len(v)
	}
	all := make([]string, 0, n)
	var connection []string
	for _, v := range h.Values("Connection") {
		for f := range strings.SplitSeq(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				connection = append(connection, http.CanonicalHeaderKey(f))
			}
		}
	}
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if dropFromFragment(ck) || slices.Contains(connection, ck) {
			continue
		}
		if ck == "Cookie" && len(v) > 1 {
			out[ck] = []string{strings.Join(v, "; ")}
			continue
		}
		if prev, ok := out[ck]; ok { // the key twice, spelled differently
			out[ck] = append(prev, v...)
			continue
		}
		start := len(all)
		all = append(all, v...)
		out[ck] = all[start:len(all):len(all)]
	}
	return out
}

func dropFromFragment(k string) bool {
	if strings.HasPrefix(k, "If-") || strings.HasPrefix(k, "Content-") {
		return true
	}
	switch k {
	case "Range", "Transfer-Encoding", "Trailer", "Expect", "Accept-Encoding",
		"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Upgrade":
		return true
	}
	return false
}

// newFragmentRequest builds the GET for a resolved include.
func newFragmentRequest(ctx context.Context, parent *http.Request, u *url.URL) *http.Request {
	// Built in place and copied once by WithContext, the only way to set
	// a request's context.
	req := http.Request{
		Method:     http.MethodGet,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     FragmentHeader(parent.Header),
		Body:       http.NoBody,
		Host:       parent.Host,
		RemoteAddr: parent.RemoteAddr,
		RequestURI: u.RequestURI(),
		TLS:        parent.TLS,
	}
	return req.WithContext(ctx)
}

// resolve turns an include's src (entities already decoded) into the URL of
// a local request: relative references resolve against the page's path,
// root-relative ones stand as they are, and absolute or scheme-relative ones
// are accepted only for the page's own authority (host and port, default
// ports ignored), which reduces them to their path and query. url.Parse
// percent-decodes the path, which is the form location matching works on.
func resolve(parent *http.Request, src string) (*url.URL, error) {
	if src == "" {
		return nil, errors.New("include without src")
	}
	u, err := url.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("invalid src: %w", err)
	}
	if u.Scheme != "" || u.Host != "" {
		scheme := strings.ToLower(u.Scheme)
		if scheme != "" && scheme != "http" && scheme != "https" || u.Opaque != "" {
			return nil, fmt.Errorf("src %q refused: only http and https URLs of this site can be included", src)
		}
		if u.User != nil || !sameAuthority(u, scheme, parent) {
			return nil, fmt.Errorf("src %q refused: its authority is not this request's host %q; map remote fragments through a local location that proxies", src, parent.Host)
		}
	}
	// The reference is u without its authority and fragment, kept in u.
	*u = url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery, ForceQuery: u.ForceQuery}
	ref := u
	if strings.HasPrefix(ref.Path, "/") && !strings.Contains(ref.Path, "/.") {
		return ref, nil // root-relative and already clean: the common case
	}
	base := &url.URL{Path: parent.URL.Path, RawPath: parent.URL.RawPath}
	if base.Path == "" {
		base.Path = "/"
	}
	return base.ResolveReference(ref), nil
}

func sameAuthority(u *url.URL, scheme string, r *http.Request) bool {
	own := "http"
	if r.TLS != nil {
		own = "https"
	}
	if scheme == "" {
		scheme = own
	}
	return strings.EqualFold(withoutDefaultPort(u.Host, scheme), withoutDefaultPort(r.Host, own))
}

func withoutDefaultPort(host, scheme string) string {
	if scheme == "https" {
		return strings.TrimSuffix(host, ":443")
	}
	return strings.TrimSuffix(host, ":80")
}
