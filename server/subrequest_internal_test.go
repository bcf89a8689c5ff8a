package server

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// pipeEnds are the two ends of io.Pipe or of a subPipe, so that a script
// runs against both and the answers compare.
type pipeEnds struct {
	read       func([]byte) (int, error)
	write      func([]byte) (int, error)
	closeRead  func(error)
	closeWrite func(error)
}

func ioPipe() pipeEnds {
	r, w := io.Pipe()
	return pipeEnds{r.Read, w.Write,
		func(err error) { _ = r.CloseWithError(err) }, func(err error) { _ = w.CloseWithError(err) }}
}

func newSubPipe() pipeEnds {
	p := &subPipe{}
	p.init()
	return pipeEnds{p.Read, p.Write, p.closeRead, p.closeWrite}
}

// TestSubPipeAsIOPipe runs scripts of writes (w:TEXT, each on a goroutine
// of its own, awaited at the end), reads (r:SIZE) and closes of either end
// (cr, cw; :err with an error) on a subPipe and on io.Pipe and wants the
// same results: what each read got, what each write returned. A step
// after a write waits for it only where it reads: the scripts close an
// end only once the writes before have been read or are blocked.
func TestSubPipeAsIOPipe(t *testing.T) {
	errReader, errWriter := errors.New("reader gone"), errors.New("writer failed")
	scripts := map[string][]string{
		"write read in parts":          {"w:hello world", "r:4", "r:4", "r:8"},
		"empty write":                  {"w:", "r:4", "w:x", "r:4"},
		"writer closes":                {"w:ab", "r:8", "cw", "r:8", "r:8"},
		"writer fails":                 {"w:ab", "r:1", "r:1", "cw:err", "r:8"},
		"reader closes mid write":      {"w:abcdef", "r:2", "cr:err", "r:8", "w:more"},
		"reader closes without error":  {"w:abc", "r:1", "cr", "w:x", "r:1"},
		"writer closes then reader":    {"cw:err", "cr:err", "r:1", "w:x"},
		"reader closes then writer":    {"cr:err", "cw:err", "r:1", "w:x"},
		"write after reader closed":    {"cr", "w:abc"},
		"read after writer closed nil": {"cw", "w:abc", "r:3"},
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			want, got := runPipeScript(ioPipe(), script, errReader, errWriter), runPipeScript(newSubPipe(), script, errReader, errWriter)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("subPipe:\n%q\nio.Pipe:\n%q", got, want)
			}
		})
	}
}

func runPipeScript(p pipeEnds, script []string, errReader, errWriter error) []string {
	var out []string
	var writes []chan string
	for _, step := range script {
		op, arg, _ := strings.Cut(step, ":")
		switch op {
		case "w":
			done := make(chan string, 1)
			writes = append(writes, done)
			go func() {
				n, err := p.write([]byte(arg))
				done <- fmt.Sprintf("write %q: %d %v", arg, n, err)
			}()
		case "r":
			size, _ := strconv.Atoi(arg)
			b := make([]byte, size)
			n, err := p.read(b)
			out = append(out, fmt.Sprintf("read: %q %v", b[:n], err))
		case "cr":
			p.closeRead(map[bool]error{true: errReader}[arg == "err"])
		case "cw":
			p.closeWrite(map[bool]error{true: errWriter}[arg == "err"])
		}
	}
	for _, w := range writes {
		out = append(out, <-w)
	}
	return out
}

// TestSubrequestURLAsResolved checks subrequestURL's shortcut for clean
// absolute paths against resolving every uri as a relative reference.
func TestSubrequestURLAsResolved(t *testing.T) {
	bases := []string{"/page", "/a/b/c?x=1", "/", "/x%2Fy/z"}
	uris := []string{"/frag/1", "/frag/1?x=y", "/a//b", "//a/b", "///a/b", "/a/./b", "/a/../b", "/a/b/",
		"/a%2Fb", "/a%2fb?x", "/a%20b", "/frag?", "/frag#x", "/frag?x#y", "/.hidden", "/a/.b", "/a;b",
		"/%41", "/a/b/..", "/a?b=/../", "/é", "/a+b", "/a//../b", "/a/b%2F..%2Fc", "rel", "../x",
		"http://h/x", "/x:y", "/a/./", "/..", "/."}
	for _, b := range bases {
		base, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		for _, uri := range uris {
			ref, err := url.Parse(uri)
			if err != nil {
				t.Fatal(err)
			}
			want := base.ResolveReference(ref)
			want.Scheme, want.Host, want.User, want.Fragment, want.RawFragment = "", "", nil, "", ""
			got, err := subrequestURL(base, uri)
			if err != nil {
				t.Fatalf("%s from %s: %v", uri, b, err)
			}
			if *got != *want {
				t.Errorf("%s from %s: %#v, resolved %#v", uri, b, got, want)
			}
		}
	}
}
