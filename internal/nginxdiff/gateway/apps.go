package main

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// The application servers: each reads a request in its protocol, takes
// the case number from REQUEST_URI (/loc/N or /loc/N?...) and writes the
// answer that case draws. The FastCGI one writes its records byte by
// byte from the plan (answer.records), so that it can send malformed ones.

// serve accepts on ln and hands each connection to handle.
func serve(ln net.Listener, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			handle(c)
		}()
	}
}

// caseOf reads the case number from a request URI.
func caseOf(uri string) int {
	uri, _, _ = strings.Cut(uri, "?")
	n, _ := strconv.Atoi(uri[strings.LastIndexByte(uri, '/')+1:])
	return n
}

// FastCGI record types and the header's size.
const (
	fcgiBegin     = 1
	fcgiEnd       = 3
	fcgiParams    = 4
	fcgiStdin     = 5
	fcgiStdout    = 6
	fcgiStderr    = 7
	fcgiKeepConn  = 1
	fcgiHeaderLen = 8
)

// fcgiApp answers FastCGI requests, several over one connection while the
// server sets FCGI_KEEP_CONN and the answer does not close it.
func fcgiApp(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		var id uint16
		var keep bool
		var params []byte
		// Read BEGIN_REQUEST, PARAMS to its empty record, STDIN to its
		// empty record.
		for stdinDone := false; !stdinDone; {
			var h [fcgiHeaderLen]byte
			if _, err := io.ReadFull(br, h[:]); err != nil {
				return
			}
			clen := int(binary.BigEndian.Uint16(h[4:]))
			content := make([]byte, clen+int(h[6]))
			if _, err := io.ReadFull(br, content); err != nil {
				return
			}
			content = content[:clen]
			switch h[1] {
			case fcgiBegin:
				id = binary.BigEndian.Uint16(h[2:])
				keep = len(content) > 2 && content[2]&fcgiKeepConn != 0
				params = params[:0]
			case fcgiParams:
				params = append(params, content...)
			case fcgiStdin:
				stdinDone = clen == 0
			}
		}
		a := draw(caseOf(fcgiParam(params, "REQUEST_URI")))
		out, closeAfter := a.fcgiBytes(id)
		if _, err := c.Write(out); err != nil || closeAfter || !keep {
			return
		}
	}
}

// fcgiParam finds name among FastCGI name-value pairs.
func fcgiParam(b []byte, name string) string {
	length := func() int {
		if len(b) == 0 {
			return -1
		}
		if b[0]&0x80 == 0 {
			n := int(b[0])
			b = b[1:]
			return n
		}
		if len(b) < 4 {
			return -1
		}
		n := int(binary.BigEndian.Uint32(b) & 0x7fffffff)
		b = b[4:]
		return n
	}
	for len(b) > 0 {
		nl, vl := length(), length()
		if nl < 0 || vl < 0 || nl+vl > len(b) {
			return ""
		}
		k, v := string(b[:nl]), string(b[nl:nl+vl])
		b = b[nl+vl:]
		if k == name {
			return v
		}
	}
	return ""
}

// scgiApp reads one SCGI netstring of NUL-separated pairs and answers.
func scgiApp(c net.Conn) {
	br := bufio.NewReader(c)
	ls, err := br.ReadString(':')
	if err != nil {
		return
	}
	n, err := strconv.Atoi(strings.TrimSuffix(ls, ":"))
	if err != nil || n > 1<<20 {
		return
	}
	b := make([]byte, n+1) // the pairs and the comma
	if _, err := io.ReadFull(br, b); err != nil {
		return
	}
	f := strings.Split(string(b[:n]), "\x00")
	uri := ""
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == "REQUEST_URI" {
			uri = f[i+1]
		}
	}
	c.Write(draw(caseOf(uri)).streamBytes())
}

// uwsgiApp reads one uwsgi packet (modifier 0: little-endian lengths of
// keys and values) and answers.
func uwsgiApp(c net.Conn) {
	br := bufio.NewReader(c)
	var h [4]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return
	}
	b := make([]byte, binary.LittleEndian.Uint16(h[1:]))
	if _, err := io.ReadFull(br, b); err != nil {
		return
	}
	uri := ""
	for len(b) >= 2 {
		kl := int(binary.LittleEndian.Uint16(b))
		if len(b) < 2+kl+2 {
			break
		}
		k := string(b[2 : 2+kl])
		b = b[2+kl:]
		vl := int(binary.LittleEndian.Uint16(b))
		if len(b) < 2+vl {
			break
		}
		if k == "REQUEST_URI" {
			uri = string(b[2 : 2+vl])
		}
		b = b[2+vl:]
	}
	c.Write(draw(caseOf(uri)).streamBytes())
}
