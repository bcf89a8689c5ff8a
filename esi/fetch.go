package esi

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
)

// FetchHandler returns a Fetcher that serves fragment requests in process
// with h, buffering each response. When h is itself wrapped by New's
// handler, that handler processes the ESI of the fragments it serves,
// continuing the depth and include bounds of the page; otherwise the
// including page does.
func FetchHandler(h http.Handler) Fetcher {
	return FetchFunc(func(_, req *http.Request) (*Fragment, error) {
		rec := &recorder{header: make(http.Header)}
		h.ServeHTTP(rec, req)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		return &Fragment{Status: rec.status, Header: rec.header, Body: io.NopCloser(&rec.body)}, nil
	})
}

// recorder is the http.ResponseWriter of FetchHandler.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && (code < 100 || code >= 200) {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// HTTPFetch returns a Fetcher that sends fragment requests to origin (scheme
// and host:port) with client, or http.DefaultClient when client is nil. The
// Host header stays the page's, so a name-based origin serves the same site.
// An ESI body of the fragment is processed by the including page, as
// Varnish processes nested ESI itself. A redirect is a fragment like any
// other answer, as Varnish splices it: it is not followed, whatever the
// client's CheckRedirect says, for it could lead to any host.
func HTTPFetch(client *http.Client, origin *url.URL) Fetcher {
	if client == nil {
		client = http.DefaultClient
	}
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client = &c
	return FetchFunc(func(_, req *http.Request) (*Fragment, error) {
		u := *req.URL
		u.Scheme, u.Host = origin.Scheme, origin.Host
		req.URL = &u
		req.RequestURI = ""
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		return &Fragment{Status: resp.StatusCode, Header: resp.Header, Body: resp.Body}, nil
	})
}
