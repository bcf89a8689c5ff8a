// Command gzipstate prints the heap one gzip stream of klauspost/compress
// holds at each level once it has compressed a few hundred kilobytes of
// text (its tables, history, token buffer and bit writer), the part of a
// compressing connection's memory that the level fixes.
//
//	go run ./compress/bench/gzipstate
package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/klauspost/compress/gzip"
)

func main() {
	text := []byte(strings.Repeat("the quick brown fox jumps over a lazy dog; seven wizards hex zebras\n", 8000))
	for level := gzip.BestSpeed; level <= gzip.BestCompression; level++ {
		const n = 16
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ws := make([]*gzip.Writer, n)
		for i := range ws {
			w, err := gzip.NewWriterLevel(io.Discard, level)
			if err != nil {
				panic(err)
			}
			if _, err := w.Write(text); err != nil {
				panic(err)
			}
			ws[i] = w
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		fmt.Printf("level %d: %4d KB a stream\n", level, (after.HeapAlloc-before.HeapAlloc)/n>>10)
		runtime.KeepAlive(ws)
	}
}
