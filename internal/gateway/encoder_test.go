package gateway

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// toyHead is a length-prefixed encoding of a parameter's head: the
// name's length, the value's length in one byte up to 3 (toyShort) or
// else as 0xff and two bytes, then the name, so that a head made once
// and patched (PairEncoding.Short) is seen at and past its boundary.
func toyHead(dst []byte, name string, n int) []byte {
	dst = append(dst, byte(len(name)))
	if n <= toyShort {
		dst = append(dst, byte(n))
	} else {
		dst = append(dst, 0xff, byte(n>>8), byte(n))
	}
	return append(dst, name...)
}

const toyShort = 3

func toyPair(dst []byte, name, value string) []byte {
	return append(toyHead(dst, name, len(value)), value...)
}

// TestEncoderMatchesAppend: whether heads are made once (Short) or not,
// an Encoder writes what Append's parameters make pair by pair, for
// computed values and templates of lengths 0, Short and Short+1, with
// and without if_not_empty.
func TestEncoderMatchesAppend(t *testing.T) {
	tmpl := vars.MustCompile("$arg_a$arg_b")
	val := func(s string) func(*http.Request, *vars.State) string {
		return func(*http.Request, *vars.State) string { return s }
	}
	p := NewParams([]Param{
		{Name: "FIXED", Literal: "f"},
		{Name: "EMPTY", Value: val("")},
		{Name: "GONE", Value: val(""), IfNotEmpty: true},
		{Name: "SHORT", Value: val("sss")},
		{Name: "LONGER", Value: val("llll")},
		{Name: "T", Value: tmpl.EvalState, Template: tmpl},
		{Name: "TGONE", Value: tmpl.EvalState, Template: tmpl, IfNotEmpty: true},
	}, false)
	for _, args := range []string{"", "a=1&b=22", "a=12&b=34"} {
		r := httptest.NewRequest("GET", "/?"+args, nil)
		var want []byte
		for _, v := range p.Append(nil, r) {
			want = toyPair(want, v.Name, v.Value)
		}
		for _, short := range []int{0, toyShort} {
			got := p.Encoder(PairEncoding{Pair: toyPair, Head: toyHead, Short: short})(nil, r)
			if !bytes.Equal(got, want) {
				t.Errorf("args %q, Short %d:\ngot  %q\nwant %q", args, short, got, want)
			}
		}
		// The template's value is there: its arguments, or nothing, and
		// then if_not_empty leaves its second pair out.
		if strings.Contains(string(want), "TGONE"+r.URL.Query().Get("a")) != (args != "") {
			t.Errorf("args %q: the templates' pairs %q", args, want)
		}
	}
}
