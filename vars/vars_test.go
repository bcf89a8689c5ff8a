package vars

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTemplate(t *testing.T) {
	r := httptest.NewRequest("GET", "http://Example.COM:8080/a/b?x=1&Name=v", nil)
	r.RemoteAddr = "10.1.2.3:4567"
	r.Header.Set("User-Agent", "ua/1")
	r.Header.Add("X-Multi", "a")
	r.Header.Add("X-Multi", "b")
	r.AddCookie(&http.Cookie{Name: "sid", Value: "abc"})
	st := &State{Start: time.Now(), ConnID: 7, ServerName: "srv", Status: 404, BodyBytes: 10, HeaderBytes: 5,
		Header: http.Header{"Content-Type": {"text/html"}}, Captures: []string{"/a/b", "a"}}
	st.Set("module_value", "127.0.0.1:9000")
	r = r.WithContext(NewContext(r.Context(), st))

	cases := map[string]string{
		"plain":                         "plain",
		"$remote_addr:$remote_port":     "10.1.2.3:4567",
		"$request":                      "GET http://Example.COM:8080/a/b?x=1&Name=v HTTP/1.1",
		"$uri|$args|$is_args":           "/a/b|x=1&Name=v|?",
		"$host":                         "example.com",
		"${host}x":                      "example.comx",
		"$http_user_agent":              "ua/1",
		"$http_x_multi":                 "a", // NGINX 1.22: the first line
		"$arg_x $arg_name $arg_missing": "1 v ",
		"$cookie_sid":                   "abc",
		"$status $body_bytes_sent $bytes_sent $connection": "404 10 15 7",
		"$sent_http_content_type":                          "text/html",
		"$server_name":                                     "srv",
		"$1-$5":                                            "a-",
		"$12_x":                                            "a2_x",
		"$scheme":                                          "http",
	}
	for src, want := range cases {
		tpl, err := Compile(src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got := tpl.Eval(r); got != want {
			t.Errorf("%q = %q, want %q", src, got, want)
		}
		// Getter, which FastCGI's parameters call, computes the same.
		if got := tpl.Getter()(r, st); got != want {
			t.Errorf("%q: Getter gives %q, want %q", src, got, want)
		}
	}
	if !MustCompile("abc").Static() || MustCompile("a$uri").Static() {
		t.Fatal("Static")
	}
	if MustCompile("abc").Literal() != "abc" {
		t.Fatal("Literal")
	}
}

// registerTestState registers $test_module_value once per test binary:
// the registry is the process's, and a name registered twice panics, so
// "go test -count=2" would panic on the second run.
var registerTestState sync.Once

func TestRegisterState(t *testing.T) {
	registerTestState.Do(func() { RegisterState("test_module_value") })
	// A second registration is the programming error Register refuses,
	// on every run, and leaves the first one in place.
	func() {
		defer func() {
			if recover() == nil {
				t.Error("registering $test_module_value again did not panic")
			}
		}()
		RegisterState("test_module_value")
	}()
	r := httptest.NewRequest("GET", "/", nil)
	st := &State{}
	st.Set("test_module_value", "v1")
	r = r.WithContext(NewContext(r.Context(), st))
	if got := MustCompile("[$test_module_value]").Eval(r); got != "[v1]" {
		t.Fatalf("got %q", got)
	}
}

func TestTemplateErrors(t *testing.T) {
	for src, want := range map[string]string{
		"$nope":  `unknown "nope" variable`,
		"${uri":  "closing bracket",
		"a${}b":  "invalid variable name",
		"$-oops": "invalid variable name",
		// NGINX refuses a "$" that ends the value too, and names no
		// value in the message: the directive adds its file:line.
		"cost: $": "invalid variable name",
		"$":       "invalid variable name",
		// Only an unbracketed digit from 1 is a capture in NGINX
		// (ngx_http_script_compile); these name variables, unknown.
		"${1}":  `unknown "1" variable`,
		"$0":    `unknown "0" variable`,
		"${0}":  `unknown "0" variable`,
		"${10}": `unknown "10" variable`,
		"$0a":   `unknown "0a" variable`,
		"/${0}": `unknown "0" variable`,
		"$0x":   `unknown "0x" variable`,
	} {
		if _, err := Compile(src); err == nil || !strings.Contains(err.Error(), want) ||
			want == ErrInvalidName.Error() && err.Error() != want {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}

func TestStateNilSafe(t *testing.T) {
	var st *State
	st.Set("a", "b")
	if _, ok := st.Get("a"); ok {
		t.Fatal("nil state stored a value")
	}
	if FromContext(context.Background()) != nil {
		t.Fatal("state from empty context")
	}
	r := httptest.NewRequest("GET", "/", nil)
	if got := MustCompile("$status|$request_time").Eval(r); got != "000|0.000" {
		t.Fatalf("without state: %q", got)
	}
}

func TestTimeFormats(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	if v := MustCompile("$msec").Eval(r); len(v) < 14 || v[len(v)-4] != '.' {
		t.Fatalf("msec %q", v)
	}
	if _, err := time.Parse("02/Jan/2006:15:04:05 -0700", MustCompile("$time_local").Eval(r)); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, MustCompile("$time_iso8601").Eval(r)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkTemplateEval(b *testing.B) {
	r := httptest.NewRequest("GET", "/a/b?x=1", nil)
	r = r.WithContext(NewContext(r.Context(), &State{Status: 200}))
	tpl := MustCompile("$remote_addr - $request $status")
	b.ReportAllocs()
	for b.Loop() {
		_ = tpl.Eval(r)
	}
}

// TestPartsTellEmptyFromNone: Parts gives each variable's value and
// whether it has one, as NGINX's access log needs them: a field, argument
// or cookie sent empty has an empty value, one not sent has none, and a
// variable of the configuration (map, set) always has one.
func TestPartsTellEmptyFromNone(t *testing.T) {
	sc := NewScope()
	if _, err := sc.Define("m", func(*http.Request, *State) string { return "" }, false); err != nil {
		t.Fatal(err)
	}
	tpl, err := sc.Compile("$http_x_e $http_x_none $arg_a $arg_none $cookie_c $cookie_none $m $http_x_fam", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Resolve(); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("GET", "/?a=", nil)
	r.Header["X-E"] = []string{""}
	r.Header["X-Fam"] = []string{""}
	r.Header["Cookie"] = []string{"c="}
	var got []bool
	tpl.Parts(func(string) {}, func(val Value) {
		v, ok := val(r, &State{})
		if v != "" {
			t.Errorf("value %q, want empty", v)
		}
		got = append(got, ok)
	})
	want := []bool{true, false, true, false, true, false, true, true}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("has a value: %v, want %v", got, want)
	}

	// The registry's variables whose templates call a plain getter
	// (RegisterAlways, registerBoth) keep their Value's presence: an
	// empty Content-Type is a value, no arguments none, the ports and
	// $https (plain HTTP) always one.
	tpl = MustCompile("$content_type $args $query_string $https $remote_port $server_port $content_type")
	r = httptest.NewRequest("GET", "/", nil)
	got = got[:0]
	for i, h := range []http.Header{{}, {"Content-Type": {""}}} {
		r.Header = h
		tpl.Parts(func(string) {}, func(val Value) {
			_, ok := val(r, &State{})
			got = append(got, ok)
		})
		want := []bool{i == 1, false, false, true, true, true, i == 1}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("header %v: has a value: %v, want %v", h, got, want)
		}
		got = got[:0]
	}
}
