#include "textflag.h"

// func sumBlock(b *[512]byte) uint64
//
// PSADBW against zero sums each half of a 16-byte register into its 64-bit
// lanes; two accumulators, 32 bytes a round.
TEXT ·sumBlock(SB), NOSPLIT, $0-16
	MOVQ  b+0(FP), SI
	PXOR  X0, X0
	PXOR  X1, X1
	PXOR  X2, X2
	XORQ  CX, CX

loop:
	MOVOU  0(SI)(CX*1), X3
	MOVOU  16(SI)(CX*1), X4
	PSADBW X0, X3
	PSADBW X0, X4
	PADDQ  X3, X1
	PADDQ  X4, X2
	ADDQ   $32, CX
	CMPQ   CX, $512
	JB     loop

	PADDQ  X2, X1
	MOVQ   X1, AX
	PSRLDQ $8, X1
	MOVQ   X1, DX
	ADDQ   DX, AX
	MOVQ   AX, ret+8(FP)
	RET
