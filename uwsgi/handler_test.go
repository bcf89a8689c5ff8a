package uwsgi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/internal/syncbuf"
	"github.com/mosaic-edge/mosaic/internal/testclient"
	"github.com/mosaic-edge/mosaic/internal/testorigin"
	"github.com/mosaic-edge/mosaic/internal/testuwsgi"
	"github.com/mosaic-edge/mosaic/uwsgi"
)

// quiet keeps the failures the tests cause out of their output.
var quiet = slog.New(slog.DiscardHandler)

type echo struct {
	Env  map[string]string
	Body string
}

// TestHandlerWithUWSGI sends requests through a Handler to the real uWSGI
// running a WSGI application, on a unix socket and on TCP.
func TestHandlerWithUWSGI(t *testing.T) {
	testuwsgi.Skip(t)
	for _, unix := range []bool{true, false} {
		app := testuwsgi.Start(t, unix)
		front := httptest.NewServer(&uwsgi.Handler{Network: app.Network, Address: app.Address, Logger: quiet})
		t.Cleanup(front.Close)
		t.Run(app.Network, func(t *testing.T) {
			t.Run("get", func(t *testing.T) {
				req, _ := http.NewRequest("GET", front.URL+"/app/echo?a=1&b=%20x&set=s%3D1&set=t%3D2", nil)
				req.Header.Set("X-Test", "v1")
				req.Header.Add("X-Multi", "a")
				req.Header.Add("X-Multi", "b")
				req.Header.Set("Cookie", "c1=x; c2=y")
				resp, body := testclient.Send(t, req)
				var e echo
				if err := json.Unmarshal([]byte(body), &e); err != nil {
					t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
				}
				for k, want := range map[string]string{
					"REQUEST_METHOD": "GET", "QUERY_STRING": "a=1&b=%20x&set=s%3D1&set=t%3D2",
					"PATH_INFO": "/app/echo", "REQUEST_URI": "/app/echo?a=1&b=%20x&set=s%3D1&set=t%3D2",
					"HTTP_X_TEST": "v1", "HTTP_COOKIE": "c1=x; c2=y", "SERVER_PROTOCOL": "HTTP/1.1",
					"REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": strings.TrimPrefix(front.URL, "http://"),
				} {
					if got := e.Env[k]; got != want {
						t.Errorf("%s = %q, want %q", k, got, want)
					}
				}
				// Each line is a variable, as NGINX 1.22 sends them;
				// uWSGI keeps the last.
				if got := e.Env["HTTP_X_MULTI"]; got != "b" {
					t.Errorf("HTTP_X_MULTI = %q", got)
				}
				if resp.Header.Get("X-App") != "yes" || resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("header %v", resp.Header)
				}
				if c := resp.Header["Set-Cookie"]; len(c) != 2 || c[0] != "s=1" || c[1] != "t=2" {
					t.Errorf("Set-Cookie %q", c)
				}
			})
			t.Run("post", func(t *testing.T) {
				payload := strings.Repeat("0123456789", 100_000)
				resp, body := testclient.Send(t, mustRequest("POST", front.URL+"/echo", strings.NewReader(payload)))
				var e echo
				if err := json.Unmarshal([]byte(body), &e); err != nil {
					t.Fatalf("%d %.200s: %v", resp.StatusCode, body, err)
				}
				if e.Body != payload || e.Env["CONTENT_LENGTH"] != "1000000" {
					t.Errorf("body of %d bytes, CONTENT_LENGTH %q", len(e.Body), e.Env["CONTENT_LENGTH"])
				}
			})
			t.Run("chunked post", func(t *testing.T) {
				// A body of unknown length is read first: uwsgi has no
				// framing but CONTENT_LENGTH.
				req := mustRequest("POST", front.URL+"/echo", io.MultiReader(strings.NewReader("part1 "), strings.NewReader("part2")))
				req.ContentLength = -1
				_, body := testclient.Send(t, req)
				var e echo
				json.Unmarshal([]byte(body), &e)
				if e.Body != "part1 part2" || e.Env["CONTENT_LENGTH"] != "11" {
					t.Errorf("%q %q", e.Body, e.Env["CONTENT_LENGTH"])
				}
			})
			for _, c := range []struct {
				path   string
				status int
				body   string
			}{
				{"/notfound", 404, "no such page\n"},
				{"/error", 500, "server error\n"},
				{"/fail", 502, ""},
				{"/status", 201, ""},
				{"/size?n=70000", 200, strings.Repeat("x", 70000)},
				{"/index", 200, "hello from wsgi /index\n"},
			} {
				resp, body := testclient.Send(t, mustRequest("GET", front.URL+c.path, nil))
				if resp.StatusCode != c.status || (c.body != "" && body != c.body) {
					t.Errorf("%s: %d %.100q", c.path, resp.StatusCode, body)
				}
			}
			resp, _ := testclient.Send(t, mustRequest("GET", front.URL+"/redirect?to=/elsewhere", nil))
			if resp.StatusCode != 302 || resp.Header.Get("Location") != "/elsewhere" {
				t.Errorf("redirect: %d %v", resp.StatusCode, resp.Header)
			}
		})
	}
}

