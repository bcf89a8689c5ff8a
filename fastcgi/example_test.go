package fastcgi_test

import (
	"bufio"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/fastcgi"
	"github.com/mosaic-edge/mosaic/proxy"
)

// A net/http handler that serves every request through a FastCGI
// application (php-fpm, for one) at addr: the proxy's Handler speaking
// FastCGI, with its timeouts, error responses and, given an Upstream with
// keepalive, kept connections.
func Example() {
	addr := startApp() // "127.0.0.1:9000" for a php-fpm
	client := &fastcgi.Client{
		Params: func(dst []byte, r *http.Request) []byte {
			dst = fastcgi.AppendPair(dst, "REQUEST_METHOD", r.Method)
			dst = fastcgi.AppendPair(dst, "SCRIPT_FILENAME", "/srv/www"+r.URL.Path)
			return fastcgi.AppendPair(dst, "QUERY_STRING", r.URL.RawQuery)
		},
	}
	pass := proxy.Pass{Scheme: "fastcgi", Host: "127.0.0.1", Port: addr[strings.LastIndexByte(addr, ':')+1:]}
	h, err := proxy.New(proxy.Options{Pass: pass, Wire: client, DefaultHide: []string{"Status"}})
	if err != nil {
		log.Fatal(err)
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/hello.php?name=gopher", nil))
	fmt.Println(w.Code, w.Header().Get("Content-Type"))
	fmt.Print(w.Body.String())
	// Output:
	// 201 text/plain
	// GET /srv/www/hello.php name=gopher
}

// startApp runs a one-connection FastCGI application that answers with
// the parameters it was given.
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
		var params []byte
		for {
			h, content, err := fastcgi.ReadRecord(br)
			if err != nil {
				return
			}
			if h.Type == fastcgi.TypeParams {
				params = append(params, content...)
			}
			if h.Type == fastcgi.TypeStdin && len(content) == 0 {
				break
			}
		}
		pairs, _ := fastcgi.ParsePairs(params)
		env := map[string]string{}
		for _, p := range pairs {
			env[p[0]] = p[1]
		}
		out := "Status: 201 Created\r\nContent-Type: text/plain\r\n\r\n" +
			env["REQUEST_METHOD"] + " " + env["SCRIPT_FILENAME"] + " " + env["QUERY_STRING"] + "\n"
		c.Write(fastcgi.AppendRecord(nil, fastcgi.TypeStdout, []byte(out)))
		c.Write(fastcgi.AppendRecord(nil, fastcgi.TypeEndRequest, make([]byte, 8)))
	}()
	return ln.Addr().String()
}
