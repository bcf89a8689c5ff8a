# The test command of the README and of CI.
GO ?= go
# A count rather than a duration: with a duration, Go 1.26's fuzzing
# coordinator can fail a target with "context deadline exceeded" at the end
# of the run on a loaded machine (golang/go#75804, fixed in Go 1.27).
FUZZTIME ?= 50000x
# When an input finds new coverage (or fails), the fuzzer shrinks it before
# going on, by default for up to a minute in which no input counts: on
# targets whose inputs take milliseconds that was much of their run
# (brotli's FuzzRoundTrip from an empty cache: 134 s, 77 s with 200 tries).
# New-coverage inputs only go to the local fuzz cache, and a failing one is
# still written to testdata, less shrunk; so each gets a bounded number of
# tries.
FUZZMINIMIZE ?= 200x

.PHONY: test check unit fuzz build bench

test: check unit fuzz

build:
	$(GO) build -o bin/mosaic ./cmd/mosaic

# Formatting and static checks.
check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# Every package's tests, with the race detector.
unit:
	$(GO) test -race -count=1 -timeout 15m ./...

# A short run of every fuzz target over its seeds and fresh inputs.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "fuzz $$pkg $$f"; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg; \
		done; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 500ms ./...
