package pcre

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The typical static-files location, on the engine Compile picks (RE2)
// and on the backtracking engine that look-around patterns need.
func benchmarkLocation(b *testing.B, forceBT bool) {
	re, err := compile(`\.(css|js|png)$`, true, forceBT)
	if err != nil {
		b.Fatal(err)
	}
	for _, uri := range []string{"/static/app/main.min.JS", "/api/v1/users/42"} {
		b.Run(uri, func(b *testing.B) {
			for b.Loop() {
				if _, err := re.Match(uri); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkLocationRE2(b *testing.B)       { benchmarkLocation(b, false) }
func BenchmarkLocationBacktrack(b *testing.B) { benchmarkLocation(b, true) }

// What one SSI if costs when the client sends "(a)?" ×300 + "a" ×300
// against 600 bytes: the compile and one match, with Compile (RE2, whose
// cost grows with pattern × subject × groups) and with CompileRequest.
func benchmarkManyGroups(b *testing.B, compileFn func(string, bool) (*Regexp, error)) {
	const n = 300
	pat := strings.Repeat("(a)?", n) + strings.Repeat("a", n)
	subj := strings.Repeat("a", 2*n)
	for b.Loop() {
		re, err := compileFn(pat, false)
		if err != nil {
			b.Fatal(err)
		}
		if caps, err := re.MatchTaken(subj); len(caps) != n+1 || err != nil {
			b.Fatalf("%d captures, %v", len(caps), err)
		}
	}
}

func BenchmarkManyGroupsCompile(b *testing.B)        { benchmarkManyGroups(b, Compile) }
func BenchmarkManyGroupsCompileRequest(b *testing.B) { benchmarkManyGroups(b, CompileRequest) }

// 200 clients' patterns matched at once against 8 KB and 64 KB subjects,
// each growing the engine's stacks until it ends or hits a limit: the
// peak of the heap in use (sampled every 2 ms, above the heap before)
// and how many of the 200 failed. Run once:
// go test ./internal/pcre -run '^$' -bench ConcurrentRequestMatches -benchtime 1x
//
// The first size is the longest subject this pattern matches without a
// slot of requestSlots, in shortRequestSlots (audit9).
func BenchmarkConcurrentRequestMatches(b *testing.B) {
	re, err := CompileRequest(concurrentPattern, false)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{re.slotOver, 8 << 10, 64 << 10} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			subj := strings.Repeat("a", n)
			for b.Loop() {
				peak, failed := concurrentMatches(b, subj, 200)
				b.ReportMetric(float64(peak>>20), "peak-MB")
				b.ReportMetric(float64(failed), "failed")
			}
		})
	}
}

// concurrentPattern grows the engine's stacks with the subject.
const concurrentPattern = `^(?:a(b?)(c?)(d?))*x`

func concurrentMatches(b *testing.B, subj string, clients int) (peak uint64, failed int32) {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	stop, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse-min(base, m.HeapInuse))
		}
	}()
	var wg sync.WaitGroup
	var fails atomic.Int32
	for range clients {
		wg.Go(func() {
			re, err := CompileRequest(concurrentPattern, false)
			if err != nil {
				b.Error(err)
				return
			}
			if _, err := re.Match(subj); err != nil {
				fails.Add(1)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	return peak, fails.Load()
}

// What one backtracking match allocates as its subject grows: nested
// captures repeated over the whole subject, the costliest pattern found
// (audit8, requestMatchBudget and configSlotOver). B/op is the figure.
// Each match is a fresh one: regexp2 keeps a pattern's runners and their
// stacks in sync.Pools, so a match after another reused what the pools
// still held and the figure moved with the collector (8.8 or 9.9 MB on
// 8 KiB, 30.4 or 40.3 on 64 KiB; rv-audit8).
func BenchmarkMatchBySubject(b *testing.B) {
	for _, n := range []int{1 << 10, 8 << 10, 64 << 10} {
		s := strings.Repeat("a", n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				re, err := CompileRequest(`^(?:((((((((a))))))))|b)*x`, false)
				if err != nil {
					b.Fatal(err)
				}
				// Two collections empty a sync.Pool (its victim cache).
				runtime.GC()
				runtime.GC()
				b.StartTimer()
				// 64 KiB passes the stack limit (ErrLimit): the
				// allocation up to it is the figure.
				_, _ = re.MatchString(s)
			}
		})
	}
}
