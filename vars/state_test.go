package vars_test

import (
	"context"
	"testing"

	"github.com/mosaic-edge/mosaic/vars"
)

// stateHolder is a request context that carries the State itself, the way
// the server's does.
type stateHolder struct {
	context.Context
	st vars.State
}

func (h *stateHolder) Value(key any) any {
	if vars.IsStateKey(key) {
		return &h.st
	}
	return h.Context.Value(key)
}

func TestStateKey(t *testing.T) {
	h := &stateHolder{Context: context.Background()}
	if got := vars.FromContext(h); got != &h.st {
		t.Fatalf("FromContext of a context answering StateKey: %p, want %p", got, &h.st)
	}
	st := &vars.State{}
	if got := vars.FromContext(vars.NewContext(context.Background(), st)); got != st {
		t.Fatalf("FromContext after NewContext: %p, want %p", got, st)
	}
	if got := vars.FromContext(context.Background()); got != nil {
		t.Fatalf("FromContext of a bare context: %p", got)
	}
	type otherKey struct{}
	for _, key := range []any{nil, struct{}{}, otherKey{}, "StateKey", &h.st} {
		if vars.IsStateKey(key) {
			t.Errorf("IsStateKey(%#v) is true", key)
		}
	}
	if !vars.IsStateKey(vars.StateKey()) {
		t.Error("IsStateKey(StateKey()) is false")
	}
}

// mapSource is a Source of fixed values.
type mapSource map[string]string

func (m mapSource) Value(name string) (string, bool) {
	v, ok := m[name]
	return v, ok
}

// Get asks the Source of SetSource for a name no Set gave; where both
// have it, the one given last answers (a value Set after the Source, a
// Source given after a value, or the value where that Source has none);
// a Source replaces the one given before, which Source returns, and a
// nil one removes it.
func TestStateSources(t *testing.T) {
	st := &vars.State{}
	if st.Source() != nil {
		t.Fatal("a Source before any was given")
	}
	a1 := mapSource{"x": "a1", "y": "a1"}
	st.SetSource(a1)
	st.Set("y", "set")
	for name, want := range map[string]string{"x": "a1", "y": "set"} {
		if v, ok := st.Get(name); !ok || v != want {
			t.Errorf("%s = %q %v, want %q", name, v, ok, want)
		}
	}
	if _, ok := st.Get("none"); ok {
		t.Error("a name no Source knows is found")
	}
	if src, ok := st.Source().(mapSource); !ok || src["x"] != "a1" {
		t.Errorf("Source() = %v", src)
	}
	st.SetSource(mapSource{"x": "a2"})
	if v, _ := st.Get("x"); v != "a2" {
		t.Errorf("x = %q after the Source was replaced", v)
	}
	st.Set("x", "set")
	if v, _ := st.Get("x"); v != "set" {
		t.Errorf("x = %q, Set after the Source", v)
	}
	st.SetSource(mapSource{"x": "a3"})
	if v, _ := st.Get("x"); v != "a3" {
		t.Errorf("x = %q, the Source given after Set", v)
	}
	if v, _ := st.Get("y"); v != "set" {
		t.Errorf("y = %q, which the newer Source has not", v)
	}
	st.SetSource(nil)
	if v, ok := st.Get("x"); !ok || v != "set" || st.Source() != nil {
		t.Errorf("x = %q %v after the Source was removed", v, ok)
	}
	var none *vars.State
	none.SetSource(a1)
	if none.Source() != nil {
		t.Error("a nil State has a Source")
	}
}

func TestFormatRatio(t *testing.T) {
	for _, tc := range []struct {
		in, out int64
		want    string
	}{
		{359, 100, "3.59"},
		{2125, 1000, "2.13"}, // NGINX rounds the third decimal half up
		{2124, 1000, "2.12"},
		{1999, 1000, "2.00"},
		{100, 100, "1.00"},
		{99, 100, "0.99"},
		{1, 3, "0.33"},
		{2, 3, "0.67"},
		{87533, 1, "87533.00"},
	} {
		if got := vars.FormatRatio(tc.in, tc.out); got != tc.want {
			t.Errorf("vars.FormatRatio(%d, %d) = %s, want %s", tc.in, tc.out, got, tc.want)
		}
	}
}

// A ratio given as sizes reads as its formatted value, the value given
// last answers for its name, and a second ratio's name keeps the first's.
func TestSetRatio(t *testing.T) {
	st := &vars.State{}
	get := func(name string) string {
		t.Helper()
		v, ok := st.Get(name)
		if !ok {
			return "<none>"
		}
		return v
	}
	if v := get("gzip_ratio"); v != "<none>" {
		t.Fatalf("$gzip_ratio before SetRatio = %q", v)
	}
	st.SetRatio("gzip_ratio", 2125, 1000)
	if v := get("gzip_ratio"); v != "2.13" {
		t.Errorf("$gzip_ratio = %q, want 2.13", v)
	}
	if v := get("brotli_ratio"); v != "<none>" {
		t.Errorf("$brotli_ratio after SetRatio of $gzip_ratio = %q", v)
	}
	st.Set("gzip_ratio", "9.99")
	if v := get("gzip_ratio"); v != "9.99" {
		t.Errorf("$gzip_ratio after Set = %q, want the value set last, 9.99", v)
	}
	st.SetRatio("gzip_ratio", 300, 100)
	if v := get("gzip_ratio"); v != "3.00" {
		t.Errorf("$gzip_ratio after a second SetRatio = %q, want 3.00", v)
	}
	st.SetRatio("brotli_ratio", 1, 3)
	if v, w := get("gzip_ratio"), get("brotli_ratio"); v != "3.00" || w != "0.33" {
		t.Errorf("after SetRatio of $brotli_ratio: $gzip_ratio = %q, $brotli_ratio = %q; want 3.00, 0.33", v, w)
	}
	var none *vars.State
	none.SetRatio("gzip_ratio", 1, 1) // a no-op, as Set is on a nil State
}
