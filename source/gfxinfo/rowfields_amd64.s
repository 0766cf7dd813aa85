#include "textflag.h"

// rowTbl: 16 bytes 0x80, then 0, 1, …, 15: the 16 bytes from k are the VPSHUFB control moving
// a vector's first k bytes to its end, zeros before them.
DATA rowTbl<>+0(SB)/8, $0x8080808080808080
DATA rowTbl<>+8(SB)/8, $0x8080808080808080
DATA rowTbl<>+16(SB)/8, $0x0706050403020100
DATA rowTbl<>+24(SB)/8, $0x0f0e0d0c0b0a0908
GLOBL rowTbl<>(SB), RODATA|NOPTR, $32

// rowConst: ',', '0', 9, 0x0F (bytes); 10,1 (bytes); 100,1 and 10000,1 (16-bit words); 10^8.
DATA rowConst<>+0(SB)/1, $0x2c
DATA rowConst<>+1(SB)/1, $0x30
DATA rowConst<>+2(SB)/1, $0x09
DATA rowConst<>+3(SB)/1, $0x0f
DATA rowConst<>+4(SB)/2, $0x010a
DATA rowConst<>+8(SB)/4, $0x00010064
DATA rowConst<>+12(SB)/4, $0x00012710
DATA rowConst<>+16(SB)/8, $100000000
GLOBL rowConst<>(SB), RODATA|NOPTR, $24

// CONVX: X0 holds the values 0–9 of 16 digits (leading zeros fill a shorter field); their
// number goes to X0's low 64 bits: pairs (×10+1), fours (×100+1), two eights (×10000+1), the
// first eight ×10^8 plus the second (clobbers X1).
#define CONVX \
	VPMADDUBSW X12, X0, X0; \
	VPMADDWD   X11, X0, X0; \
	VPACKUSDW  X0, X0, X0; \
	VPMADDWD   X10, X0, X0; \
	VPMULUDQ   X7, X0, X1; \
	VPSRLQ     $32, X0, X0; \
	VPADDQ     X1, X0, X0

// func rowFieldsAVX2(b []byte, n int, cols []int, row *[numCols]int64) (ok bool)
//
// Registers: SI b, DX n, DI row, R8 the end of cols, CX the field's column counting up from
// -len(cols) to 0; R10 the base of the 64-byte window whose commas R11 holds (bit i: a comma
// at R10+i not yet passed); BX the field's start, AX its end (a comma or n); R12 rowTbl. Every
// window's bytes before n must be digits or commas, else ok = false. A window reads up to 63
// bytes past n, a field 16 bytes from its start.
TEXT ·rowFieldsAVX2(SB), NOSPLIT, $0-65
	MOVQ  b_base+0(FP), SI
	MOVQ  n+24(FP), DX
	MOVQ  cols_base+32(FP), R8
	MOVQ  cols_len+40(FP), CX
	MOVQ  row+56(FP), DI
	TESTQ CX, CX
	JZ    fail                  // no columns: n > 0 bytes are a field too many
	LEAQ  (R8)(CX*8), R8
	NEGQ  CX
	LEAQ  rowTbl<>(SB), R12
	// constants from memory (a legacy SSE move from a general register would cost an AVX
	// state transition)
	VPBROADCASTB rowConst<>+0(SB), Y15  // ','
	VPBROADCASTB rowConst<>+1(SB), Y14  // '0'
	VPBROADCASTB rowConst<>+2(SB), Y13  // 9
	VPBROADCASTW rowConst<>+4(SB), X12  // 10, 1
	VPBROADCASTD rowConst<>+8(SB), X11  // 100, 1
	VPBROADCASTD rowConst<>+12(SB), X10 // 10000, 1
	VPBROADCASTB rowConst<>+3(SB), X9   // 0x0F
	VMOVQ        rowConst<>+16(SB), X7  // 10^8
	XORL         R10, R10
	XORL         BX, BX

