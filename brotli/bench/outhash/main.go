// Command outhash prints a SHA-256 of everything mosaic's brotli encoder
// writes, one per quality, for a fixed set of inputs and ways of calling
// it, so that a change meant to leave the output byte for byte the same (a
// faster match finder, a rearranged writer) can be checked by running it
// in the worktree before and the one after: the lines must be equal, and a
// line that differs names the quality the change reached.
//
//	go run ./brotli/bench/outhash            # qualities 0-11, full
//	go run ./brotli/bench/outhash -quick -q 0-9
//	go run ./brotli/bench/outhash -q 5,6 FILE...
//
// The inputs are the files given, or else the corpus in ../shared/corpus,
// or else (when it is missing) text generated from a fixed seed; the first
// output line names the set and its digest, since hashes of different
// sets do not compare. To them are added their prefixes of 2^k-1 bytes and
// of lengths around 64 KiB (where qualities 0 and 1 change their match
// finder), slices of 0 to 599 bytes of the first file, edge inputs (empty,
// runs, noise, copies of 2,118 to 15,000 bytes, copies 160 KB back) and
// pseudo-random inputs with short repeats.
//
// Each quality compresses them by Encode and a reused Encoder at every
// window, in text and font mode at window 22, through Writers (with a size
// hint, without, with a raw dictionary) fed in random pieces and flushed at
// random points, and each file as segments: with whole prefixes and
// BodyLen, with short prefixes and Offset at window 16, and after a raw
// dictionary. Every random choice is seeded by the quality alone, so a
// quality's hash does not depend on which others run, nor on GOMAXPROCS
// (qualities run in parallel, one goroutine each). -quick takes fewer
// prefixes, slices and random inputs. It does not decode: the round-trip
// tests do that.
package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mosaic-edge/mosaic/brotli"
)

// corpusFiles are the files of ../shared/corpus that the default set uses.
var corpusFiles = []string{"jquery.min.js", "bootstrap.min.css", "api-listing.json", "api-small.json", "react-dom.development.js"}

func main() {
	quals := flag.String("q", "0-11", "qualities: a list of numbers and ranges, e.g. 0-4,6")
	wins := flag.String("w", "10,16,22,24", "window bits, comma-separated")
	corpus := flag.String("corpus", "../shared/corpus", "corpus directory used when no FILE is given; empty or missing: generated inputs")
	quick := flag.Bool("quick", false, "fewer prefixes, slices and random inputs")
	flag.Parse()
	if err := run(*quals, *wins, *corpus, *quick, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "outhash:", err)
		os.Exit(1)
	}
}

// ints parses a comma-separated list of numbers and ranges (4-9) within
// [lo, hi].
func ints(list string, lo, hi int) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(list, ",") {
		a, b, isRange := strings.Cut(strings.TrimSpace(f), "-")
		from, err := strconv.Atoi(a)
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", list, err)
		}
		to := from
		if isRange {
			if to, err = strconv.Atoi(b); err != nil {
				return nil, fmt.Errorf("list %q: %w", list, err)
			}
		}
		if from < lo || to > hi || from > to {
			return nil, fmt.Errorf("list %q: %d-%d outside %d-%d", list, from, to, lo, hi)
		}
		for n := from; n <= to; n++ {
			out = append(out, n)
		}
	}
	return out, nil
}

// loadSet returns the input files and the name of the set they form.
func loadSet(paths []string, corpus string) ([][]byte, string, error) {
	name := "files"
	if len(paths) == 0 && corpus != "" {
		name = "corpus " + corpus
		for _, f := range corpusFiles {
			paths = append(paths, filepath.Join(corpus, f))
		}
	}
	var files [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) && name != "files" {
			return generated(), "generated (no " + p + ")", nil
		}
		if err != nil {
			return nil, "", fmt.Errorf("input: %w", err)
		}
		files = append(files, b)
	}
	if len(files) == 0 {
		return generated(), "generated", nil
	}
	return files, name, nil
}

