package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// TestH2DateIsTheResponseTime: over HTTP/2 (Go's server, which keeps no
// reading of the clock for a response), the time that the filters count
// from (header.ResponseTime: Expires, gzip_proxied's "expired") is the
// one the Date field goes out with, even when a second ends before the
// header is written, as HTTP/1's TestExpiresCarriesItsDate checks for
// mosaic's own server. The Date put in the header map for the writer is
// gone once the header is taken ($sent_http_date stays empty, as in NGINX).
func TestH2DateIsTheResponseTime(t *testing.T) {
	mapDate := make(chan []string, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := newRecorder(w, &vars.State{})
		defer rw.release()
		now := header.ResponseTime(rw)
		rw.Header().Set("Expires", now.UTC().Format(http.TimeFormat))
		time.Sleep(time.Until(now.Truncate(time.Second).Add(time.Second)) + time.Millisecond)
		rw.WriteHeader(http.StatusOK)
		_, _ = rw.Write([]byte("body"))
		mapDate <- rw.Header()["Date"]
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Fatalf("served over %s", resp.Proto)
	}
	if e, d := resp.Header.Get("Expires"), resp.Header.Get("Date"); e == "" || e != d {
		t.Errorf("across a second's end: Expires %q, Date %q", e, d)
	}
	if d := <-mapDate; d != nil {
		t.Errorf("the header map kept Date %q", d)
	}
}
