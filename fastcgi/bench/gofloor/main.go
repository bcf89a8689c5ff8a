// Command gofloor is the least a Go server can do for compare-nginx.sh's
// benchmark, to measure the floor under mosaic: it answers every request
// on a kept client connection (a GET without a body, as wrk sends) by
// running one script on php-fpm over a pool of kept Unix-socket
// connections, with fixed FastCGI parameters, no configuration, no
// variables, no logging. One goroutine per client connection, the net
// package's poller, as mosaic's HTTP/1.1 server has; run it with
// GOMAXPROCS=1 beside mosaic's one worker.
//
//	gofloor -listen 127.0.0.1:18132 -socket /tmp/php.sock -script /srv/hello.php
//
// It is a measuring tool, not a server: it understands no request body,
// no chunked answer, no error from php-fpm beyond closing the connection.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"log"
	"net"
	"strconv"

	"github.com/mosaic-edge/mosaic/fastcgi"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18132", "address to serve HTTP on")
	socket := flag.String("socket", "", "php-fpm's Unix socket")
	script := flag.String("script", "", "SCRIPT_FILENAME of every request")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	b := &bridge{socket: *socket, head: requestHead(*script, *listen), idle: make(chan *upstream, 16)}
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go b.serve(c)
	}
}

// requestHead is the FastCGI request every HTTP request becomes: begin
// (keeping the connection), the parameters, their end, an empty stdin.
func requestHead(script, listen string) []byte {
	host, port, _ := net.SplitHostPort(listen)
	var params []byte
	for _, p := range [][2]string{
		{"SCRIPT_FILENAME", script}, {"REQUEST_METHOD", "GET"}, {"QUERY_STRING", ""},
		{"REQUEST_URI", "/"}, {"DOCUMENT_URI", "/"}, {"SCRIPT_NAME", "/"},
		{"SERVER_PROTOCOL", "HTTP/1.1"}, {"GATEWAY_INTERFACE", "CGI/1.1"},
		{"SERVER_ADDR", host}, {"SERVER_PORT", port}, {"REMOTE_ADDR", "127.0.0.1"},
		{"REDIRECT_STATUS", "200"}, {"HTTP_HOST", listen},
	} {
		params = fastcgi.AppendPair(params, p[0], p[1])
	}
	head := fastcgi.AppendRecord(nil, fastcgi.TypeBeginRequest, []byte{0, 1, 1, 0, 0, 0, 0, 0})
	head = fastcgi.AppendRecord(head, fastcgi.TypeParams, params)
	head = fastcgi.AppendRecord(head, fastcgi.TypeParams, nil)
	return fastcgi.AppendRecord(head, fastcgi.TypeStdin, nil)
}

type bridge struct {
	socket string
	head   []byte
	idle   chan *upstream
}

type upstream struct {
	c  net.Conn
	br *bufio.Reader
}

func (b *bridge) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	var out, body []byte
	for {
		// The request head, to its empty line.
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			if len(line) <= 2 {
				break
			}
		}
		var err error
		if body, err = b.run(body[:0]); err != nil {
			log.Print(err)
			return
		}
		// PHP's head, then the page.
		i := bytes.Index(body, []byte("\r\n\r\n"))
		if i < 0 {
			return
		}
		page := body[i+4:]
		out = append(out[:0], "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=UTF-8\r\nContent-Length: "...)
		out = strconv.AppendInt(out, int64(len(page)), 10)
		out = append(out, "\r\n\r\n"...)
		out = append(out, page...)
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// run sends the request on a kept connection and appends PHP's output to
// dst.
func (b *bridge) run(dst []byte) ([]byte, error) {
	var u *upstream
	select {
	case u = <-b.idle:
	default:
		c, err := net.Dial("unix", b.socket)
		if err != nil {
			return dst, err
		}
		u = &upstream{c: c, br: bufio.NewReader(c)}
	}
	if _, err := u.c.Write(b.head); err != nil {
		u.c.Close()
		return dst, err
	}
	for {
		h, err := fastcgi.ReadHeader(u.br)
		if err != nil {
			u.c.Close()
			return dst, err
		}
		n := int(h.ContentLength)
		if h.Type == fastcgi.TypeStdout {
			dst = append(dst, make([]byte, n)...)
			if _, err := io.ReadFull(u.br, dst[len(dst)-n:]); err != nil {
				u.c.Close()
				return dst, err
			}
			n = 0
		}
		if _, err := u.br.Discard(n + int(h.PaddingLength)); err != nil {
			u.c.Close()
			return dst, err
		}
		if h.Type == fastcgi.TypeEndRequest {
			break
		}
	}
	select {
	case b.idle <- u:
	default:
		u.c.Close()
	}
	return dst, nil
}
