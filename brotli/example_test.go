package brotli_test

import (
	"bytes"
	"fmt"
	"io"
	"log"

	ab "github.com/andybalholm/brotli"
	"github.com/mosaic-edge/mosaic/brotli"
)

// A body of known length in one call.
func ExampleEncode() {
	body := bytes.Repeat([]byte("mosaic compresses with brotli. "), 100)
	comp, err := brotli.Encode(nil, body, brotli.Options{Quality: 2})
	if err != nil {
		log.Fatal(err)
	}
	back, _ := io.ReadAll(ab.NewReader(bytes.NewReader(comp)))
	fmt.Println(len(body), len(comp) < 100, bytes.Equal(back, body))
	// Output: 3100 true true
}

// A stream with a flush point: after Flush the output so far decodes to
// everything written so far (server-sent events).
func ExampleWriter_Flush() {
	var out bytes.Buffer
	w, err := brotli.NewWriter(&out, brotli.Options{Quality: 1, SizeHint: 4096})
	if err != nil {
		log.Fatal(err)
	}
	w.Write([]byte("data: first event\n\n"))
	w.Flush()
	first := make([]byte, 19)
	io.ReadFull(ab.NewReader(bytes.NewReader(out.Bytes())), first)
	fmt.Printf("%q\n", first)
	w.Write([]byte("data: second event\n\n"))
	w.Close()
	// Output: "data: first event\n\n"
}

// Pieces compressed separately (here in order; they could be compressed
// in parallel or cached) concatenate into one stream.
func ExampleEncoder_EncodeSegment() {
	enc, err := brotli.NewEncoder(brotli.Options{Quality: 3, LGWin: 20})
	if err != nil {
		log.Fatal(err)
	}
	pieces := []string{"<html><body>", "<p>a fragment</p>", "</body></html>"}
	var stream []byte
	for i, p := range pieces {
		stream = enc.EncodeSegment(stream, []byte(p), brotli.Segment{First: i == 0, Last: i == len(pieces)-1})
	}
	back, _ := io.ReadAll(ab.NewReader(bytes.NewReader(stream)))
	fmt.Println(string(back))
	// Output: <html><body><p>a fragment</p></body></html>
}
