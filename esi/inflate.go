package esi

import (
	"errors"
	"io"
	"log/slog"

	"github.com/klauspost/compress/gzip"
)

// inflate parses the page from the gzip stream r yields, inflated into
// chunks the page owns. A corrupt stream ends the page where it breaks: what
// came before it is delivered, with its fragments, and the error is logged.
func (p *page) inflate(r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if errors.Is(err, io.EOF) {
		return nil // an empty body, however it is labelled
	}
	if err == nil {
		_, err = p.readFrom(zr)
	}
	if err != nil && p.out.failed() == nil {
		p.h.log.LogAttrs(p.ctx, slog.LevelError, "esi: cannot inflate the page, the rest of it is dropped",
			slog.String("uri", p.req.URL.RequestURI()), slog.Any("error", err))
	}
	return err
}

// inflater inflates a gzipped page that arrives through Write. The handler
// pushes bytes while gzip pulls them, so a goroutine does the pulling (and
// the parsing); Write returns once the goroutine has taken the bytes.
type inflater struct {
	pw   *io.PipeWriter
	done chan struct{}
}

func (rw *responseWriter) inflaterFor() *inflater {
	if rw.inflater == nil {
		pr, pw := io.Pipe()
		inf := &inflater{pw: pw, done: make(chan struct{})}
		go func() {
			defer close(inf.done)
			// The stream ends when the writer closes, or breaks: either way
			// later writes fail rather than block.
			pr.CloseWithError(rw.page.inflate(pr))
		}()
		rw.inflater = inf
	}
	return rw.inflater
}

func (inf *inflater) write(b []byte) (int, error) { return inf.pw.Write(b) }

func (inf *inflater) close() {
	inf.pw.Close()
	<-inf.done
}
