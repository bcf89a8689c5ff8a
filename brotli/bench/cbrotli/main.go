// Command cbrotli measures mosaic's brotli encoder against Google's C
// encoder (the system libbrotlienc) in one run: CPU time per input byte and
// output size, per quality, over a set of files. It lives in its own module
// so that neither the library nor the server ever needs cgo.
//
//	cd brotli/bench/cbrotli && go run . -q 0,1,2,3,4 ../../../../shared/corpus/*.js* ../../../../shared/corpus/*.css
package main

/*
#cgo LDFLAGS: -lbrotlienc
#include <brotli/encode.h>
#include <stdlib.h>
#include <malloc.h>

// keep_memory has glibc serve every allocation from the heap and never give
// it back, so Google's encoder reuses the pages of its per-call tables
// instead of mapping them afresh and faulting them in on every call.
static int keep_memory(void) {
	return mallopt(M_MMAP_MAX, 0) && mallopt(M_TRIM_THRESHOLD, 0x7fffffff);
}

static size_t c_compress(int q, int lgwin, const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
	size_t outn = cap;
	if (!BrotliEncoderCompress(q, lgwin, BROTLI_MODE_GENERIC, n, in, &outn, out)) return 0;
	return outn;
}
*/
import "C"

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	ab "github.com/andybalholm/brotli"
	"github.com/mosaic-edge/mosaic/brotli"
)

// cpuTime is the CPU time this process has used, user and system, so that
// other load on a shared machine inflates the figures less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// round runs f until it has used minCPU and returns the CPU time per call.
func round(minCPU time.Duration, f func()) time.Duration {
	n := 0
	start := cpuTime()
	for cpuTime()-start < minCPU {
		f()
		n++
	}
	return (cpuTime() - start) / time.Duration(n)
}

// measure times fc and fg in `rounds` rounds each, alternating, and
// returns the smallest CPU time per call of each: the rounds least
// disturbed by the machine. Alternating puts both encoders in the same
// spells of a shared machine, whose speed can change for minutes at a
// time.
func measure(rounds int, minCPU time.Duration, fc, fg func()) (tc, tg time.Duration) {
	tc, tg = 1<<62, 1<<62
	for r := range rounds {
		// Each goes first in every other round.
		if r%2 == 1 {
			tg = min(tg, round(minCPU, fg))
		}
		tc = min(tc, round(minCPU, fc))
		if r%2 == 0 {
			tg = min(tg, round(minCPU, fg))
		}
	}
	return tc, tg
}

func main() {
	qs := flag.String("q", "0,1,2,3,4", "qualities, comma separated")
	lgwin := flag.Int("w", 22, "window bits")
	rounds := flag.Int("rounds", 5, "rounds per measurement; the fastest counts")
	minCPU := flag.Duration("cpu", 100*time.Millisecond, "CPU time per round")
	mem := flag.String("cmem", "keep", "C's allocations: keep (glibc keeps freed memory for the next call) or system (glibc's defaults: large tables mapped and unmapped per call)")
	flag.Parse()
	if *rounds < 1 || *minCPU <= 0 {
		log.Fatal("-rounds must be at least 1 and -cpu positive")
	}
	switch *mem {
	case "keep":
		if C.keep_memory() == 0 {
			log.Fatal("mallopt refused")
		}
	case "system":
	default:
		log.Fatalf("-cmem %q: keep or system", *mem)
	}
	runtime.LockOSThread()
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, p := range flag.Args() {
		b, err := os.ReadFile(p)
		if err != nil {
			log.Fatal(err)
		}
		files = append(files, file{filepath.Base(p), b})
	}
	fmt.Println("| q | file | bytes | C bytes | mosaic bytes | size ratio | C ns/B | mosaic ns/B | speed (C time / mosaic time) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, qstr := range strings.Split(*qs, ",") {
		q, err := strconv.Atoi(qstr)
		if err != nil {
			log.Fatal(err)
		}
		enc, err := brotli.NewEncoder(brotli.Options{Quality: q, LGWin: *lgwin})
		if err != nil {
			log.Fatal(err)
		}
		var sumIn, sumC, sumG int
		var cpuC, cpuG time.Duration
		for _, f := range files {
			cbuf := make([]byte, len(f.data)+1024)
			in := (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(f.data)))
			out := (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(cbuf)))
			var cn int
			var g []byte
			tc, tg := measure(*rounds, *minCPU, func() {
				cn = int(C.c_compress(C.int(q), C.int(*lgwin), in, C.size_t(len(f.data)), out, C.size_t(len(cbuf))))
			}, func() { g = enc.Encode(g[:0], f.data) })
			back, err := io.ReadAll(ab.NewReader(bytes.NewReader(g)))
			if err != nil || !bytes.Equal(back, f.data) {
				log.Fatalf("%s q%d: mosaic output does not round-trip: %v", f.name, q, err)
			}
			if cn == 0 {
				log.Fatalf("%s q%d: Google's encoder failed", f.name, q)
			}
			nsC := float64(tc.Nanoseconds()) / float64(len(f.data))
			nsG := float64(tg.Nanoseconds()) / float64(len(f.data))
			fmt.Printf("| %d | %s | %d | %d | %d | %.3f | %.2f | %.2f | %.2fx |\n", q, f.name, len(f.data), cn, len(g), float64(len(g))/float64(cn), nsC, nsG, nsC/nsG)
			sumIn += len(f.data)
			sumC += cn
			sumG += len(g)
			cpuC += tc
			cpuG += tg
		}
		nsC := float64(cpuC.Nanoseconds()) / float64(sumIn)
		nsG := float64(cpuG.Nanoseconds()) / float64(sumIn)
		fmt.Printf("| %d | **all** | %d | %d | %d | %.3f | %.2f | %.2f | %.2fx |\n", q, sumIn, sumC, sumG, float64(sumG)/float64(sumC), nsC, nsG, nsC/nsG)
	}
}
