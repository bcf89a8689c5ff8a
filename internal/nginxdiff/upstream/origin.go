package main

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"time"
)

// control is the origin's answer to /o/ctl, the request each exchange ends
// with: a well-framed answer that shows whether the proxy's upstream
// connection (kept alive) still reads answers from their first byte.
const control = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n\r\ncontrol\n"

// serveOrigin answers on ln, one goroutine per connection, each request
// for /o/<i>/... with case i's bytes, as they are, and /o/ctl with
// control; it reads requests on a connection until the case says close.
func serveOrigin(ln net.Listener, cases []*tcase) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go originConn(c, cases)
	}
}

func originConn(c net.Conn, cases []*tcase) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		method, path, err := readHead(br)
		if err != nil {
			if err != io.EOF {
				slog.Debug("origin", "err", err)
			}
			return
		}
		rest := strings.TrimPrefix(path, "/o/")
		if rest == "ctl" {
			if _, err := io.WriteString(c, control); err != nil {
				return
			}
			continue
		}
		num, _, _ := strings.Cut(rest, "/")
		i, err := strconv.Atoi(num)
		if err != nil || i < 0 || i >= len(cases) {
			io.WriteString(c, "HTTP/1.1 400 Bad\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			return
		}
		if _, err := c.Write(cases[i].raw(method)); err != nil || cases[i].close {
			return
		}
	}
}

// readHead reads a request head (the proxies send no body: GET and HEAD
// only) and returns its method and path.
func readHead(br *bufio.Reader) (method, path string, err error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", "", err
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return "", "", io.ErrUnexpectedEOF
	}
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return "", "", err
		}
		if l == "\r\n" || l == "\n" {
			return f[0], f[1], nil
		}
	}
}
