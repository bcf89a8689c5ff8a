package accesslog_test

import (
	"bytes"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mosaic-edge/mosaic/accesslog"
)

// The equivalent of
//
//	log_format short '$remote_addr "$request" $status $body_bytes_sent';
//	access_log ... short;
//
// writing to a bytes.Buffer. A line holds no time here, so that the output
// is the same on every run.
func ExampleNew() {
	format, err := accesslog.NewFormat("short", `$remote_addr "$request" $status $body_bytes_sent`, accesslog.EscapeDefault)
	if err != nil {
		log.Fatal(err)
	}
	var buf bytes.Buffer
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, "hello")
	})
	h, err := accesslog.New(hello, accesslog.Options{Targets: []accesslog.Target{
		// Size 0: every line is one write to buf, with no buffering.
		{File: accesslog.NewFile(&buf, 0, 0), Format: format},
	}})
	if err != nil {
		log.Fatal(err)
	}

	r := httptest.NewRequest("GET", "/greeting?lang=en", nil)
	r.RemoteAddr = "198.51.100.7:52000"
	h.ServeHTTP(httptest.NewRecorder(), r)
	fmt.Print(buf.String())
	// Output:
	// 198.51.100.7 "GET /greeting?lang=en HTTP/1.1" 201 5
}
