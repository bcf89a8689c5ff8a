package static_test

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/mosaic-edge/mosaic/static"
)

// A FileServer is an http.Handler for the files below one directory.
func ExampleNew() {
	root, err := os.MkdirTemp("", "static-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	if err := os.WriteFile(filepath.Join(root, "index.html"), []byte("<p>hello</p>\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	files, err := static.New(static.Options{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	defer files.Close()
	srv := httptest.NewServer(files)
	defer srv.Close()

	for _, path := range []string{"/", "/missing.html"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			log.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Printf("%s: %s, %s\n", path, resp.Status, resp.Header.Get("Content-Type"))
		if resp.StatusCode == http.StatusOK {
			fmt.Print(string(body))
		}
	}
	// Output:
	// /: 200 OK, text/html; charset=utf-8
	// <p>hello</p>
	// /missing.html: 404 Not Found, text/html
}

// Precompressed copies beside the files (style.css.gz) are served to the
// clients that accept their coding when Options.Variants names them; the
// compress package's Precompressed negotiates them as NGINX's gzip_static
// does.
func ExampleOptions_variants() {
	root, err := os.MkdirTemp("", "static-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	for name, body := range map[string]string{"style.css": "body { margin: 0 }\n", "style.css.gz": "(gzip bytes)"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			log.Fatal(err)
		}
	}

	gz := []static.Variant{{Suffix: ".gz", Encoding: "gzip"}}
	files, err := static.New(static.Options{
		Root: root,
		Variants: func(r *http.Request) ([]static.Variant, bool) {
			if r.Header.Get("Accept-Encoding") == "gzip" { // a real server negotiates
				return gz, true
			}
			return nil, false
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	defer files.Close()

	for _, accept := range []string{"gzip", ""} {
		req := httptest.NewRequest("GET", "/style.css", nil)
		req.Header.Set("Accept-Encoding", accept)
		rec := httptest.NewRecorder()
		files.ServeHTTP(rec, req)
		fmt.Printf("%q: %s %q %q\n", accept, rec.Header().Get("Content-Type"),
			rec.Header().Get("Content-Encoding"), rec.Body.String())
	}
	// Output:
	// "gzip": text/css; charset=utf-8 "gzip" "(gzip bytes)"
	// "": text/css; charset=utf-8 "" "body { margin: 0 }\n"
}
