// Package testclient sends the requests of tests and reads the answers
// whole, failing the test on any error.
package testclient

import (
	"io"
	"net/http"
	"testing"
)

// client is Go's default client that does not follow redirects: a test
// sees the response the server sent.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}

// Do sends a request to url with header name/value pairs, without
// following redirects, and returns the response with its body read.
func Do(t testing.TB, method, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, string(body)
}

// Get is Do for a GET.
func Get(t testing.TB, url string, header ...string) (*http.Response, string) {
	t.Helper()
	return Do(t, http.MethodGet, url, header...)
}
