package headers_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mosaic-edge/mosaic/headers"
	"github.com/mosaic-edge/mosaic/vars"
)

// The equivalent of
//
//	add_header X-Served-By $host;
//	add_header X-Debug on always;
//	expires 1h;
func ExampleNew() {
	files := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "hello")
	})
	h, err := headers.New(files, headers.Options{
		Headers: []headers.Header{
			{Name: "X-Served-By", Value: vars.MustCompile("$host")},
			{Name: "X-Debug", Value: vars.MustCompile("on"), Always: true},
		},
		Expires: headers.Expires{Mode: headers.ExpiresAccess, D: time.Hour},
	})
	if err != nil {
		log.Fatal(err)
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/", nil))
	resp := w.Result()
	fmt.Println(resp.Status)
	fmt.Println("X-Served-By:", resp.Header.Get("X-Served-By"))
	fmt.Println("X-Debug:", resp.Header.Get("X-Debug"))
	fmt.Println("Cache-Control:", resp.Header.Get("Cache-Control"))
	// Expires is an hour from now: a date that changes with every run.
	fmt.Println("Expires set:", resp.Header.Get("Expires") != "")
	// Output:
	// 200 OK
	// X-Served-By: example.com
	// X-Debug: on
	// Cache-Control: max-age=3600
	// Expires set: true
}

// A response with an error status gets only the headers marked Always.
func ExampleNew_errorStatus() {
	missing := http.NotFoundHandler()
	h, err := headers.New(missing, headers.Options{
		Headers: []headers.Header{
			{Name: "X-Frame-Options", Value: vars.MustCompile("DENY"), Always: true},
			{Name: "X-Cache-Hint", Value: vars.MustCompile("static")},
		},
		Expires: headers.Expires{Mode: headers.ExpiresMax},
	})
	if err != nil {
		log.Fatal(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/gone", nil))
	fmt.Println(w.Code, w.Header().Get("X-Frame-Options"), w.Header().Get("X-Cache-Hint") == "", w.Header().Get("Expires") == "")
	// Output: 404 DENY true true
}
