package proxy_test

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mosaic-edge/mosaic/proxy"
)

// A location "location /api/ { proxy_pass http://ORIGIN/v1/; }": the
// location's prefix is replaced by the URI of the target.
func ExampleNew() {
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "origin saw %s", r.URL.RequestURI())
	}))
	defer origin.Close()

	pass, err := proxy.ParsePass(origin.URL + "/v1/")
	if err != nil {
		panic(err)
	}
	h, err := proxy.New(proxy.Options{Pass: pass, LocationPrefix: "/api/"})
	if err != nil {
		panic(err)
	}
	front := httptest.NewServer(h)
	defer front.Close()

	resp, err := http.Get(front.URL + "/api/users?page=2")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.StatusCode, string(body))
	// Output: 200 origin saw /v1/users?page=2
}

// An upstream group of two servers, one weighted twice, with idle
// connections kept for reuse (which needs HTTP/1.1 and a cleared
// Connection header). Requests are shared by smooth weighted round robin.
func ExampleNewUpstream() {
	var servers []proxy.Server
	for _, name := range []string{"a", "b"} {
		o := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, name)
		}))
		defer o.Close()
		servers = append(servers, proxy.Server{Addr: strings.TrimPrefix(o.URL, "http://"), MaxFails: 1})
	}
	servers[0].Weight = 2
	backend, err := proxy.NewUpstream("backend", servers, 8)
	if err != nil {
		panic(err)
	}
	defer backend.CloseIdle()

	pass, _ := proxy.ParsePass("http://backend")
	h, err := proxy.New(proxy.Options{
		Pass:        pass,
		Upstream:    backend,
		HTTPVersion: "1.1",
		SetHeaders:  []proxy.Header{proxy.Static("Connection", "")},
	})
	if err != nil {
		panic(err)
	}
	for range 6 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		fmt.Print(w.Body.String(), " ")
	}
	fmt.Println()
	// Output: a b a a b a
}

// OnFailure learns why the proxy answers with an error page of its own;
// a cache in front of the proxy uses it to serve a stale entry instead.
func ExampleOptions_onFailure() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there any more

	pass, _ := proxy.ParsePass("http://" + addr)
	h, err := proxy.New(proxy.Options{
		Pass: pass,
		OnFailure: func(w http.ResponseWriter, r *http.Request, f proxy.Failure) {
			fmt.Println("failure:", f)
		},
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		panic(err)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	fmt.Println("status:", w.Code)
	// Output:
	// failure: error
	// status: 502
}
