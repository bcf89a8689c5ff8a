package gateway

import (
	"net/http/httptest"
	"slices"
	"testing"
)

// A chunked request reaches the application with the Transfer-Encoding
// line the client sent, which the server took out of Header, as NGINX
// passes the lines.
func TestParamsChunkedRequest(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	r.TransferEncoding = []string{"chunked"}
	r.Header.Set("X-A", "a")
	got := NewParams(nil, true).Append(nil, r)
	want := []Var{{"HTTP_HOST", "example.com"}, {"HTTP_TRANSFER_ENCODING", "chunked"}, {"HTTP_X_A", "a"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	r.TransferEncoding = nil
	r.Header.Set("Content-Length", "14")
	got = NewParams(nil, true).Append(nil, r)
	if !slices.Contains(got, Var{"HTTP_CONTENT_LENGTH", "14"}) {
		t.Errorf("a Content-Length the client sent is passed: %v", got)
	}
}

// Host and Transfer-Encoding lines a handler left in Header are passed as
// they are there, once each, not again from the request's own fields.
func TestParamsListedHostAndCoding(t *testing.T) {
	r := httptest.NewRequest("POST", "/", nil)
	r.TransferEncoding = []string{"chunked"}
	r.Header["Host"] = []string{"listed.test"}
	r.Header["Transfer-Encoding"] = []string{"gzip, chunked"}
	got := NewParams(nil, true).Append(nil, r)
	want := []Var{{"HTTP_HOST", "listed.test"}, {"HTTP_TRANSFER_ENCODING", "gzip, chunked"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
