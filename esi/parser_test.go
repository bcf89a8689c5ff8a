package esi_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mosaic-edge/mosaic/esi"
)

// parse feeds pieces to a Parser and renders its events the way a page
// does, with includes shown as {src|alt|continue}. It also checks that the
// events cover the stream exactly once, in order, each with its own bytes:
// what a recorded parse plan relies on.
func parse(t testing.TB, pieces ...[]byte) (string, []esi.Event) {
	t.Helper()
	stream := bytes.Join(pieces, nil)
	var out, held strings.Builder
	var events []esi.Event
	var pos int64
	var open []esi.Elem
	p := esi.NewParser(func(ev *esi.Event) {
		if ev.Off != pos {
			t.Fatalf("event %v at offset %d, want %d", ev.Kind, ev.Off, pos)
		}
		if ev.Len > 0 && !bytes.Equal(ev.Data, stream[ev.Off:ev.Off+int64(ev.Len)]) {
			t.Fatalf("event %v at %d: data %q is not the stream's %q", ev.Kind, ev.Off, ev.Data, stream[ev.Off:ev.Off+int64(ev.Len)])
		}
		pos += int64(ev.Len)
		e := *ev
		e.Data = bytes.Clone(ev.Data)
		events = append(events, e)
		switch ev.Kind {
		case esi.KindText, esi.KindPass:
			out.Write(ev.Data)
		case esi.KindInclude:
			fmt.Fprintf(&out, "{%s|%s|%v}", ev.Src, ev.Alt, ev.Continue)
		case esi.KindRemoveOpen, esi.KindRemoved:
			held.Write(ev.Data)
		case esi.KindRemoveClose:
			held.Reset()
		case esi.KindRemoveUnclosed:
			out.WriteString(held.String())
			held.Reset()
		case esi.KindVar:
			fmt.Fprintf(&out, "{var %s}", ev.Data)
		case esi.KindOpen:
			fmt.Fprintf(&out, "[%v %s]", ev.Elem, ev.Test)
			open = append(open, ev.Elem)
		case esi.KindClose:
			fmt.Fprintf(&out, "[/%v]", ev.Elem)
			if len(open) == 0 || open[len(open)-1] != ev.Elem {
				t.Fatalf("close of %v at %d, open: %v", ev.Elem, ev.Off, open)
			}
			open = open[:len(open)-1]
		}
	})
	for _, piece := range pieces {
		p.Feed(piece)
	}
	p.Close()
	if pos != int64(len(stream)) {
		t.Fatalf("events cover %d bytes of %d", pos, len(stream))
	}
	if len(open) > 0 {
		t.Fatalf("blocks left open: %v", open)
	}
	return out.String(), events
}

func TestParserEvents(t *testing.T) {
	doc := `ab<esi:include src="/x" alt='/y' onerror="continue"/>c<!--esi d-->e<esi:remove>f</esi:remove>g<esi:foo/>`
	_, events := parse(t, []byte(doc))
	type step struct {
		kind esi.Kind
		off  int64
		n    int
	}
	want := []step{
		{esi.KindText, 0, 2}, {esi.KindInclude, 2, 51}, {esi.KindText, 53, 1}, {esi.KindDrop, 54, 7}, {esi.KindText, 61, 2},
		{esi.KindDrop, 63, 3}, {esi.KindText, 66, 1}, {esi.KindRemoveOpen, 67, 12}, {esi.KindRemoved, 79, 1},
		{esi.KindRemoveClose, 80, 13}, {esi.KindText, 93, 1}, {esi.KindPass, 94, 10},
	}
	if len(events) != len(want) {
		t.Fatalf("got %d events: %+v", len(events), events)
	}
	for i, w := range want {
		if e := events[i]; e.Kind != w.kind || e.Off != w.off || e.Len != w.n {
			t.Errorf("event %d: got kind %d at %d+%d, want kind %d at %d+%d", i, e.Kind, e.Off, e.Len, w.kind, w.off, w.n)
		}
	}
	if inc := events[1]; inc.Src != "/x" || inc.Alt != "/y" || !inc.Continue {
		t.Errorf("include attributes: %+v", inc)
	}
	if events[11].Warning == "" {
		t.Error("unknown element without a warning")
	}
}

// TestParserSplitsEverywhere checks the parser alone on the markup cases:
// split in two at every byte, and fed one byte at a time.
func TestParserSplitsEverywhere(t *testing.T) {
	for _, tc := range markupCases {
		doc := []byte(tc.doc)
		whole, _ := parse(t, doc)
		for k := 0; k <= len(doc); k++ {
			if got, _ := parse(t, doc[:k], doc[k:]); got != whole {
				t.Fatalf("%s: split at %d: got %q, want %q", tc.name, k, got, whole)
			}
		}
		var bytewise [][]byte
		for i := range doc {
			bytewise = append(bytewise, doc[i:i+1])
		}
		if got, _ := parse(t, bytewise...); got != whole {
			t.Fatalf("%s: byte by byte: got %q, want %q", tc.name, got, whole)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range markupCases {
		f.Add([]byte(tc.doc), uint16(len(tc.doc)/2))
	}
	for _, tc := range langCases {
		f.Add([]byte(tc.doc), uint16(len(tc.doc)/2))
	}
	f.Fuzz(func(t *testing.T, doc []byte, split uint16) {
		k := int(split) % (len(doc) + 1)
		whole, _ := parse(t, doc)
		if got, _ := parse(t, doc[:k], doc[k:]); got != whole {
			t.Fatalf("split at %d: got %q, want %q", k, got, whole)
		}
		var bytewise [][]byte
		for i := range doc {
			bytewise = append(bytewise, doc[i:i+1])
		}
		if got, _ := parse(t, bytewise...); got != whole {
			t.Fatalf("byte by byte: got %q, want %q", got, whole)
		}
		if !bytes.Contains(doc, []byte("<esi:")) && !bytes.Contains(doc, []byte("</esi:")) && !bytes.Contains(doc, []byte("<!--esi")) {
			if whole != string(doc) {
				t.Fatalf("a document without ESI changed: %q -> %q", doc, whole)
			}
		}
	})
}
