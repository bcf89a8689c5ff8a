//go:build linux

package static

import "testing"

// osRootVariant serves through os.Root, the opener of kernels without
// openat2, instead.
func osRootVariant() (fixtureVariant, bool) {
	return fixtureVariant{name: "os.Root", server: func(h *FileServer) {
		h.op = rootOpener{h.op.(*beneath).root}
	}}, true
}

// Every FileServer on Linux opens with openat2.
func TestOpenat2IsUsed(t *testing.T) {
	fx := serve(t, nil)
	if _, ok := fx.fs.op.(*beneath); !ok {
		t.Fatalf("opener %T, want openat2's", fx.fs.op)
	}
}
