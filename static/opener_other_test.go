//go:build !linux

package static

// osRootVariant: os.Root is already the only opener here.
func osRootVariant() (fixtureVariant, bool) { return fixtureVariant{}, false }
