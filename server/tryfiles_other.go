//go:build !linux

package server

import "os"

// rawDir is Linux's alone: elsewhere os.Root makes every stat.
type rawDir struct{}

func openRawDir(*os.Root) *rawDir { return nil }

func (*rawDir) stat(string) (isDir, ok bool, err error) { return false, false, nil }

func (*rawDir) close() {}
