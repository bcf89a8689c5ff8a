package gateway

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
	"github.com/mosaic-edge/mosaic/vars"
)

// TestParamsRevalidation pins where a cache's revalidation puts the
// entry's validators, by Append and by an Encoder, from the map and from
// the client's lines: after the configured parameters, before the
// client's lines, HTTP_IF_MODIFIED_SINCE then HTTP_IF_NONE_MATCH, as
// NGINX 1.22's ngx_http_fastcgi_cache_headers go; a configured parameter
// of the name takes its place; a validator the entry lacks is not sent
// empty (NGINX's skip_empty); without pass_request_headers they still go
// (they are NGINX's parameters, not lines); and without the cache's mark
// a client's own conditionals stay at their place among the lines.
// appendHeaders tests the mark and the validators in whichever order is
// cheaper: these cases hold for every order.
func TestParamsRevalidation(t *testing.T) {
	const lm = "Sat, 01 Jan 2022 00:00:00 GMT"
	lines := "Host: a\r\nX-First: 1\r\nIf-None-Match: \"client\"\r\nX-Last: 2\r\n"
	set := []Param{{Name: "SCRIPT_NAME", Literal: "/s"}, {Name: "HTTP_X_SET", Literal: "1"}}
	for _, tc := range []struct {
		name       string
		mark       bool
		params     []Param
		pass       bool
		validators map[string]string // the map's If-* fields (the entry's, with mark)
		want       string
	}{
		{"both", true, set, true, map[string]string{"If-None-Match": `"e1"`, "If-Modified-Since": lm},
			"SCRIPT_NAME=/s HTTP_X_SET=1 HTTP_IF_MODIFIED_SINCE=" + lm + ` HTTP_IF_NONE_MATCH="e1" HTTP_HOST=a HTTP_X_FIRST=1 HTTP_X_LAST=2`},
		{"etag only", true, set, true, map[string]string{"If-None-Match": `"e1"`},
			`SCRIPT_NAME=/s HTTP_X_SET=1 HTTP_IF_NONE_MATCH="e1" HTTP_HOST=a HTTP_X_FIRST=1 HTTP_X_LAST=2`},
		{"configured name", true, append(slices.Clone(set), Param{Name: "HTTP_IF_NONE_MATCH", Literal: "x"}), true,
			map[string]string{"If-None-Match": `"e1"`, "If-Modified-Since": lm},
			"SCRIPT_NAME=/s HTTP_X_SET=1 HTTP_IF_NONE_MATCH=x HTTP_IF_MODIFIED_SINCE=" + lm + " HTTP_HOST=a HTTP_X_FIRST=1 HTTP_X_LAST=2"},
		{"no lines passed", true, set, false, map[string]string{"If-None-Match": `"e1"`, "If-Modified-Since": lm},
			"SCRIPT_NAME=/s HTTP_X_SET=1 HTTP_IF_MODIFIED_SINCE=" + lm + ` HTTP_IF_NONE_MATCH="e1"`},
		{"no mark", false, set, true, map[string]string{"If-None-Match": `"client"`},
			`SCRIPT_NAME=/s HTTP_X_SET=1 HTTP_HOST=a HTTP_X_FIRST=1 HTTP_IF_NONE_MATCH="client" HTTP_X_LAST=2`},
	} {
		for _, fromLines := range []bool{false, true} {
			r := httptest.NewRequest("GET", "http://a/", nil)
			r.Header["X-First"] = []string{"1"}
			r.Header["X-Last"] = []string{"2"}
			for k, v := range tc.validators {
				r.Header[k] = []string{v}
			}
			if tc.mark {
				r = r.WithContext(header.WithRevalidation(r.Context()))
			}
			want := tc.want
			if fromLines {
				r = r.WithContext(vars.NewContext(r.Context(), &vars.State{HeaderLines: lines}))
			} else if !tc.mark {
				// The map's walk sorts the names.
				want = strings.Replace(want, `HTTP_X_FIRST=1 HTTP_IF_NONE_MATCH="client"`, `HTTP_IF_NONE_MATCH="client" HTTP_X_FIRST=1`, 1)
			}
			p := NewParams(tc.params, tc.pass)
			var got []string
			for _, v := range p.Append(nil, r) {
				got = append(got, v.Name+"="+v.Value)
			}
			if g := strings.Join(got, " "); g != want {
				t.Errorf("%s, lines %v, Append:\ngot  %s\nwant %s", tc.name, fromLines, g, want)
			}
			// Each pair written as " name=value": a head, then the value.
			head := func(dst []byte, name string, _ int) []byte { return append(append(append(dst, ' '), name...), '=') }
			enc := func(dst []byte, name, value string) []byte { return append(head(dst, name, len(value)), value...) }
			if g := strings.TrimPrefix(string(p.Encoder(&PairEncoding{Pair: enc, Head: head})(nil, r)), " "); g != want {
				t.Errorf("%s, lines %v, Encoder:\ngot  %s\nwant %s", tc.name, fromLines, g, want)
			}
		}
	}
}

// A marked request whose map is empty or nil (a module took every field
// out) sends no validator and does not fail.
func TestParamsRevalidationEmptyHeader(t *testing.T) {
	for _, h := range []map[string][]string{{}, nil} {
		r := httptest.NewRequest("GET", "http://a/", nil)
		r.Header = h
		r = r.WithContext(header.WithRevalidation(r.Context()))
		got := NewParams(nil, true).Append(nil, r)
		if want := []Var{{"HTTP_HOST", "a"}}; !slices.Equal(got, want) {
			t.Errorf("header %v: got %v, want %v", h, got, want)
		}
	}
}
