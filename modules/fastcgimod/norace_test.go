//go:build !race

package fastcgimod_test

const raceEnabled = false
