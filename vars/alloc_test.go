package vars

import (
	"net/http/httptest"
	"strconv"
	"testing"
)

// Set keeps every value by its name, replacing an earlier one, beyond
// those it holds in place too, and seven cost no allocation (a request
// sets few since the proxy's values are computed when read: $proxy_port,
// the cache's, limit's and compression's).
func TestStateSetGet(t *testing.T) {
	st := &State{}
	for i := 0; i < 25; i++ {
		st.Set("v"+strconv.Itoa(i), strconv.Itoa(i))
	}
	st.Set("v3", "three")
	st.Set("v20", "twenty")
	for i := 0; i < 25; i++ {
		want := strconv.Itoa(i)
		switch i {
		case 3:
			want = "three"
		case 20:
			want = "twenty"
		}
		if v, ok := st.Get("v" + strconv.Itoa(i)); !ok || v != want {
			t.Errorf("v%d = %q %v, want %q", i, v, ok, want)
		}
	}
	if _, ok := st.Get("v25"); ok {
		t.Error("a name never set is found")
	}
	names := []string{"proxy_port", "upstream_cache_status", "limit_req_status", "limit_conn_status",
		"limit_rate", "request_completion", "upstream_status"}
	if n := testing.AllocsPerRun(100, func() {
		st := &State{}
		for _, name := range names {
			st.Set(name, "x")
		}
		if v, _ := st.Get("upstream_status"); v != "x" {
			t.Fatal(v)
		}
	}); n > 1 { // the State itself, where escape analysis puts it on the heap
		t.Errorf("setting seven values allocates %v times", n)
	}
}

// A constant variable is folded into the template's text, which then
// needs no evaluation; one of several variables costs one allocation.
func TestTemplateConstantsAndOneAllocation(t *testing.T) {
	tpl := MustCompile("nginx/$nginx_version")
	if !tpl.Static() || tpl.Literal() != "nginx/"+NGINXVersion {
		t.Errorf("static %v, literal %q", tpl.Static(), tpl.Literal())
	}
	if tpl.String() != "nginx/$nginx_version" {
		t.Errorf("source %q", tpl.String())
	}
	if got := MustCompile("${NGINX_VERSION}-x").Literal(); got != NGINXVersion+"-x" {
		t.Errorf("upper-case name: %q", got)
	}
	r := httptest.NewRequest("GET", "/a/b.php?x=1", nil)
	st := &State{}
	several := MustCompile("$request_method $uri?$args ($nginx_version)")
	want := "GET /a/b.php?x=1 (" + NGINXVersion + ")"
	if got := several.EvalState(r, st); got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { several.EvalState(r, st) }); n != 1 {
		t.Errorf("evaluation allocates %v times", n)
	}
	long := MustCompile("$request_method$request_method$request_method$request_method$request_method" +
		"$request_method$request_method$request_method$request_method$request_method")
	if got := long.EvalState(r, st); got != "GETGETGETGETGETGETGETGETGETGET" {
		t.Errorf("ten parts: %q", got)
	}
}
