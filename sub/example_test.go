package sub_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/mosaic-edge/mosaic/sub"
	"github.com/mosaic-edge/mosaic/vars"
)

// The equivalent of
//
//	sub_filter http://origin.internal/ /;
//	sub_filter </body> '<p>served for $host</p></body>';
//	sub_filter_once off;
func ExampleNew() {
	app := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<a href="http://origin.internal/a">a</a> <a href="HTTP://ORIGIN.INTERNAL/b">b</a></BODY>`)
	})
	h := sub.New(app, sub.Options{
		Pairs: []sub.Pair{
			{Match: vars.MustCompile("http://origin.internal/"), Replace: vars.MustCompile("/")},
			{Match: vars.MustCompile("</body>"), Replace: vars.MustCompile("<p>served for $host</p></body>")},
		},
	})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "http://example.com/", nil))
	w.Body.WriteTo(os.Stdout)
	// Output: <a href="/a">a</a> <a href="/b">b</a><p>served for example.com</p></body>
}

// A Replacer rewrites any stream, held back no more than the longest
// pattern, however the text is cut into writes.
func ExampleReplacer() {
	z := sub.NewReplacer(os.Stdout, sub.Compile([]string{"world"}), false, func(int) []byte { return []byte("there") })
	for _, s := range []string{"hello wo", "rld, hello W", "ORLD\n"} {
		z.Write([]byte(s))
	}
	z.Close()
	// Output: hello there, hello there
}
