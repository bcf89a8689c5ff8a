#!/usr/bin/env python3
"""cg_groups.py: cachegrind's events a request, summed by group of functions.

    cg_groups.py [--funcs REGEX] FEW.out MORE.out N

FEW.out and MORE.out are the files of two runs of one server that answered
different numbers of requests, N apart (instructions_per_request in wrk.sh
with IPR_OUT keeps them as NAME-FIRST.out and NAME-(FIRST+MORE).out; with
IPR_CACHEGRIND="--cache-sim=yes --branch-sim=yes" they hold the simulated
misses and mispredictions as well). Their difference (cg_diff), divided by
N, is what one request costs, start and stop left out; it is printed by
group: the server's own functions (mosaic's, or NGINX's ngx_*), the Go
standard library, and the Go runtime split by what it does (scheduler and
poller, allocation, collector, maps, interfaces, memmove and memclr, the
byte searches), libc and unnamed code apart. --funcs adds a line for each
function whose name matches REGEX.

The last column is a rough estimate of the cycles the events cost:
instructions, plus 14 a first-level miss (instruction or data), 50 one
that misses the last level simulated, 15 a mispredicted branch. Those are
round figures of a recent x86 core with its L2 as the last level; the
simulation knows no prefetcher, no micro-op cache and no out-of-order
overlap, so the estimate compares two servers' shapes, not their times.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

EVENTS = "Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw Bc Bcm Bi Bim".split()

# The estimate's cycles for a first-level miss, a last-level miss and a
# mispredicted branch (the docstring says why these).
L1_MISS, LL_MISS, MISPREDICT = 14, 50, 15

# The runtime's groups, tried in order on a function's name.
RUNTIME_GROUPS = [
    ("rt: memmove, memclr", r"memmove|memclr"),
    ("rt: maps, hashing", r"maps\.|mapaccess|mapassign|mapdelete|mapIter|makemap|mapclear|aeshash|memhash|strhash|rand|chacha"),
    ("rt: interfaces", r"itab|typeAssert|assertE2I|ifaceeq|efaceeq|convT"),
    ("rt: collector", r"gcDrain|scanobject|scanObject|scanSpan|sweep|markroot|gcWork|gcBgMark|greyobject|scanblock|gcStart|gcMark|findObject|tryDefer|gcAssist|gcFlush|gcController|scanstack|scanframe|spanSet|wbBuf|bulkBarrier|gcWriteBarrier|finalizer|markBits|spanInlineMarkBits"),
    ("rt: allocation", r"malloc|newobject|makeslice|growslice|mspan|mheap|mcache|mcentral|nextFree|heapBits|newarray|rawstring|rawbyteslice|concatstring|slicebytetostring|initSpan|setSpans|recordspan|deductAssist|allocSpan|refill|writeHeapBits|pallocBits|mergeSummaries"),
    ("rt: stacks", r"stack|pcvalue|\.step$|findfunc|textAddr|adjust|unwinder|funcInfo|morestack"),
    ("rt: scheduler, poller, timers", r"findRunnable|schedule|park_m|execute|gopark|goready|ready|netpoll|runq|stealWork|casgstatus|mcall|checkTimers|wakep|injectglist|lock|startm|stopm|note|futex|sysmon|nanotime|usleep|newproc|gfget|gfput|goexit|timer|Timer|chansend|chanrecv|selectgo|sema|sched|walltime|time\.now|procyield|osyield|acquirep|releasep|gogo|systemstack|syscall|pidle|checkRunqs|siftDown|clearAllp|GCMarkWorker"),
    ("rt: bytes, strings", r"bytealg|memeqbody|indexbyte|cmpbody|countbody|memequal|stringslite"),
]
RUNTIME_PREFIXES = ("runtime.", "internal/", "sync", "gc", "memeqbody", "indexbytebody", "aeshash", "cmpbody", "gogo", "countbody")
STD = re.compile(r"^(net|time|strings|bytes|strconv|context|io|bufio|fmt|syscall|unicode|math|sort|slices|maps|errors|os|path|log|type:)[/.]")


def group(fn):
    if fn.startswith("github.com/mosaic-edge/"):
        return "mosaic"
    if fn.startswith("ngx_"):
        return "nginx"
    if fn.startswith(RUNTIME_PREFIXES):
        for name, pattern in RUNTIME_GROUPS:
            if re.search(pattern, fn):
                return name
        return "rt: other"
    if STD.match(fn):
        return "go std library"
    return "other (libc, unnamed)"


def check_events(path):
    """Exits unless path holds the events of both simulations."""
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                if line.split()[1:] == EVENTS:
                    return
                break
    sys.exit("%s: not a run with --cache-sim=yes --branch-sim=yes" % path)


def functions(few, more):
    """Yields (function, counts) of MORE less FEW, by function."""
    diff = subprocess.run(["cg_diff", few, more], capture_output=True, text=True, check=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".diff") as f:
        f.write(diff)
        f.flush()
        out = subprocess.run(["cg_annotate", "--threshold=0", "--auto=no", f.name],
                             capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        # A row: thirteen counts, each with its share "( 1.2%)", then
        # FILE:FUNCTION (a function's name may hold parentheses).
        fields = re.sub(r"\(\s*-?[0-9.]+%\)", "", line).replace(",", "").split()
        if len(fields) < len(EVENTS) + 1:
            continue
        try:
            counts = [float(x) for x in fields[:len(EVENTS)]]
        except ValueError:
            continue
        name = " ".join(fields[len(EVENTS):])
        if name == "PROGRAM TOTALS":
            continue
        yield name.split(":", 1)[-1], counts


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--funcs", help="also print the functions whose names match this regular expression")
    p.add_argument("few")
    p.add_argument("more")
    p.add_argument("n", type=float, help="requests MORE answered past FEW")
    a = p.parse_args()
    check_events(a.few)
    check_events(a.more)
    sums = defaultdict(lambda: [0.0] * len(EVENTS))
    # By name: cg_annotate gives a function one row per source file its
    # code came from (Go inlines across files), which would print the
    # function several times, each with a part of its counts.
    picked = defaultdict(lambda: [0.0] * len(EVENTS))
    for fn, counts in functions(a.few, a.more):
        for key in (group(fn), "all"):
            sums[key] = [s + c for s, c in zip(sums[key], counts)]
        if a.funcs and re.search(a.funcs, fn):
            picked[fn] = [s + c for s, c in zip(picked[fn], counts)]
    n = a.n
    print("%-34s %8s %7s %7s %7s %7s %7s %9s" % (
        "a request", "instr", "I1 miss", "D1r mis", "D1w mis", "LL miss", "mispred", "est. cyc"))

    def line(label, v):
        l1 = v[1] + v[4] + v[7]
        ll = v[2] + v[5] + v[8]
        bad = v[10] + v[12]
        est = v[0] + L1_MISS * l1 + LL_MISS * ll + MISPREDICT * bad
        print("%-34s %8.0f %7.0f %7.1f %7.1f %7.1f %7.0f %9.0f" % (
            label[-34:], v[0] / n, v[1] / n, v[4] / n, v[7] / n, ll / n, bad / n, est / n))

    for key, v in sorted(sums.items(), key=lambda kv: -kv[1][0]):
        if abs(v[0]) / n >= 5:
            line(key, v)
    for fn, v in sorted(picked.items(), key=lambda kv: -kv[1][0]):
        line(fn, v)


if __name__ == "__main__":
    sys.exit(main())
