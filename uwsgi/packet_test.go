package uwsgi

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestAppendRequestLayout(t *testing.T) {
	b, err := AppendRequest(nil, 5, 9, []Var{{Name: "AB", Value: "xyz"}, {Name: "E", Value: ""}}, []byte("!"))
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{5, 15, 0, 9, 2, 0, 'A', 'B', 3, 0, 'x', 'y', 'z', 1, 0, 'E', 0, 0, '!'}
	if !bytes.Equal(b, want) {
		t.Fatalf("got  % x\nwant % x", b, want)
	}
}

func TestAppendRequestSizeLimit(t *testing.T) {
	// One variable of 4+65529 bytes fills the block exactly.
	fit := []Var{{Name: "K", Value: strings.Repeat("v", MaxVarsSize-5)}}
	b, err := AppendRequest(nil, 0, 0, fit, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != HeaderSize+MaxVarsSize || b[1] != 0xff || b[2] != 0xff {
		t.Fatalf("len %d, size bytes % x", len(b), b[1:3])
	}
	fit[0].Value += "v"
	if _, err := AppendRequest(nil, 0, 0, fit, nil); !errors.Is(err, ErrTooBig) {
		t.Fatalf("one byte more: %v", err)
	}
	// uwsgi_string counts too.
	fit[0].Value = fit[0].Value[1:]
	if _, err := AppendRequest(nil, 0, 0, fit, []byte("x")); !errors.Is(err, ErrTooBig) {
		t.Fatalf("with extra: %v", err)
	}
}

func TestReadRequestRoundTrip(t *testing.T) {
	vars := []Var{{Name: "REQUEST_METHOD", Value: "POST"}, {Name: "EMPTY", Value: ""}, {Name: "HTTP_X", Value: "a\x00b"}, {Name: "REQUEST_METHOD", Value: "dup"}}
	b, _ := AppendRequest(nil, 0, 1, vars, nil)
	b = append(b, "body"...)
	r := bytes.NewReader(b)
	p, err := ReadRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if p.Modifier1 != 0 || p.Modifier2 != 1 || !slices.Equal(p.Vars, vars) {
		t.Fatalf("%+v", p)
	}
	if v, _ := p.Get("REQUEST_METHOD"); v != "POST" {
		t.Fatal(v)
	}
	if rest := b[len(b)-r.Len():]; string(rest) != "body" {
		t.Fatalf("body left: %q", rest)
	}
}

func TestParseVarsMalformed(t *testing.T) {
	for _, b := range [][]byte{
		{1},                    // half a length
		{2, 0, 'a'},            // name cut short
		{1, 0, 'a'},            // no value length
		{1, 0, 'a', 5, 0, 'x'}, // value cut short
	} {
		if _, err := ParseVars(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("% x: %v", b, err)
		}
	}
	if _, err := ReadRequest(bytes.NewReader([]byte{0, 4, 0, 0, 1})); err == nil {
		t.Error("a block cut short is read")
	}
}

// FuzzVars: what AppendRequest encodes, ParseVars decodes unchanged, and
// ParseVars never fails on a block it then re-encodes differently.
func FuzzVars(f *testing.F) {
	f.Add([]byte{2, 0, 'A', 'B', 3, 0, 'x', 'y', 'z'})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, block []byte) {
		vars, err := ParseVars(block)
		if err != nil {
			return
		}
		b, err := AppendRequest(nil, 0, 0, vars, nil)
		if len(block) > MaxVarsSize {
			if !errors.Is(err, ErrTooBig) {
				t.Fatalf("%d bytes encoded: %v", len(block), err)
			}
			return
		}
		if err != nil || !bytes.Equal(b[HeaderSize:], block) {
			t.Fatalf("re-encoded differently: %v", err)
		}
	})
}
