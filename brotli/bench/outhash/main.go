// Command outhash prints one SHA-256 of everything mosaic's brotli encoder
// writes for a fixed set of inputs and ways of calling it, so that a
// change meant to leave the output byte for byte the same (a faster match
// finder, a rearranged writer) can be checked by running it before and
// after: the two lines must be equal.
//
//	go run ./brotli/bench/outhash -q 0,1,2,3,4 ../shared/corpus/*.js* ../shared/corpus/*.css
//
// The inputs are the files given, their prefixes of 2^k-1 bytes and of a
// few lengths around 64 KiB (where quality 0 and 1 change their match
// finder's variant), every slice of 0 to 599 bytes at byte 1,000 of the
// first file, and pseudo-random inputs with short repeats (a fixed seed).
// Each is compressed at every quality and window given: by Encode, by a
// reused Encoder, and at window 22 (one in seven inputs) by Writers with a
// size hint, without, and with a raw dictionary, fed in random pieces and
// flushed at random points; each file also as three segments with
// prefixes. It does not decode: the round-trip tests do that.
package main

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"hash"
	"math/rand"
	"os"
	"strconv"
	"strings"

	"github.com/mosaic-edge/mosaic/brotli"
)

func main() {
	quals := flag.String("q", "0,1,2,3,4", "qualities, comma-separated")
	wins := flag.String("w", "10,16,22,24", "window bits, comma-separated")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: outhash [-q Q,Q...] [-w W,W...] FILE...")
		os.Exit(2)
	}
	if err := run(*quals, *wins, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "outhash:", err)
		os.Exit(1)
	}
}

func ints(list string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("list %q: %w", list, err)
		}
		out = append(out, n)
	}
	return out, nil
}

func run(quals, wins string, paths []string) error {
	qs, err := ints(quals)
	if err != nil {
		return err
	}
	ws, err := ints(wins)
	if err != nil {
		return err
	}
	var files [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, b)
	}
	inputs := inputsOf(files)
	dict, err := brotli.NewDictionary(files[0][:min(len(files[0]), 20000)])
	if err != nil {
		return fmt.Errorf("dictionary: %w", err)
	}
	h := sha256.New()
	rng := rand.New(rand.NewSource(7))
	for _, q := range qs {
		for _, win := range ws {
			if err := oneShot(h, q, win, inputs); err != nil {
				return err
			}
			if win != 22 {
				continue
			}
			if err := streams(h, rng, q, inputs, dict); err != nil {
				return err
			}
			if err := segments(h, q, files); err != nil {
				return err
			}
		}
	}
	fmt.Printf("%x %d inputs\n", h.Sum(nil), len(inputs))
	return nil
}

// inputsOf returns the files, their prefixes, slices of the first file and
// random inputs with short repeats.
func inputsOf(files [][]byte) [][]byte {
	inputs := append([][]byte(nil), files...)
	for _, b := range files {
		for k := 0; k <= 17; k++ {
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
	if first := files[0]; len(first) >= 1600 {
		for n := range 600 {
			inputs = append(inputs, first[1000:1000+n])
		}
	}
	rng := rand.New(rand.NewSource(1))
	for k := range 420 {
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

// oneShot hashes Encode's output and a reused Encoder's for every input.
func oneShot(h hash.Hash, q, win int, inputs [][]byte) error {
	opts := brotli.Options{Quality: q, LGWin: win}
	enc, err := brotli.NewEncoder(opts)
	if err != nil {
		return fmt.Errorf("encoder q%d w%d: %w", q, win, err)
	}
	var out []byte
	for _, in := range inputs {
		o, err := brotli.Encode(nil, in, opts)
		if err != nil {
			return fmt.Errorf("encode q%d w%d: %w", q, win, err)
		}
		h.Write(o)
		out = enc.Encode(out[:0], in)
		h.Write(out)
	}
	return nil
}

// streams hashes Writers' output for one input in seven, written in random
// pieces and flushed at random points: with a size hint, without, and with
// a raw dictionary.
func streams(h hash.Hash, rng *rand.Rand, q int, inputs [][]byte, dict *brotli.Dictionary) error {
	for k, in := range inputs {
		if k%7 != 0 {
			continue
		}
		for _, opts := range []brotli.Options{{Quality: q, SizeHint: len(in)}, {Quality: q}, {Quality: q, Dictionary: dict}} {
			var buf bytes.Buffer
			w, err := brotli.NewWriter(&buf, opts)
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
			h.Write(buf.Bytes())
		}
	}
	return nil
}

// segments hashes each file compressed as three segments, the later two
// with the content before them as their prefix.
func segments(h hash.Hash, q int, files [][]byte) error {
	enc, err := brotli.NewEncoder(brotli.Options{Quality: q})
	if err != nil {
		return fmt.Errorf("encoder q%d: %w", q, err)
	}
	for _, b := range files {
		n := len(b) / 3
		h.Write(enc.EncodeSegment(nil, b[:n], brotli.Segment{First: true}))
		h.Write(enc.EncodeSegment(nil, b[n:2*n], brotli.Segment{Prefix: b[:n], BodyLen: len(b)}))
		h.Write(enc.EncodeSegment(nil, b[2*n:], brotli.Segment{Prefix: b[:2*n], Last: true, BodyLen: len(b)}))
	}
	return nil
}
