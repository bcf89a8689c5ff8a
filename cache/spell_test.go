package cache

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/mosaic-edge/mosaic/internal/header"
)

// TestMetaSpell: the upstream's spellings of the stored header's names
// are kept by the encoding, and an entry of version 2, written before
// them, is still read, without spellings (its hits send the names in
// canonical case, as they did).
func TestMetaSpell(t *testing.T) {
	m := &Meta{Key: "k", Status: 200, Header: http.Header{"X_a": {"1"}, "X-Dup": {"1", "2"}},
		BodyID: 9, Spell: []string{"X_A", "X-Dup", "x-dup"}}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Meta
	if err := got.UnmarshalBinary(b); err != nil || !slices.Equal(got.Spell, m.Spell) || got.Header.Get("X_a") != "1" {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	// Version 2 ends with the header: the spellings' count and names
	// (one byte of length and the name each) left out.
	n := 1
	for _, s := range m.Spell {
		n += 1 + len(s)
	}
	v2 := append([]byte{metaVersionV2}, b[1:len(b)-n]...)
	var old Meta
	if err := old.UnmarshalBinary(v2); err != nil || old.Spell != nil || old.BodyID != 9 || old.Header.Get("X-Dup") != "1" {
		t.Fatalf("version 2: %+v, %v", old, err)
	}
	// More names than a fill lists (header.MaxSpellings) is a corrupt
	// entry: a hit would compare each field with all of them.
	m.Spell = make([]string, header.MaxSpellings+1)
	for i := range m.Spell {
		m.Spell[i] = "x-" + strconv.Itoa(i)
	}
	if b, err = m.MarshalBinary(); err != nil {
		t.Fatal(err)
	}
	if err := new(Meta).UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) {
		t.Errorf("%d spellings: %v, want ErrCorrupt", len(m.Spell), err)
	}
}
