package ssi

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
)

// FetchHandler returns a Fetcher that serves includes from h in process,
// for a Go program without the server: the request is a GET of uri
// with the page's header and context (so h's own SSI processor shares
// the page's variables), and the response is buffered.
func FetchHandler(h http.Handler) Fetcher {
	return func(parent *http.Request, uri string) (*http.Response, error) {
		u, err := url.Parse(uri)
		if err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(parent.Context(), http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, err
		}
		req.Header, req.Host, req.RemoteAddr, req.RequestURI = parent.Header.Clone(), parent.Host, parent.RemoteAddr, u.RequestURI()
		rec := &recorder{header: http.Header{}}
		h.ServeHTTP(rec, req)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		return &http.Response{StatusCode: rec.status, Header: rec.header, Body: io.NopCloser(&rec.body)}, nil
	}
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

// WriteHeader keeps the first final status. A 1xx other than 101 is
// informational (103 Early Hints from a proxied include), as for
// net/http's ResponseWriter: the final status is still to come.
func (r *recorder) WriteHeader(code int) {
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		return
	}
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
