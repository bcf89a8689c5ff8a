//go:build !linux

package static

// osRootVariant: os.Root is already the only opener here.
func osRootVariant() (fixtureVariant, bool) { return fixtureVariant{}, false }

// useOSRoot: fs opens through os.Root already.
func useOSRoot(*FileServer, Symlinks) {}