func run(quals, wins, corpus string, quick bool, paths []string) error {
	qs, err := ints(quals, brotli.MinQuality, brotli.MaxQuality)
	if err != nil {
		return err
	}
	ws, err := ints(wins, 10, 24)
	if err != nil {
		return err
	}
	files, setName, err := loadSet(paths, corpus)
	if err != nil {
		return err
	}
	inputs := inputsOf(files, quick)
	dict, err := brotli.NewDictionary(files[0][:min(len(files[0]), 20000)])
	if err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	setHash, inBytes := sha256.New(), 0
	for _, in := range inputs {
		setHash.Write(in)
		inBytes += len(in)
	}
	mode := "full"
	if quick {
		mode = "quick"
	}
	fmt.Printf("set %s: %d files, %d inputs, %d bytes, sha256 %x; %s, windows %s\n",
		setName, len(files), len(inputs), inBytes, setHash.Sum(nil)[:8], mode, wins)

	start := time.Now()
	sums := make([][]byte, len(qs))
	sizes := make([]int64, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		wg.Go(func() {
			c := &counter{h: sha256.New()}
			errs[i] = quality(c, q, ws, inputs, files, dict)
			sums[i], sizes[i] = c.h.Sum(nil), c.n
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	total, all := sha256.New(), int64(0)
	for i, q := range qs {
		fmt.Printf("q%-2d   %x %d\n", q, sums[i], sizes[i])
		total.Write(sums[i])
		all += sizes[i]
	}
	fmt.Printf("total %x %d\n", total.Sum(nil), all)
	fmt.Fprintf(os.Stderr, "outhash: %v with GOMAXPROCS %d\n", time.Since(start).Round(time.Second), runtime.GOMAXPROCS(0))
	return nil
}

// counter hashes what is written to it and counts the bytes.
type counter struct {
	h hash.Hash
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// quality hashes everything one quality writes.
func quality(c *counter, q int, ws []int, inputs, files [][]byte, dict *brotli.Dictionary) error {
	for _, win := range ws {
		if err := oneShot(c, brotli.Options{Quality: q, LGWin: win}, inputs, true); err != nil {
			return err
		}
	}
	for _, mode := range []brotli.Mode{brotli.ModeText, brotli.ModeFont} {
		if err := oneShot(c, brotli.Options{Quality: q, Mode: mode}, inputs, false); err != nil {
			return err
		}
	}
	if err := streams(c, q, inputs, dict); err != nil {
		return err
	}
	return segments(c, q, files, dict)
}

// inputsOf returns the files, their prefixes, slices of the first file,
// edge inputs and random inputs with short repeats.
func inputsOf(files [][]byte, quick bool) [][]byte {
	inputs := append([][]byte(nil), files...)
	step, slices, randoms := 1, 600, 420
	if quick {
		step, slices, randoms = 4, 60, 84
	}
	for _, b := range files {
		for k := 0; k <= 17; k += step {
			if n := 1<<k - 1; n < len(b) {
				inputs = append(inputs, b[:n])
			}
		}
		for _, n := range []int{1000, 40000, 65536, 65537, 70000, 70001, 131073} {
			if n < len(b) {
				inputs = append(inputs, b[:n])
			}
		}
	}
	if first := files[0]; len(first) >= 1000+slices {
		for n := range slices {
			inputs = append(inputs, first[1000:1000+n*600/slices])
		}
	}
	inputs = append(inputs, edges()...)
	rng := rand.New(rand.NewSource(1))
	for k := range randoms {
		b := make([]byte, rng.Intn(1<<(4+k%14)))
		alpha := 2 + rng.Intn(30)
		for i := range b {
			if i > 8 && rng.Intn(3) == 0 {
				b[i] = b[i-1-rng.Intn(min(i-1, 300))]
			} else {
				b[i] = byte('a' + rng.Intn(alpha))
			}
		}
		inputs = append(inputs, b)
	}
	return inputs
}

// edges returns inputs at the edges of what the format codes: nothing, one
// byte, long runs, noise, noise repeated 160 KB back (beyond a 16-bit
// window), a 1009-byte period, and copies of 2,118 bytes (the last copy
// length code's base), 2,119, 15,000 and more between noise.
func edges() [][]byte {
	rng := rand.New(rand.NewSource(2))
	noise := func(n int) []byte {
		b := make([]byte, n)
		rng.Read(b)
		return b
	}
	period := noise(1009)
	periodic := bytes.Repeat(period, 300)
	far := noise(160 << 10)
	far = append(far, far[:40000]...)
	var copies []byte
	for _, n := range []int{2117, 2118, 2119, 2200, 15000, 15001, 70000} {
		piece := noise(n)
		copies = append(copies, piece...)
		copies = append(copies, noise(17)...)
		copies = append(copies, piece...)
	}
	return [][]byte{{}, {'a'}, []byte("abcdefg"), bytes.Repeat([]byte{'x'}, 300000),
		bytes.Repeat([]byte{0}, 70000), noise(65536), far, periodic, copies}
}

// generated returns text in the manner of the corpus (script, style sheet,
// JSON listing), from a fixed seed, for when the corpus is missing.
func generated() [][]byte {
	rng := rand.New(rand.NewSource(3))
	words := strings.Fields(`function return var const let if else for while this null
		undefined true false new typeof prototype length value element document window
		children props state render update component node parent index count width height
		margin padding border color background display flex position absolute relative
		none auto inherit solid transparent name id type items created modified size href`)
	word := func() string { return words[rng.Intn(len(words))] }
	var js, css, json strings.Builder
	for js.Len() < 300000 {
		fmt.Fprintf(&js, "%sfunction %s%d(%s, %s) {\n  if (%s.%s !== %s) { return %s[%d]; }\n}\n",
			strings.Repeat("  ", rng.Intn(4)), word(), rng.Intn(100), word(), word(), word(), word(), word(), word(), rng.Intn(1000))
	}
	for css.Len() < 120000 {
		fmt.Fprintf(&css, ".%s-%s{%s:%dpx;%s:%s;%s-%s:#%06x}", word(), word(), word(), rng.Intn(64), word(), word(), word(), word(), rng.Intn(1<<24))
	}
	json.WriteString("[")
	for json.Len() < 90000 {
		fmt.Fprintf(&json, `{"%s":%d,"%s":"%s/%s-%d","%s":%t},`, word(), rng.Intn(1e6), word(), word(), word(), rng.Intn(1e4), word(), rng.Intn(2) == 0)
	}
	json.WriteString("{}]")
	return [][]byte{[]byte(js.String()), []byte(css.String()), []byte(json.String())}
}

// oneShot hashes a reused Encoder's output for every input and, if both,
// Encode's too.
func oneShot(c *counter, opts brotli.Options, inputs [][]byte, both bool) error {
	enc, err := brotli.NewEncoder(opts)
	if err != nil {
		return fmt.Errorf("encoder %+v: %w", opts, err)
	}
	var out []byte
	for _, in := range inputs {
		if both {
			o, err := brotli.Encode(nil, in, opts)
			if err != nil {
				return fmt.Errorf("encode %+v: %w", opts, err)
			}
			c.Write(o)
		}
		out = enc.Encode(out[:0], in)
		c.Write(out)
	}
	return nil
}

// streams hashes Writers' output for one input in seven, written in random
// pieces and flushed at random points: with a size hint, without, and with
// a raw dictionary.
func streams(c *counter, q int, inputs [][]byte, dict *brotli.Dictionary) error {
	rng := rand.New(rand.NewSource(int64(100 + q)))
	for k, in := range inputs {
		if k%7 != 0 {
			continue
		}
		for _, opts := range []brotli.Options{{Quality: q, SizeHint: len(in)}, {Quality: q}, {Quality: q, Dictionary: dict}} {
			w, err := brotli.NewWriter(c, opts)
			if err != nil {
				return fmt.Errorf("writer q%d: %w", q, err)
			}
			for p := in; len(p) > 0; {
				n := min(len(p), 1+rng.Intn(20000))
				if _, err := w.Write(p[:n]); err != nil {
					return fmt.Errorf("write q%d: %w", q, err)
				}
				if rng.Intn(2) == 0 {
					if err := w.Flush(); err != nil {
						return fmt.Errorf("flush q%d: %w", q, err)
					}
				}
				p = p[n:]
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("close q%d: %w", q, err)
			}
		}
	}
	return nil
}

// segments hashes each file compressed as three segments three ways: with
// the content before each as its prefix and the body's length; told their
// offsets, with short prefixes, at window 16; and two after a raw
// dictionary.
func segments(c *counter, q int, files [][]byte, dict *brotli.Dictionary) error {
	var encs [3]*brotli.Encoder
	for i, opts := range []brotli.Options{{Quality: q}, {Quality: q, LGWin: 16}, {Quality: q, Dictionary: dict}} {
		enc, err := brotli.NewEncoder(opts)
		if err != nil {
			return fmt.Errorf("segment encoder q%d: %w", q, err)
		}
		encs[i] = enc
	}
	for _, b := range files {
		n := len(b) / 3
		c.Write(encs[0].EncodeSegment(nil, b[:n], brotli.Segment{First: true}))
		c.Write(encs[0].EncodeSegment(nil, b[n:2*n], brotli.Segment{Prefix: b[:n], BodyLen: len(b)}))
		c.Write(encs[0].EncodeSegment(nil, b[2*n:], brotli.Segment{Prefix: b[:2*n], Last: true, BodyLen: len(b)}))
		c.Write(encs[1].EncodeSegment(nil, b[:n], brotli.Segment{First: true}))
		c.Write(encs[1].EncodeSegment(nil, b[n:2*n], brotli.Segment{Prefix: b[n-min(n, 3000) : n], Offset: n}))
		c.Write(encs[1].EncodeSegment(nil, b[2*n:], brotli.Segment{Prefix: b[:2*n], Offset: 2 * n, Last: true}))
		c.Write(encs[2].EncodeSegment(nil, b[:n], brotli.Segment{First: true, BodyLen: len(b)}))
		c.Write(encs[2].EncodeSegment(nil, b[n:], brotli.Segment{Prefix: b[:n], Offset: n, Last: true, BodyLen: len(b)}))
	}
	return nil
}
