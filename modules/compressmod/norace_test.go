//go:build !race

package compressmod_test

const raceEnabled = false
