package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http/httputil"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// origin is the upstream both servers proxy to. It records the head and
// body of every request it gets and answers each with the status and
// header lines the current case drew (Location, Refresh, Set-Cookie):
// the tool sends one request at a time, so "current" is well defined.
type origin struct {
	mu     sync.Mutex
	answer answer
	got    []record
}

// record is one request the origin got: its line, its header lines
// sorted (NGINX and mosaic order them differently by design) and its
// body.
type record struct {
	line string
	hdr  []string
	body string
}

func (r record) String() string { return fmt.Sprintf("%q %q body=%q", r.line, r.hdr, r.body) }

// answer is what the origin sends back for the case under way.
type answer struct {
	status int
	lines  []string // "Name: value"
}

func (o *origin) set(a answer) {
	o.mu.Lock()
	o.answer, o.got = a, nil
	o.mu.Unlock()
}

// take returns what the origin recorded since set, and forgets it.
func (o *origin) take() []record {
	o.mu.Lock()
	defer o.mu.Unlock()
	g := o.got
	o.got = nil
	return g
}

func (o *origin) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go o.handle(c)
	}
}

// handle reads one request, records it and answers; the answer closes
// the connection, so no upstream keepalive carries one case into the
// next.
func (o *origin) handle(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	var lines []string
	cl, chunked := -1, false
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return
		}
		l = strings.TrimSuffix(l, "\n")
		if l == "\r" || l == "" {
			break
		}
		lines = append(lines, l)
		name, val, _ := strings.Cut(l, ":")
		val = strings.TrimSpace(val)
		switch strings.ToLower(name) {
		case "content-length":
			cl, _ = strconv.Atoi(val)
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(val), "chunked")
		}
	}
	if len(lines) == 0 {
		return
	}
	var body []byte
	if chunked {
		body, _ = io.ReadAll(httputil.NewChunkedReader(br))
	} else if cl > 0 {
		body = make([]byte, cl)
		io.ReadFull(br, body)
	}
	rest := lines[1:]
	sort.Strings(rest)
	rec := record{line: strings.TrimSuffix(lines[0], "\r"), body: string(body)}
	for _, l := range rest {
		rec.hdr = append(rec.hdr, strings.TrimSuffix(l, "\r"))
	}
	o.mu.Lock()
	o.got = append(o.got, rec)
	a := o.answer
	o.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "HTTP/1.1 %d X\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n", a.status)
	for _, l := range a.lines {
		b.WriteString(l + "\r\n")
	}
	b.WriteString("\r\nok")
	io.WriteString(c, b.String())
}