window:
	// The commas of b[R10:R10+64] and its bytes that are neither a digit nor a comma, both
	// cut at n.
	VMOVDQU   (SI)(R10*1), Y0
	VMOVDQU   32(SI)(R10*1), Y1
	VPCMPEQB  Y0, Y15, Y2
	VPCMPEQB  Y1, Y15, Y3
	VPSUBB    Y14, Y0, Y0
	VPSUBB    Y14, Y1, Y1
	VPMINUB   Y13, Y0, Y4
	VPMINUB   Y13, Y1, Y5
	VPCMPEQB  Y4, Y0, Y4
	VPCMPEQB  Y5, Y1, Y5
	VPOR      Y2, Y4, Y4
	VPOR      Y3, Y5, Y5
	VPMOVMSKB Y2, R11
	VPMOVMSKB Y3, R13
	SHLQ      $32, R13
	ORQ       R13, R11
	MOVQ      DX, R13
	SUBQ      R10, R13
	CMPQ      R13, $64
	JB        lastwindow
	VPAND     Y4, Y5, Y4
	VPMOVMSKB Y4, R14
	INCL      R14                   // all 32 bits set: all 64 bytes digits or commas
	JNZ       fail

next:
	TZCNTQ R11, AX
	JCS    advance                  // no comma left in the window
	BLSRQ  R11, R11
	ADDQ   R10, AX

field:
	MOVQ    AX, R13
	SUBQ    BX, R13                 // the field's length
	LEAQ    -1(R13), R14
	CMPQ    R14, $15
	JA      odd                     // empty, or more than 16 digits
	VMOVDQU (SI)(BX*1), X0
	VPSHUFB (R12)(R13*1), X0, X0  // its digits moved to the vector's end
	VPAND   X9, X0, X0
	CONVX
	VMOVQ   X0, R14

store:
	MOVQ (R8)(CX*8), R13
	MOVQ R14, (DI)(R13*8)
	LEAQ 1(AX), BX
	INCQ CX
	// Fewer fields than columns need no test here (2 instructions a field: callgrind,
	// 65.6 -> 62.2 M on fs17-200k, 82.1 -> 77.5 M on fs23-200k): the row's last field ended
	// at n (BX = n+1) or at a comma at n-1 (BX = n), no comma is left before n, and the next
	// field, from BX to n, is -1 or 0 bytes long: odd fails it.
	JNZ  next

lastcol:
	CMPQ BX, DX
	JB   fail                       // more fields than columns
	MOVB $1, ok+64(FP)
	VZEROUPPER
	RET

lastwindow:
	// R13 = n-R10 < 64: the bits from R13 on are past the row.
	VPMOVMSKB Y4, R14
	VPMOVMSKB Y5, R9
	SHLQ      $32, R9
	ORQ       R9, R14
	NOTQ      R14
	BZHIQ     R13, R11, R11
	BZHIQ     R13, R14, R14
	JNZ       fail
	JMP       next

advance:
	// The next window, or the field ends at n.
	ADDQ $64, R10
	CMPQ R10, DX
	JB   window
	MOVQ DX, AX
	JMP  field

odd:
	TESTQ R13, R13
	JZ    fail
	CMPQ  R13, $19
	JA    fail
	// 17–19 digits: the first 1–3 (at the start, moved to the end), then the last 16.
	VMOVDQU (SI)(BX*1), X0
	VPSHUFB -16(R12)(R13*1), X0, X0
	VPAND   X9, X0, X0
	CONVX
	VMOVQ   X0, R13
	VMOVDQU -16(SI)(AX*1), X0
	VPAND   X9, X0, X0
	CONVX
	VMOVQ   X0, R14
	IMULQ   $100000000, R13
	IMULQ   $100000000, R13
	ADDQ    R13, R14                // < 10^19: no carry out
	JS      fail                    // more than MaxInt64
	JMP     store

fail:
	MOVB $0, ok+64(FP)
	VZEROUPPER
	RET