// TestHandlerErrors: an application that is not running answers 502, one
// slower than the read timeout 504, one that sends garbage 502.
func TestHandlerErrors(t *testing.T) {
	testuwsgi.Skip(t)
	app := testuwsgi.Start(t, true)
	var log syncbuf.Buffer
	h := &uwsgi.Handler{Network: app.Network, Address: app.Address, ReadTimeout: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}
	front := httptest.NewServer(h)
	defer front.Close()

	// The status tells the read timeout (504 at 300 ms) from the app's
	// answer (200 at 3 s); a bound of 2 s on the time failed under load.
	resp, _ := testclient.Send(t, mustRequest("GET", front.URL+"/slow?ms=3000", nil))
	if resp.StatusCode != 504 {
		t.Errorf("slow: %d", resp.StatusCode)
	}
	resp, _ = testclient.Send(t, mustRequest("GET", front.URL+"/slow?ms=10", nil))
	if resp.StatusCode != 200 {
		t.Errorf("fast enough: %d", resp.StatusCode)
	}
	app.Stop()
	resp, _ = testclient.Send(t, mustRequest("GET", front.URL+"/index", nil))
	if resp.StatusCode != 502 {
		t.Errorf("stopped: %d", resp.StatusCode)
	}

	for _, want := range []string{"upstream timed out while reading response header from upstream",
		"connect() failed (", ") while connecting to upstream", "upstream=uwsgi://" + app.Address} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}

	garbage := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := uwsgi.ReadRequest(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\n bad: folded\r\n\r\n")
	})
	h2 := &uwsgi.Handler{Network: "tcp", Address: garbage.Addr(), Logger: quiet}
	rec := httptest.NewRecorder()
	h2.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 502 {
		t.Errorf("garbage: %d", rec.Code)
	}

	// A body shorter than its Content-Length cuts the client's connection.
	short := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := uwsgi.ReadRequest(br); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
		}
	})
	front2 := httptest.NewServer(&uwsgi.Handler{Network: "tcp", Address: short.Addr(), Logger: quiet})
	defer front2.Close()
	if resp, err := http.Get(front2.URL); err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Error("a body cut short reads as whole")
		}
	}
}

func mustRequest(method, url string, body io.Reader) *http.Request {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		panic(err)
	}
	return req
}

// TestHandlerAnswerBeforeBody: an application that answers without reading
// the request body leaves the client's keep-alive connection usable. A
// chunked body is read whole before it is sent; net/http then watches the
// connection for a close, and cutting that watch with a read deadline
// once cancelled every later request on the connection (each got an
// empty 200).
func TestHandlerAnswerBeforeBody(t *testing.T) {
	app := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := uwsgi.ReadRequest(br); err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		}
	})
	front := httptest.NewServer(&uwsgi.Handler{Network: "tcp", Address: app.Addr(), Logger: quiet})
	defer front.Close()
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	for i := range 5 {
		// Larger than the socket buffers: the sender is still writing
		// when the answer is complete.
		payload := strings.Repeat("x", 8<<20)
		req := mustRequest("POST", front.URL+"/", io.MultiReader(strings.NewReader(payload)))
		req.ContentLength = -1
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "ok" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
}

// TestHandlerFailsWhileBodyStalls: an application that closes without an
// answer while the client's body is still coming gets the client its 502
// at once, on a connection that then closes (the rest of the body is
// unread).
func TestHandlerFailsWhileBodyStalls(t *testing.T) {
	app := testorigin.NewRaw(t, func(c net.Conn, br *bufio.Reader) {
		uwsgi.ReadRequest(br)
	})
	front := httptest.NewServer(&uwsgi.Handler{Network: "tcp", Address: app.Addr(), Logger: quiet})
	defer front.Close()
	c, err := net.Dial("tcp", front.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly ten b")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 502 || !resp.Close {
		t.Errorf("%d, close %v", resp.StatusCode, resp.Close)
	}
}

// A request too big for a uwsgi packet is answered 500 before the
// application is dialled: the request's fault, not the application's.
func TestHandlerTooBigRequest(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialled := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			dialled <- struct{}{}
			c.Close()
		}
	}()
	h := &uwsgi.Handler{Network: "tcp", Address: ln.Addr().String(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	h.Wire.Vars = func(dst []uwsgi.Var, _ *http.Request) []uwsgi.Var {
		return append(dst, uwsgi.Var{Name: "BIG", Value: strings.Repeat("v", uwsgi.MaxVarsSize)})
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", w.Code)
	}
	select {
	case <-dialled:
		t.Errorf("the application was dialled")
	case <-time.After(50 * time.Millisecond):
	}
}
