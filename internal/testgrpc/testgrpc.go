// Package testgrpc speaks gRPC's wire format by hand over net/http's
// HTTP/2, for tests: a backend with unary, server-streaming and
// bidirectional calls, and a client that frames messages and reads the
// trailers. Messages are raw bytes; no protobuf is involved, as a proxy
// never looks inside them.
package testgrpc

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Frame returns msg as one length-prefixed, uncompressed gRPC message.
func Frame(msg []byte) []byte {
	b := make([]byte, 5, 5+len(msg))
	binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
	return append(b, msg...)
}

// maxMessage bounds a message read, so that a broken length cannot make
// a test allocate without bound.
const maxMessage = 1 << 20

// ReadMessage reads one length-prefixed message from r; io.EOF at a
// message boundary means the stream ended.
func ReadMessage(r io.Reader) ([]byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxMessage {
		return nil, fmt.Errorf("message of %d bytes", n)
	}
	msg := make([]byte, n)
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	return msg, nil
}

// Backend is a gRPC service over HTTP/2 (h2c, or TLS when served so):
//
//	/test.Echo/Unary     one message back, "echo:" and the message
//	/test.Echo/Stream    the message's number N as text: N messages "0".."N-1"
//	/test.Echo/Bidi      each message echoed as it comes, until the client ends
//	/test.Echo/Fail      no message; grpc-status 5 and a grpc-message
//	/test.Echo/Slow      the answer after a second
//
// Every answer carries "x-authority" (the request's :authority),
// "x-te" (its te field), "x-seen" (its x-test field), "server" and
// "date", and ends with the trailers grpc-status and grpc-message.
func Backend() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "application/grpc")
		h.Set("X-Authority", r.Host)
		h.Set("X-Te", r.Header.Get("Te"))
		h.Set("X-Seen", r.Header.Get("X-Test"))
		h.Set("Server", "testgrpc")
		h.Set("Trailer", "Grpc-Status, Grpc-Message")
		status, message := "0", ""
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		switch r.URL.Path {
		case "/test.Echo/Unary", "/test.Echo/Slow":
			msg, err := ReadMessage(r.Body)
			if err != nil {
				status, message = "13", err.Error()
				break
			}
			if r.URL.Path == "/test.Echo/Slow" {
				time.Sleep(time.Second)
			}
			w.Write(Frame(append([]byte("echo:"), msg...)))
		case "/test.Echo/Stream":
			msg, err := ReadMessage(r.Body)
			n, _ := strconv.Atoi(string(msg))
			if err != nil || n > 1000 {
				status, message = "3", "bad count"
				break
			}
			for i := range n {
				w.Write(Frame([]byte(strconv.Itoa(i))))
				rc.Flush()
			}
		case "/test.Echo/Bidi":
			w.WriteHeader(http.StatusOK)
			rc.Flush()
			for {
				msg, err := ReadMessage(r.Body)
				if err == io.EOF {
					break
				}
				if err != nil {
					status, message = "13", "broken stream"
					break
				}
				w.Write(Frame(msg))
				rc.Flush()
			}
		case "/test.Echo/Fail":
			status, message = "5", "not found here"
		default:
			status, message = "12", "unknown method"
		}
		h.Set("Grpc-Status", status)
		h.Set("Grpc-Message", message)
	})
}

// Serve serves Backend on l over h2c (plaintext HTTP/2 with prior
// knowledge), or over TLS with ALPN h2 when cfg is set, until l closes.
func Serve(l net.Listener, cfg *tls.Config) *http.Server {
	s := &http.Server{Handler: Backend(), Protocols: new(http.Protocols)}
	s.Protocols.SetUnencryptedHTTP2(true)
	s.Protocols.SetHTTP2(true)
	if cfg != nil {
		cfg = cfg.Clone()
		cfg.NextProtos = []string{"h2"}
		l = tls.NewListener(l, cfg)
	}
	go s.Serve(l)
	return s
}

// Client makes calls over HTTP/2: h2c with prior knowledge to a plain
// address, or TLS with ALPN h2 with cfg set.
func Client(cfg *tls.Config) *http.Client {
	t := &http.Transport{Protocols: new(http.Protocols), TLSClientConfig: cfg, DisableCompression: true}
	if cfg == nil {
		t.Protocols.SetUnencryptedHTTP2(true)
	} else {
		t.Protocols.SetHTTP2(true)
	}
	return &http.Client{Transport: t, Timeout: 10 * time.Second}
}

// Result is what a call got: the HTTP status and head, the messages,
// and the trailers (or, for a trailers-only answer, the head's
// grpc-status and grpc-message).
type Result struct {
	Status   int
	Header   http.Header
	Messages []string
	Trailer  http.Header
	Body     string // the body when it is not gRPC (an error page)
}

// GRPCStatus is the call's grpc-status, from the trailers or the head.
func (r *Result) GRPCStatus() string {
	if s := r.Trailer.Get("Grpc-Status"); s != "" {
		return s
	}
	return r.Header.Get("Grpc-Status")
}

// GRPCMessage is the call's grpc-message, from the trailers or the head.
func (r *Result) GRPCMessage() string {
	if s := r.Trailer.Get("Grpc-Message"); s != "" {
		return s
	}
	return r.Header.Get("Grpc-Message")
}

// String describes the call for a comparison between two servers.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status %d, content-type %q, grpc-status %q, grpc-message %q, messages %q",
		r.Status, r.Header.Get("Content-Type"), r.GRPCStatus(), r.GRPCMessage(), r.Messages)
	return b.String()
}

// Call sends msgs to url's method as one request (the body ends after
// them) and reads the answer whole.
func Call(ctx context.Context, c *http.Client, url string, header http.Header, msgs ...string) (*Result, error) {
	var body bytes.Buffer
	for _, m := range msgs {
		body.Write(Frame([]byte(m)))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return nil, err
	}
	setHead(req, header)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return readResult(resp, nil)
}

func setHead(req *http.Request, header http.Header) {
	for k, vv := range header {
		req.Header[k] = vv
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
}

// readResult reads resp's messages, calling each (when set) with every
// message as it comes.
func readResult(resp *http.Response, each func(string)) (*Result, error) {
	res := &Result{Status: resp.StatusCode, Header: resp.Header}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/grpc") {
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
		res.Body = string(b)
		res.Trailer = resp.Trailer
		return res, err
	}
	for {
		msg, err := ReadMessage(resp.Body)
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, err
		}
		res.Messages = append(res.Messages, string(msg))
		if each != nil {
			each(string(msg))
		}
	}
	res.Trailer = resp.Trailer
	return res, nil
}

// Bidi sends msgs one at a time, each only after the answer to the one
// before came back, so that it proves the call streams both ways at
// once; then it ends the request and reads the rest.
func Bidi(ctx context.Context, c *http.Client, url string, msgs ...string) (*Result, error) {
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
	if err != nil {
		return nil, err
	}
	setHead(req, nil)
	got := make(chan string, len(msgs))
	go func() {
		for _, m := range msgs {
			if _, err := pw.Write(Frame([]byte(m))); err != nil {
				return
			}
			select {
			case <-got:
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			}
		}
		pw.Close()
	}()
	resp, err := c.Do(req)
	if err != nil {
		pw.CloseWithError(err)
		return nil, err
	}
	defer resp.Body.Close()
	res, err := readResult(resp, func(m string) { got <- m })
	if err == nil && len(res.Messages) != len(msgs) && res.GRPCStatus() == "0" {
		err = errors.New("bidi: answers missing")
	}
	return res, err
}
