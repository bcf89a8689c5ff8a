package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// TempPath is a *_temp_path line (client_body_temp_path,
// proxy_temp_path, ...): the directory where temporary files are kept,
// and NGINX's hashed sub-directory levels (up to 3, of at most 10 digits
// in all) taken from the end of each file's number.
type TempPath struct {
	dir    string
	levels []int
	prefix string // of files made in the system's directory, with no dir
}

// ParseTempPath reads the arguments of a *_temp_path directive.
func ParseTempPath(c *Cmd) (TempPath, error) {
	p := TempPath{dir: c.Args[0]}
	if err := checkTempPath(c); err != nil {
		return p, err
	}
	for _, a := range c.Args[1:] {
		n, _ := strconv.Atoi(a)
		p.levels = append(p.levels, n)
	}
	return p, nil
}

func setBodyTempPath(c *Cmd) error {
	p, err := ParseTempPath(c)
	if err != nil {
		return err
	}
	return Put(c, &c.Loc().(*coreLoc).bodyTemp, p)
}

// tempNameDigits is the least number of digits of a temporary file's
// name, from whose end the levels' directory names are taken.
const tempNameDigits = 10

// tempSeq numbers temporary files, as NGINX names them by a counter.
var tempSeq atomic.Uint64

// Or returns p, or when no directive set it, the system's temporary
// directory with files named from prefix ("mosaic-proxy-").
func (p TempPath) Or(prefix string) TempPath {
	if p.dir == "" {
		p.prefix = prefix
	}
	return p
}

// Create makes a new temporary file, creating the directories it lies in
// (mode 0700: what they hold is private) on first use. With no directory
// set, the system's temporary directory is used.
func (p TempPath) Create() (*os.File, error) {
	if p.dir == "" {
		prefix := p.prefix
		if prefix == "" {
			prefix = "mosaic-body-"
		}
		return os.CreateTemp("", prefix)
	}
	for range 8 {
		name := fmt.Sprintf("%0*d", tempNameDigits, tempSeq.Add(1)+uint64(os.Getpid())<<32)
		dir, end := p.dir, len(name)
		for _, n := range p.levels {
			dir = filepath.Join(dir, name[end-n:end])
			end -= n
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) {
			continue // left by another process: take the next number
		}
		return f, err
	}
	return nil, fmt.Errorf("no free temporary file name in %s", p.dir)
}

// ClientBodyBuffer returns client_body_buffer_size, the part of a request
// body held in memory when mosaic must keep a body whole, and a function
// that makes the temporary file for the rest (client_body_temp_path).
// With client_body_in_file_only, size is -1: the whole body goes to the
// file, an empty one too (see ClientBodyKeep).
func (l *Location) ClientBodyBuffer() (size int64, tempFile func() (*os.File, error)) {
	cl := LocConf[*coreLoc](l, coreModule)
	if cl.bodyFileOnly.V != bodyFileOff {
		return -1, cl.bodyTemp.V.Create
	}
	return cl.bodyBuffer.V, cl.bodyTemp.V.Create
}

// ClientBodyKeep reports whether the temporary file of a request body
// stays once the request has ended ("client_body_in_file_only on"),
// rather than being removed.
func (l *Location) ClientBodyKeep() bool {
	return LocConf[*coreLoc](l, coreModule).bodyFileOnly.V == bodyFileKeep
}

// bodyFileOnly is client_body_in_file_only.
type bodyFileOnly int

const (
	bodyFileOff   bodyFileOnly = iota
	bodyFileKeep               // on: the file stays after the request
	bodyFileClean              // clean: removed when the request ends
)

func setBodyFileOnly(c *Cmd) error {
	v, ok := map[string]bodyFileOnly{"off": bodyFileOff, "on": bodyFileKeep, "clean": bodyFileClean}[strings.ToLower(c.Args[0])]
	if !ok {
		return c.Errorf("invalid value %q", c.Args[0])
	}
	return Put(c, &c.Loc().(*coreLoc).bodyFileOnly, v)
}
