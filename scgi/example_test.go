package scgi_test

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
	"github.com/mosaic-edge/mosaic/scgi"
)

// A net/http handler that serves every request through an SCGI
// application at addr (uWSGI's --scgi-socket, Python's scgi package, ...):
// the proxy's Handler speaking SCGI, with its timeouts and error
// responses.
func Example() {
	addr := startApp()
	pass := proxy.Pass{Scheme: "scgi", Host: "127.0.0.1", Port: addr[strings.LastIndexByte(addr, ':')+1:]}
	h, err := proxy.New(proxy.Options{Pass: pass, Wire: &scgi.Wire{}, DefaultHide: scgi.HiddenHeaders})
	if err != nil {
		log.Fatal(err)
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("POST", "/form?lang=fr", strings.NewReader("name=gopher")))
	fmt.Println(w.Code, w.Header().Get("Content-Type"), w.Header()["Status"] == nil)
	fmt.Print(w.Body.String())
	// Output:
	// 201 text/plain true
	// POST /form?lang=fr SCGI=1 body=name=gopher
}

// startApp runs a one-connection SCGI application that answers with
// what it was sent.
func startApp() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		defer ln.Close()
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := scgi.ReadRequest(br, 0)
		if err != nil {
			return
		}
		body := make([]byte, req.ContentLength)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		method, _ := req.Get("REQUEST_METHOD")
		uri, _ := req.Get("REQUEST_URI")
		flag, _ := req.Get("SCGI")
		fmt.Fprintf(c, "Status: 201 Created\r\nContent-Type: text/plain\r\n\r\n%s %s SCGI=%s body=%s\n", method, uri, flag, body)
	}()
	return ln.Addr().String()
}
