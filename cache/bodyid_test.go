package cache

import (
	"context"
	"net/http"
	"testing"
)

// TestMetaReadsVersion1: an entry written before BodyID existed is still
// read, with no identity.
func TestMetaReadsVersion1(t *testing.T) {
	b, err := (&Meta{Key: "k", Status: 200}).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	// Version 2 is version 1 with BodyID before the header count, and
	// version 3 version 2 with Spell after the header: here the last
	// three bytes, all 0.
	v1 := append([]byte{metaVersionV1}, b[1:len(b)-3]...)
	v1 = append(v1, 0)
	var m Meta
	if err := m.UnmarshalBinary(v1); err != nil || m.Key != "k" || m.Status != 200 || m.BodyID != 0 {
		t.Fatalf("%+v, %v", m, err)
	}
}

// TestUpdateKeepsBodyID: Update replaces the metadata and keeps the body,
// so it keeps the body's identity, whatever the new metadata says.
func TestUpdateKeepsBodyID(t *testing.T) {
	mem, err := NewMemoryStore(MemoryOptions{MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	disk, err := NewDiskStore(t.TempDir(), DiskOptions{MaxSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for name, s := range map[string]Store{"memory": mem, "disk": disk} {
		w, err := s.Put(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("body"))
		if err := w.Commit(ctx, &Meta{Key: "k", Status: 200, Header: http.Header{}, BodyID: 42}); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(ctx, &Meta{Key: "k", Status: 200, Header: http.Header{"X": {"y"}}, BodyID: 7}); err != nil {
			t.Fatal(err)
		}
		obj, err := s.Get(ctx, "k")
		if err != nil {
			t.Fatal(err)
		}
		if m := obj.Meta(); m.BodyID != 42 || m.Header.Get("X") != "y" {
			t.Errorf("%s: after Update, BodyID %d, header %v", name, m.BodyID, m.Header)
		}
		obj.Close()
		s.Close()
	}
}
