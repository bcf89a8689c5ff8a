# The test command of the README and of CI.
GO ?= go
# A count rather than a duration: with a duration, Go 1.26's fuzzing
# coordinator can fail a target with "context deadline exceeded" at the end
# of the run on a loaded machine (golang/go#75804, fixed in Go 1.27).
# 10,000 inputs a target: the 68 targets' runs of 25,000 took about 150 s
# of a CI run that reached 19m41s on 2 cores (2026-12-06), close to its
# 20-minute budget; every run still replays each target's seeds first.
FUZZTIME ?= 10000x
# When an input finds new coverage (or fails), the fuzzer shrinks it before
# going on, by default for up to a minute in which no input counts: on
# targets whose inputs take milliseconds that was much of their run
# (brotli's FuzzRoundTrip from an empty cache: 134 s, 77 s with 200 tries).
# New-coverage inputs only go to the local fuzz cache, and a failing one is
# still written to testdata, less shrunk; so each gets a bounded number of
# tries.
FUZZMINIMIZE ?= 200x
# Targets whose one input is many encodes (brotli's FuzzReuse: 24, up to
# quality 11, about 67 inputs a second on 2 cores, 10,000 of them some
# 3.5 minutes of CI) take a tenth as many.
SLOWFUZZ ?= FuzzReuse
SLOWFUZZTIME ?= 1000x

.PHONY: test check unit fuzz build bench cross

test: check unit fuzz

build:
	$(GO) build -o bin/mosaic ./cmd/mosaic

# Formatting and static checks.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every package's tests, with the race detector; and brotli's, compress's
# and zstdenc's once more without it, where their tests that run the
# encoder on one goroutine, or only check its output, skip under -race
# (each package's race_test.go says why); and the FastCGI
# gateway's and the small static answer's counts of a request's
# allocations, which the detector's own allocations would blur (the
# gateway's went from 11 to 13 unseen: only -race ran); and gunzip's
# decoding of a 256 MiB bomb, 62 s under the detector for a hand-off its
# other tests check there (gunzip/race_test.go says why); and the memory
# that configuration regexes take on long headers, which the detector's
# slowdown hides (cmd/mosaic/regex_subject_bound_test.go says why).
#
# A race-built program sleeps a second as it exits (the detector's
# atexit_sleep_ms, for other threads to finish a report): each package's
# test binary did, 1 s of CI a package. A race is still reported when it
# is found and still fails the package; a GORACE of the caller's, read
# after this option, still overrides it.
unit:
	GORACE="atexit_sleep_ms=0 $$GORACE" $(GO) test -race -count=1 -timeout 15m ./...
	$(GO) test -count=1 -timeout 15m ./brotli ./compress ./zstdenc
	$(GO) test -count=1 -run '^(TestPHPAllocations|TestSmallResponseAllocations|TestGunzipBombBounded)$$' ./modules/fastcgimod ./modules/compressmod ./gunzip
	$(GO) test -count=1 -run '^TestConfigRegexLongSubjectsBounded$$' ./cmd/mosaic

# A short run of every fuzz target over its seeds and fresh inputs. The
# targets are found in the test files' text: asking `go test -list` built
# every package's test binary once more (without -race, so none was
# cached), minutes of CI for the few packages that have targets. Each
# package's instrumented test binary is built once and run for each of its
# targets (`go test -fuzz` linked it again for every target: 74 targets in
# 49 packages), in the package's directory and with the fuzz cache `go
# test` itself uses, so that the inputs found carry over as before. The
# binaries are built two at a time first (`go test -c -fuzz` takes one
# package, and after the first build most of each is a single-threaded
# compile and link: 113 of the fuzz phase's 229 s in turn, docs/testing.md).
fuzz:
	@set -e; bin=$$(mktemp -d); trap 'rm -rf "$$bin"' EXIT; \
	cache=$$($(GO) env GOCACHE)/fuzz; i=0; \
	for pd in $$($(GO) list -f '{{.ImportPath}}={{.Dir}}' ./...); do \
		dir=$${pd#*=}; \
		grep -qs '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' $$dir/*_test.go || continue; \
		i=$$((i+1)); echo "$$i $${pd%%=*} $$dir" >>"$$bin/list"; \
	done; \
	awk '{print $$1, $$2}' "$$bin/list" | xargs -P 2 -n 2 sh -c '$(GO) test -c -fuzz=. -o "$$0/$$1.test" "$$2"' "$$bin"; \
	while read -r n pkg dir; do \
		for f in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' $$dir/*_test.go); do \
			echo "fuzz $$pkg $$f"; \
			t=$(FUZZTIME); case " $(SLOWFUZZ) " in *" $$f "*) t=$(SLOWFUZZTIME);; esac; \
			(cd "$$dir" && "$$bin/$$n.test" -test.paniconexit0 -test.timeout=10m -test.run='^$$' \
				-test.fuzz="^$$f$$" -test.fuzztime=$$t -test.fuzzminimizetime=$(FUZZMINIMIZE) \
				-test.fuzzcachedir="$$cache/$$pkg"); \
		done; \
	done <"$$bin/list"

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 500ms ./...

# Builds for other platforms (README.md, Platforms): the server for 32-bit
# Linux and for macOS, the libraries (all but cmd/mosaic) for Windows. Not
# part of test: from an empty build cache each platform compiles the
# standard library and every dependency again (about 180 s of CPU for the
# first, README.md says how it was measured), beyond what CI can spare.
cross:
	GOOS=linux GOARCH=386 $(GO) build -o /dev/null ./cmd/mosaic
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./cmd/mosaic
	GOOS=windows GOARCH=amd64 $(GO) build $$($(GO) list ./... | grep -v /cmd/mosaic$$)
