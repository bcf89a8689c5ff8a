package compress_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/compress"
)

// New wraps any handler; a client that accepts gzip gets the response
// gzip-encoded, one that does not gets it as it was.
func ExampleNew() {
	page := strings.Repeat("<p>The same paragraph, again and again.</p>\n", 50)
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, page)
	})

	opts := compress.DefaultOptions() // every directive's default: all codings off
	opts.Gzip.Enable = true
	opts.Vary = true
	h, err := compress.New(app, opts)
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, accept := range []string{"gzip", "identity"} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		// Set by hand, Accept-Encoding also stops the client from
		// decoding the body itself.
		req.Header.Set("Accept-Encoding", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		var body io.Reader = resp.Body
		if resp.Header.Get("Content-Encoding") == "gzip" {
			if body, err = gzip.NewReader(resp.Body); err != nil {
				log.Fatal(err)
			}
		}
		b, _ := io.ReadAll(body)
		resp.Body.Close()
		fmt.Printf("%s: Content-Encoding %q, Vary %q, body intact %v\n", accept,
			resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), string(b) == page)
	}
	// Output:
	// gzip: Content-Encoding "gzip", Vary "Accept-Encoding", body intact true
	// identity: Content-Encoding "", Vary "Accept-Encoding", body intact true
}

// Options that no directive would accept are refused when the handler is
// built, not when a request comes.
func ExampleNew_invalid() {
	opts := compress.DefaultOptions()
	opts.Brotli.Enable = true
	opts.Brotli.Level = 12
	_, err := compress.New(http.NotFoundHandler(), opts)
	fmt.Println(err)
	// Output:
	// compress: invalid options: brotli_comp_level 12: must be 0..11
}

// Precompressed chooses the precompressed copies of a file that a client
// gets, as brotli_static and gzip_static do; a file server turns them
// into file names (package static takes Choose as its Options.Variants).
func ExampleNewPrecompressed() {
	opts := compress.DefaultOptions()
	opts.Brotli.Static = compress.StaticOn
	opts.Gzip.Static = compress.StaticOn
	suffix := func(e compress.Encoding, _ bool) string { return e.Extension() }
	p := compress.NewPrecompressed(opts, suffix)

	for _, accept := range []string{"gzip, deflate, br, zstd", "gzip", ""} {
		req := httptest.NewRequest("GET", "/app.js", nil)
		req.Header.Set("Accept-Encoding", accept)
		try, _ := p.Choose(req)
		fmt.Printf("%q: try %q\n", accept, try)
	}
	// Output:
	// "gzip, deflate, br, zstd": try [".br" ".gz"]
	// "gzip": try [".gz"]
	// "": try []
}
