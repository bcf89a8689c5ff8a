package proxy

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// A hidden name is left out whatever its length, one of 63 bytes or more
// included, while a name of the same length as a hidden one, and one of
// another length, pass.
func TestCopyHeaderHidesByName(t *testing.T) {
	long := "X-Long" + strings.Repeat("l", 80)
	p, err := ParsePass("http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Pass: p, HideHeaders: []string{"X-Secret", long}})
	if err != nil {
		t.Fatal(err)
	}
	src := http.Header{
		"X-Secret":                         {"s"},
		"X-Public":                         {"p"}, // as long as X-Secret
		long:                               {"l"},
		"X-More" + strings.Repeat("m", 80): {"m"},
		"Status":                           {"200"},
		"Content-Type":                     {"a/b", "c/d"},
		"X-Accel-Redirect":                 {"/x"}, // hidden by default
		"X-Accel-Redirectx":                {"/y"},
	}
	dst := http.Header{}
	h.copyHeader(dst, src, false, false)
	want := http.Header{
		"X-Public":                         {"p"},
		"X-More" + strings.Repeat("m", 80): {"m"},
		"Status":                           {"200"},
		"Content-Type":                     {"c/d"},
		"X-Accel-Redirectx":                {"/y"},
	}
	if !reflect.DeepEqual(dst, want) {
		t.Errorf("passed %q\nwant   %q", dst, want)
	}
}
