package esi

// This file lends the external tests (package esi_test) the parser's
// bounds, to test what happens past them.
const (
	MaxTag    = maxTag
	MaxRemove = maxRemove
)
