// Command rawdict compresses a file with mosaic's brotli encoder and a raw
// dictionary (Options.Dictionary) and writes the stream to standard
// output; rawdict-vs-c.sh compares its output with Google's encoder's.
//
//	go run ./brotli/bench/rawdict -dict OLD -q 5 NEW > NEW.br
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mosaic-edge/mosaic/brotli"
)

func main() {
	dict := flag.String("dict", "", "raw dictionary file")
	q := flag.Int("q", 5, "quality")
	lgwin := flag.Int("w", 22, "window bits")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: rawdict -dict FILE [-q Q] [-w BITS] FILE")
		os.Exit(2)
	}
	if err := run(*dict, flag.Arg(0), *q, *lgwin); err != nil {
		fmt.Fprintln(os.Stderr, "rawdict:", err)
		os.Exit(1)
	}
}

func run(dictPath, path string, q, lgwin int) error {
	var dict *brotli.Dictionary
	if dictPath != "" {
		b, err := os.ReadFile(dictPath)
		if err != nil {
			return err
		}
		if dict, err = brotli.NewDictionary(b); err != nil {
			return err
		}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := brotli.Encode(nil, src, brotli.Options{Quality: q, LGWin: lgwin, Dictionary: dict})
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}
