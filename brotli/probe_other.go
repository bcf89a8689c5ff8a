//go:build !amd64 || purego

package brotli

// haveProbeAsm says there is no assembly probe loop: findFastIn runs its
// Go loop.
const haveProbeAsm = false

// probeFastAsm is never called where haveProbeAsm is false.
func probeFastAsm(*probeArgs) { panic("brotli: no assembly probe loop") }
