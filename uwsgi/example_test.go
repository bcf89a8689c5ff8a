package uwsgi_test

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/mosaic-edge/mosaic/uwsgi"
)

// A Handler in front of an application server. The application here is a
// few lines of Go reading the uwsgi packet; in production it is uWSGI
// running a WSGI application (uwsgi --socket 127.0.0.1:3031 --wsgi-file
// app.py).
func ExampleHandler() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			br := bufio.NewReader(c)
			p, err := uwsgi.ReadRequest(br)
			if err == nil {
				method, _ := p.Get("REQUEST_METHOD")
				uri, _ := p.Get("REQUEST_URI")
				lang, _ := p.Get("HTTP_ACCEPT_LANGUAGE")
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n%s %s in %s", method, uri, lang)
			}
			c.Close()
		}
	}()

	front := httptest.NewServer(&uwsgi.Handler{Network: "tcp", Address: ln.Addr().String()})
	defer front.Close()

	req, _ := http.NewRequest("GET", front.URL+"/hello?name=world", nil)
	req.Header.Set("Accept-Language", "fr")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))
	fmt.Println(string(body))
	// Output:
	// 200 text/plain
	// GET /hello?name=world in fr
}
