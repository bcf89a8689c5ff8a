package compress

import (
	"reflect"

	"github.com/mosaic-edge/mosaic/brotli"
)

// encoderFootprint returns the bytes of working memory an encoder holds: its
// own struct plus the hash tables, window and command buffers it has
// grown. The encoder does not report this, so it is measured by walking the
// encoder's fields with reflection (read-only), counting each backing array
// once. Memory every encoder shares, such as the static dictionary's
// index, is excluded: the values of the shared types (sharedTypes).
//
// The walk visits a few dozen fields and skips arrays of plain values, so it
// costs microseconds; it runs only for the bounded retention policy.
func encoderFootprint(w *brotli.Writer) int64 {
	f := footprint{seen: map[uintptr]uintptr{}}
	f.pointer(reflect.ValueOf(w))
	return f.total
}

// footprint sums the sizes of the memory regions reachable from a value.
// Regions are keyed by their end address, which a slice and its sub-slices
// share, and a region reached again with a larger extent adds the difference.
type footprint struct {
	seen  map[uintptr]uintptr // end address -> size
	total int64
}

// region records [start, start+size) and reports whether it was new.
func (f *footprint) region(start, size uintptr) bool {
	if size == 0 {
		return false
	}
	end := start + size
	old, ok := f.seen[end]
	if ok && old >= size {
		return false
	}
	f.seen[end] = size
	f.total += int64(size - old)
	return !ok
}

// sharedTypes names the encoder's types whose values are no encoder's
// own: the static dictionary's indexes and the literal context tables,
// which all encoders share, and a raw dictionary with its index, which
// the encoders of a configuration share (each copies the dictionary's
// bytes into its window, and that copy is counted). Counting them made a
// bounded policy free every encoder that searches the static dictionary
// or holds a raw dictionary larger than the bound.
var sharedTypes = map[string]bool{"Dictionary": true, "rawTable": true, "dictIndex": true, "omitFirstIndex": true, "ctxLut": true}

var encoderPkg = reflect.TypeFor[brotli.Dictionary]().PkgPath()

func (f *footprint) pointer(v reflect.Value) {
	if v.IsNil() {
		return
	}
	if t := v.Type().Elem(); t.PkgPath() == encoderPkg && sharedTypes[t.Name()] {
		return
	}
	if f.region(v.Pointer(), v.Type().Elem().Size()) {
		f.value(v.Elem())
	}
}

func (f *footprint) value(v reflect.Value) {
	if !hasPointers(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		f.pointer(v)
	case reflect.Interface:
		if !v.IsNil() {
			f.value(v.Elem())
		}
	case reflect.Slice:
		if v.Cap() == 0 {
			return
		}
		if f.region(v.Pointer(), uintptr(v.Cap())*v.Type().Elem().Size()) && hasPointers(v.Type().Elem()) {
			for i := 0; i < v.Len(); i++ {
				f.value(v.Index(i))
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			f.value(v.Field(i))
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.value(v.Index(i))
		}
	}
	// Maps, channels, functions and strings hold nothing an encoder grows.
}

// hasPointers reports whether values of t can refer to other memory.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice:
		return true
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	}
	return false
}
