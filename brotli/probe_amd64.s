//go:build amd64 && !purego

#include "textflag.h"

// func probeFastAsm(a *probeArgs)
//
// findFastIn's probe loop (fast.go), instruction for instruction the same
// search: the Go loop left about 15 values live through each probe and
// the register allocator spilled some of them (the miss count, the
// limit, the base, the table) and rotated the rest with moves at its back
// edge (brotli README, *The probe loop in assembly*). Here the loop's
// values stay in registers, and the invariants it reads once a probe at
// most (mask, limit, base, reach) are memory operands in probeArgs
// itself: copying them into a frame cost every call 12 instructions with
// its setup, and a 2 KB body makes a call per copy (brotli README, *The
// probe loop's call made cheaper*).
//
// Registers: R13 the arguments (probeArgs); SI data, DI table, R8 literal
// counts, CX skip, BX misses, DX i, AX x (the 8 bytes at i), R14 abs, the
// position entered (base + i), then the candidate's distance, R15 its
// candidate; R9 the next position, R10 its bytes, R11 its slot, R12 its
// candidate. A position is entered in the table when the loop moves to it
// (at the start, and at a miss), after the read ahead of its own
// candidate, as the Go loop enters it at the top of its turn: so no
// register carries its slot. R14 (Go's g) is scratch in ABI0: findFastIn
// reloads it from TLS, and zeroes X15, after the CALL, as the compiler
// does after every ABI0 call. R15 may be used as the loop references no
// global (under -dynlink it is the GOT's).
//
// Bounds (fast.go, probeArgs): i and the next probe's load, at
// min(next, limit), lie in 0..limit = len(data)-8; a slot is masked to
// the table's length less one; a candidate's 4-byte load at i-d, d in
// 1..maxDist, is below i, and one that would fall before data[0] is
// handed back as found, for the Go side's bound check to refuse.

// SLOT sets h to the table slot of x, the 8 bytes at a position
// (fastSlot): the top 16 bits of x*hashMul6, masked to the table.
#define SLOT(x, h) \
	MOVQ  $0xa7bd1e35a7bd0000, h; \
	IMULQ x, h; \
	SHRQ  $48, h; \
	ANDQ  24(R13), h

TEXT ·probeFastAsm(SB), NOSPLIT, $0-8
	MOVQ a+0(FP), R13
	MOVQ 0(R13), SI
	MOVQ 8(R13), DI
	MOVQ 16(R13), R8
	MOVL 60(R13), CX   // skip
	MOVQ 32(R13), DX   // i
	XORL BX, BX        // misses
	MOVQ (SI)(DX*1), AX
	SLOT(AX, R11)
	MOVL (DI)(R11*4), R15
	// table[h] = abs, abs = base + uint32(i)
	MOVL 48(R13), R14
	ADDL DX, R14
	MOVL R14, (DI)(R11*4)

loop:
	// next = i + 1 + misses>>skip; its slot read before this candidate's
	// test, from min(next, limit)
	MOVQ BX, R9
	SARQ CX, R9
	LEAQ 1(DX)(R9*1), R9
	MOVQ R9, R12
	CMPQ R12, 40(R13)
	CMOVQGT 40(R13), R12
	MOVQ (SI)(R12*1), R10
	SLOT(R10, R11)
	MOVL (DI)(R11*4), R12

	// d = abs - cand; a copy when d-1 < maxDist and the 4 bytes at i-d
	// are x's
	SUBL R15, R14
	LEAL -1(R14), R15
	CMPL R15, 52(R13)
	JCC  miss
	MOVQ DX, R15
	SUBQ R14, R15
	JMI  found
	CMPL AX, (SI)(R15*1)
	JEQ  found

miss:
	MOVBQZX AX, R15
	INCL (R8)(R15*4)
	INCQ BX
	MOVQ R9, DX
	CMPQ DX, 40(R13)
	JGT  done
	MOVL 48(R13), R14
	ADDL DX, R14
	MOVL R14, (DI)(R11*4)
	MOVQ R10, AX
	MOVL R12, R15
	JMP  loop

found:
	MOVQ DX, 32(R13)
	MOVL R14, 56(R13)
	RET

done:
	MOVQ DX, 32(R13)
	RET
