package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// mtime dates every file and directory, so both servers see the same
// Last-Modified, ETag and listing times.
var mtime = time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)

// node is one entry of the tree: a file (body), a directory (dir), a
// symbolic link (link), a FIFO or a file of mode 000 (mode).
type node struct {
	name string // path below the root, slash-separated
	dir  bool
	link string // target as written in the link; "" for none
	fifo bool
	mode os.FileMode
	body []byte
}

// oddNames are the names every tree holds: each a byte class that a
// path's decoding, escaping or a listing can get wrong.
var oddNames = []string{
	"a.txt", "sp ace.txt", "pct%41.txt", "pct%2F.txt", "plus+a.txt", "semi;c.txt",
	"ctl\x01\x7f.txt", "é-utf8.html", "hi\xff\xfe.bin", ".hidden", "trail.", "trail..",
	"noext", "x.json", "x.css", "x.JPG", "amp&lt.html", "quote\"q.txt", "lt<gt>.txt",
	"index.htm", "default.html", "404.html", "...", "a..b.txt", "star*q.txt", "#hash.txt",
}

// buildTree draws the tree: the fixed odd names, random ones, directories
// with and without index files, links of every kind, an unreadable file,
// a FIFO, an empty file and a large one. outside is a directory beside
// the root that links lead to.
func buildTree() []node {
	var ns []node
	file := func(name string, size int) {
		ns = append(ns, node{name: name, body: content(name, size), mode: 0o644})
	}
	for _, n := range oddNames {
		file(n, 1+rnd.Intn(200))
	}
	file("index.html", 120)
	file("empty.txt", 0)
	file("big.bin", 200<<10+rnd.Intn(1000))
	for range 6 {
		file(randName()+pick(".txt", ".html", "", ".bin", "."), rnd.Intn(100))
	}
	dirs := []string{"d1", "d2", "d3", "sp dir", ".dotdir", "é dir", "pct%25d", "d1/sub", "d3/sub.d", "semi;d"}
	for _, d := range dirs {
		ns = append(ns, node{name: d, dir: true, mode: 0o755})
		switch rnd.Intn(4) {
		case 0:
			file(d+"/index.html", 50)
		case 1:
			file(d+"/index.htm", 40)
		case 2:
			file(d+"/default.html", 30)
		}
		for range 1 + rnd.Intn(3) {
			file(d+"/"+pick(oddNames...), rnd.Intn(300))
		}
	}
	ns = append(ns, node{name: "noread", dir: true, mode: 0o755})
	file("noread/index.html", 10)
	ns = append(ns,
		node{name: "lin.txt", link: "a.txt"},
		node{name: "lind", link: "d1"},
		node{name: "lsub", link: "../www/d3"}, // inside, through the root's own name
		node{name: "lgone", link: "../d3"},    // out of the root, dangling
		node{name: "d2/lup.txt", link: "../a.txt"},
		node{name: "lout.txt", link: "../outside/secret.txt"},
		node{name: "loutd", link: "../outside"},
		node{name: "labs.txt", link: "@outside/secret.txt"}, // @: absolute, below the work dir
		node{name: "labsin.txt", link: "@www/a.txt"},
		node{name: "ldang", link: "missing.txt"},
		node{name: "loop1", link: "loop2"},
		node{name: "loop2", link: "loop1"},
		node{name: "lself", link: "lself"},
		node{name: "lusr", link: "/usr/share/doc/nginx/copyright"},
		node{name: "fifo", fifo: true},
		node{name: "m000.txt", body: []byte("secret-000\n"), mode: 0},
		node{name: "d000", dir: true, mode: 0},
	)
	return ns
}

// randName is a name of odd bytes: never '/', NUL or '?', which no name
// in a request path can hold without encoding rules of their own.
func randName() string {
	const alpha = "abcXYZ019 %+;,=@!$&'()~_-.\x01\x1f\x7f\x80\xc3\xa9\xe2\x82\xac\xff"
	var b strings.Builder
	for range 1 + rnd.Intn(10) {
		b.WriteByte(alpha[rnd.Intn(len(alpha))])
	}
	s := b.String()
	if s == "." || s == ".." {
		return "dot" + s
	}
	return s
}

// content is a file's body: its name, then filler, size bytes in all.
func content(name string, size int) []byte {
	b := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)
	copy(b, name)
	return b[:size]
}

// writeTree writes ns under work/www (and work/outside), dating each
// entry mtime.
func writeTree(work string, ns []node) error {
	root := filepath.Join(work, "www")
	out := filepath.Join(work, "outside")
	for _, d := range []string{root, out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("tree: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, "secret.txt"), []byte("outside secret\n"), 0o644); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	var later []node // modes and times once the contents are in
	for _, n := range ns {
		p := filepath.Join(root, n.name)
		var err error
		switch {
		case n.dir:
			err = os.MkdirAll(p, 0o755)
			later = append(later, n)
		case n.link != "":
			t := n.link
			if strings.HasPrefix(t, "@") {
				t = filepath.Join(work, t[1:])
			}
			err = os.Symlink(t, p)
		case n.fifo:
			err = syscall.Mkfifo(p, 0o644)
		default:
			if _, e := os.Lstat(p); e == nil {
				continue // a name drawn twice keeps its first body
			}
			err = os.WriteFile(p, n.body, 0o644)
			later = append(later, n)
		}
		if err != nil {
			return fmt.Errorf("tree: %w", err)
		}
	}
	// Deepest first, so dating a directory comes after its entries.
	for i := len(later) - 1; i >= 0; i-- {
		n := later[i]
		p := filepath.Join(root, n.name)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			return fmt.Errorf("tree: %w", err)
		}
		if err := os.Chmod(p, n.mode); err != nil {
			return fmt.Errorf("tree: %w", err)
		}
	}
	for _, d := range []string{"", "d1", "d2", "d3", "d1/sub", "d3/sub.d"} {
		if err := os.Chtimes(filepath.Join(root, d), mtime, mtime); err != nil {
			return fmt.Errorf("tree: %w", err)
		}
	}
	return nil
}

// reachable are the paths requests are built from: every entry's name,
// and for a directory the name with a slash.
func reachable(ns []node) []string {
	out := []string{""}
	for _, n := range ns {
		out = append(out, n.name)
		if n.dir {
			out = append(out, n.name+"/")
		}
	}
	return out
}
