package compress_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/mosaic-edge/mosaic/compress"
)

// When the handler flushes (server-sent events, unbuffered proxying), the
// client must be able to decode everything written so far at once, while
// the handler is still waiting.
func TestFlushReachesClient(t *testing.T) {
	for _, coding := range []string{"br", "zstd", "gzip"} {
		t.Run(coding, func(t *testing.T) {
			proceed := make(chan struct{})
			url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				for i := range 3 {
					fmt.Fprintf(w, "data: event %d\n\n", i)
					w.(http.Flusher).Flush()
					select {
					case <-proceed:
					case <-time.After(5 * time.Second):
						t.Errorf("event %d never reached the client", i)
						return
					}
				}
			}), allOn(func(o *compress.Options) {
				sse := []string{"text/event-stream"}
				o.Brotli.Types, o.Zstd.Types, o.Gzip.Types = sse, sse, sse
			})))
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("Accept-Encoding", coding)
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.Header.Get("Content-Encoding") != coding || resp.ContentLength != -1 {
				t.Fatalf("Content-Encoding %q, Content-Length %d", resp.Header.Get("Content-Encoding"), resp.ContentLength)
			}
			events := streamReader(t, coding, resp.Body)
			for i := range 3 {
				want := fmt.Sprintf("data: event %d\n\n", i)
				got := make([]byte, len(want))
				if _, err := io.ReadFull(events, got); err != nil || string(got) != want {
					t.Fatalf("event %d: %q, %v", i, got, err)
				}
				proceed <- struct{}{}
			}
			if rest, err := io.ReadAll(events); err != nil || len(rest) != 0 {
				t.Fatalf("after the events: %q, %v", rest, err)
			}
		})
	}
}

// A flush before any body sends the headers, as it does without
// compression.
func TestFlushBeforeBody(t *testing.T) {
	proceed := make(chan struct{})
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.(http.Flusher).Flush()
		<-proceed
		w.Write(text(1000))
	}), allOn(nil)))
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "br")
	resp, err := rawClient.Do(req) // returns once the headers are in
	close(proceed)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 404 || resp.Header.Get("Content-Encoding") != "br" || !bytes.Equal(decode(t, "br", b), text(1000)) {
		t.Fatalf("status %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
}

func TestInformationalResponses(t *testing.T) {
	page := text(3000)
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload; as=style")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "text/html")
		w.Write(page)
	}), allOn(nil)))
	var hints []string
	trace := &httptrace.ClientTrace{Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
		hints = append(hints, fmt.Sprintf("%d %s", code, h.Get("Link")))
		return nil
	}}
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	req.Header.Set("Accept-Encoding", "br")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if len(hints) != 1 || hints[0] != "103 </style.css>; rel=preload; as=style" {
		t.Errorf("1xx responses: %q", hints)
	}
	if resp.StatusCode != 200 || !bytes.Equal(decode(t, resp.Header.Get("Content-Encoding"), b), page) || resp.Header.Get("Content-Encoding") != "br" {
		t.Errorf("final response: %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
}

func TestResponseController(t *testing.T) {
	page := text(3000)
	errs := make(chan error, 4)
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		errs <- rc.SetWriteDeadline(time.Now().Add(time.Minute))
		errs <- rc.SetReadDeadline(time.Now().Add(time.Minute))
		w.Header().Set("Content-Type", "text/html")
		w.Write(page[:1000])
		errs <- rc.Flush()
		w.Write(page[1000:])
		errs <- rc.EnableFullDuplex()
	}), allOn(nil)))
	resp := fetchDecoded(t, url, page, "Accept-Encoding: zstd")
	if resp.Header.Get("Content-Encoding") != "zstd" {
		t.Errorf("Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Errorf("ResponseController: %v", err)
		}
	}
}

func TestHijack(t *testing.T) {
	for name, hijack := range map[string]func(http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error){
		"Hijacker": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) { return w.(http.Hijacker).Hijack() },
		"ResponseController": func(w http.ResponseWriter) (net.Conn, *bufio.ReadWriter, error) {
			return http.NewResponseController(w).Hijack()
		},
	} {
		url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			conn, brw, err := hijack(w)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			defer conn.Close()
			brw.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
			brw.Flush()
		}), allOn(nil)))
		resp, b := fetch(t, http.MethodGet, url, browser)
		if string(b) != "hello" || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: %q, Content-Encoding %q", name, b, resp.Header.Get("Content-Encoding"))
		}
	}
}

// A WebSocket handshake's handler hijacks the connection through the
// filter's writer; its 101 goes out without Content-Encoding or Vary, and
// nothing is compressed or buffered on the way.
func TestWebSocketUpgrade(t *testing.T) {
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close()
		brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		brw.Flush()
		line, _ := brw.ReadString('\n')
		brw.WriteString("echo " + line)
		brw.Flush()
	}), allOn(nil)))
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(conn, "GET /chat HTTP/1.1\r\nHost: test\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\nAccept-Encoding: gzip, deflate, br, zstd\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "" {
		t.Fatalf("handshake: %d, Content-Encoding %q, Vary %q", resp.StatusCode, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	fmt.Fprint(conn, "ping\n")
	if line, err := br.ReadString('\n'); err != nil || line != "echo ping\n" {
		t.Fatalf("tunnel: %q, %v", line, err)
	}
}

// A plain 200 to a request that asks to upgrade (a front controller
// answering a WebSocket handshake as any page) is compressed and varied
// as any other, as NGINX's gzip filter does: the filter once left such
// requests alone, and the 200 went without Vary.
func TestUpgradeRequestPlainAnswer(t *testing.T) {
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(text(4 << 10))
	}), allOn(nil)))
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ce, vary := resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"); ce != "gzip" || vary != "Accept-Encoding" {
		t.Errorf("%d: Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", resp.StatusCode, ce, vary)
	}
}

// A handler that panics leaves the client with a broken response, not a
// truncated one that looks complete, and its encoder is not pooled.
func TestHandlerPanic(t *testing.T) {
	pool := compress.NewEncoderPool(4)
	url := serve(t, mustNew(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write(text(200 << 10))
		panic(http.ErrAbortHandler)
	}), allOn(func(o *compress.Options) { o.Brotli.Encoders = pool })))
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept-Encoding", "br")
	resp, err := rawClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Fatal("the client saw a complete response")
	}
	if s := pool.Stats(); s.Idle != 0 || s.Allocated != 1 {
		t.Errorf("pool after a panic: %+v", s)
	}
}
