// Package testcorpus loads the benchmark corpus that lies beside the
// repository (../shared/corpus) for the tests of the encoders, which read
// the same files: its scripts, JSON and style sheets.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir is the corpus as seen from a package directory one level below the
// repository's root, where go test runs a package's tests.
const Dir = "../../shared/corpus"

// Files returns the corpus's .js, .json and .css files by base name. A
// test is skipped where the corpus is absent: the project never depends on
// it to build.
func Files(t testing.TB) map[string][]byte {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(Dir, "*.j*"))
	css, _ := filepath.Glob(filepath.Join(Dir, "*.css"))
	files = append(files, css...)
	if len(files) == 0 {
		t.Skip("no " + Dir)
	}
	m := make(map[string][]byte, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = b
	}
	return m
}
