// Package cbrotli builds, for tests, Google's brotli decoder from the C
// sources of brotli 1.1.0, the first release whose decoder takes a raw
// (prefix) dictionary, as RFC 9842's dcb coding needs; Debian's
// command-line tool is older, and andybalholm/brotli's reader takes none.
// The Go module proxy serves the release as the module
// github.com/google/brotli (its repository, C sources included), checked
// against the checksum database as any module is. Nothing outside tests
// uses the package, and the server never runs C.
package cbrotli

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Module is the release whose decoder is built.
const Module = "github.com/google/brotli@v1.1.0"

// The program built: it decodes standard input to standard output, a raw
// dictionary attached when a file is named.
//
//go:embed testdata/dictdecode.c
var source []byte

var build struct {
	once      sync.Once
	dir, path string
	err       error
}

// Decoder returns the path of the decoder, built once per process, or why
// it cannot be built (no gcc, no go command, no module proxy): tests skip
// then.
func Decoder() (string, error) {
	b := &build
	b.once.Do(func() { b.path, b.err = compile() })
	return b.path, b.err
}

// Cleanup removes the decoder; a test binary's TestMain calls it last.
func Cleanup() {
	if build.dir != "" {
		os.RemoveAll(build.dir)
	}
}

func compile() (string, error) {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "dictdecode")
	if err != nil {
		return "", err
	}
	build.dir = dir
	// A module of its own, so that the project's go.mod and go.sum stay
	// as they are.
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module dictdecode\n"), 0o644); err != nil {
		return "", err
	}
	src := filepath.Join(dir, "dictdecode.c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", err
	}
	dl := exec.Command("go", "mod", "download", "-json", Module)
	dl.Dir = dir
	out, err := dl.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", Module, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s", Module, err, mod.Error)
	}
	c := filepath.Join(mod.Dir, "c")
	common, _ := filepath.Glob(filepath.Join(c, "common", "*.c"))
	dec, _ := filepath.Glob(filepath.Join(c, "dec", "*.c"))
	if len(common) == 0 || len(dec) == 0 {
		return "", errors.New("no C sources in " + mod.Dir)
	}
	path := filepath.Join(dir, "dictdecode")
	args := append([]string{"-O1", "-I", filepath.Join(c, "include"), "-o", path, src}, common...)
	if out, err := exec.Command(gcc, append(args, dec...)...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("building dictdecode: %v: %s", err, out)
	}
	return path, nil
}

// Decode decodes comp with the decoder, dict attached when not nil; dir
// is a directory for the dictionary's file.
func Decode(path, dir string, comp, dict []byte) ([]byte, error) {
	var args []string
	if dict != nil {
		f := filepath.Join(dir, "dict")
		if err := os.WriteFile(f, dict, 0o644); err != nil {
			return nil, err
		}
		args = append(args, f)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin = bytes.NewReader(comp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
