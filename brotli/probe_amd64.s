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
// counts, CX skip, BX misses, R14 abs, the position entered (base + i),
// then the candidate's distance, R11 the next position's slot. The loop
// is written out twice with the roles of two sets swapped, so that no
// moves hand the next position's values on (brotli README, *The probe
// loop's call made cheaper*): in its first half DX is i, AX x (the 8
// bytes at i), R15 its candidate, and R9 the next position, R10 its
// bytes, R12 its candidate; in its second half the other way round. A
// candidate's register is scratch once it is tested. A position is
// entered in the table when the loop moves to it (at the start, and at a
// miss), after the read ahead of its own candidate, as the Go loop enters
// it at the top of its turn: so no register carries its slot. R14 (Go's
// g) is scratch in ABI0: findFastIn reloads it from TLS, and zeroes X15,
// after the CALL, as the compiler does after every ABI0 call. R15 may be
// used as the loop references no global (under -dynlink it is the GOT's).
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

// AHEAD reads the next position's slot and candidate before this
// candidate's test: next = i + 1 + misses>>skip, loaded from
// min(next, limit).
#define AHEAD(i, next, xn, candn) \
	MOVQ BX, next; \
	SARQ CX, next; \
	LEAQ 1(i)(next*1), next; \
	MOVQ next, candn; \
	CMPQ candn, 40(R13); \
	CMOVQGT 40(R13), candn; \
	MOVQ (SI)(candn*1), xn; \
	SLOT(xn, R11); \
	MOVL (DI)(R11*4), candn

// TEST: d = abs - cand; a copy when d-1 < maxDist and the 4 bytes at i-d
// are x's.
#define TEST(i, x, cand, miss, found) \
	SUBL cand, R14; \
	LEAL -1(R14), cand; \
	CMPL cand, 52(R13); \
	JCC  miss; \
	MOVQ i, cand; \
	SUBQ R14, cand; \
	JMI  found; \
	CMPL x, (SI)(cand*1); \
	JEQ  found

// MISS counts the literal at i, moves to the next position, leaving the
// loop past the limit, and enters it (table[h] = abs, abs = base +
// uint32(next)).
#define MISS(x, cand, next, done) \
	MOVBQZX x, cand; \
	INCL (R8)(cand*4); \
	INCQ BX; \
	CMPQ next, 40(R13); \
	JGT  done; \
	MOVL 48(R13), R14; \
	ADDL next, R14; \
	MOVL R14, (DI)(R11*4)

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
	AHEAD(DX, R9, R10, R12)
	TEST(DX, AX, R15, miss1, found1)

miss1:
	MISS(AX, R15, R9, done2)
	AHEAD(R9, DX, AX, R15)
	TEST(R9, R10, R12, miss2, found2)

miss2:
	MISS(R10, R12, DX, done1)
	JMP  loop

// A candidate found hands back its distance and, as a loop past the
// limit does, the position the half left at.
found1:
	MOVL R14, 56(R13)

done1:
	MOVQ DX, 32(R13)
	RET

found2:
	MOVL R14, 56(R13)

done2:
	MOVQ R9, 32(R13)
	RET
