package server

import (
	"io"
	"net/http"
	"sync/atomic"

	"github.com/mosaic-edge/mosaic/vars"
)

// setWire gives st what reports the request's and the response's sizes
// on the wire ($request_length, $bytes_sent), and the request's header
// lines (and a spaced request line) as they came, where the server knows
// them. mosaic's HTTP/1.x server
// knows them; Go's HTTP/2 server reports no frame sizes, so there the
// request's length counts the body bytes read and no header.
func setWire(st *vars.State, w http.ResponseWriter, r *http.Request) {
	if ws, ok := w.(vars.WireSizer); ok {
		st.Wire, st.HeaderLines = ws, ws.RequestLines()
		// The usual line is its parts joined, which $request joins
		// only when asked for; one of several spaces between them is
		// kept as it came (a subrequest copies it too).
		if line := ws.RequestLine(); line != "" {
			st.MakeRare().RequestLine = line
		}
		return
	}
	cb := &countedBody{ReadCloser: r.Body}
	if r.Body == nil || r.Body == http.NoBody {
		st.Wire = cb
		return
	}
	r.Body = cb
	st.Wire = cb
}

// countedBody counts the bytes a handler reads of a request body.
type countedBody struct {
	io.ReadCloser
	n atomic.Int64 // a proxy reads the body in a goroutine of its own
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (b *countedBody) RequestSize() int64      { return b.n.Load() }
func (b *countedBody) HeaderSize() int64       { return 0 }
func (b *countedBody) BodyOverhead(bool) int64 { return 0 }
func (b *countedBody) RequestLines() string    { return "" }
func (b *countedBody) RequestLine() string     { return "" }
