//go:build amd64 && !purego

package brotli

// haveProbeAsm says probeFastAsm is the assembly loop of probe_amd64.s.
const haveProbeAsm = true

// probeFastAsm runs findFastIn's probe loop from a.i (probeArgs), for the
// [0]byte and [2]byte variants.
//
//go:noescape
func probeFastAsm(a *probeArgs)

// The assembly multiplies by hashMul6 as an immediate: a change of the
// hash must change it there too, and fails to compile here.
var _ = [1]struct{}{}[hashMul6-0xa7bd1e35a7bd0000]
