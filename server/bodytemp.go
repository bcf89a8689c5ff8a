package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
)

// bodyTempPath is client_body_temp_path: the directory where request
// bodies larger than client_body_buffer_size are kept while they are
// sent on, and NGINX's hashed sub-directory levels (1 or 2 digits each)
// taken from the end of each file's number.
type bodyTempPath struct {
	dir    string
	levels []int
}

func setBodyTempPath(c *Cmd) error {
	cl := c.Loc().(*coreLoc)
	p := bodyTempPath{dir: c.Args[0]}
	for _, a := range c.Args[1:] {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > 2 {
			return c.Invalid(a, "")
		}
		p.levels = append(p.levels, n)
	}
	return Put(c, &cl.bodyTemp, p)
}

// bodyTempSeq numbers temporary files, as NGINX names them by a counter.
var bodyTempSeq atomic.Uint64

// create makes a new temporary file for a request body, creating the
// directories it lies in (mode 0700: bodies are private) on first use.
// With no client_body_temp_path, the system's temporary directory is used.
func (p bodyTempPath) create() (*os.File, error) {
	if p.dir == "" {
		return os.CreateTemp("", "mosaic-body-")
	}
	for range 8 {
		name := fmt.Sprintf("%010d", bodyTempSeq.Add(1)+uint64(os.Getpid())<<32)
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
func (l *Location) ClientBodyBuffer() (size int64, tempFile func() (*os.File, error)) {
	cl := LocConf[*coreLoc](l, coreModule)
	return cl.bodyBuffer.V, cl.bodyTemp.V.create
}
