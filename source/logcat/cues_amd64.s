#include "textflag.h"

DATA cueBytes<>+0(SB)/1, $0x0a
DATA cueBytes<>+1(SB)/1, $0x3a
DATA cueBytes<>+2(SB)/1, $0x02
DATA cueBytes<>+3(SB)/1, $0x3e
DATA cueBytes<>+4(SB)/1, $0x21
GLOBL cueBytes<>(SB), RODATA|NOPTR, $8

// func lineCuesAVX2(b []byte) (nl, colon int, cue bool)
//
// 32 bytes a round: the masks of '\n', ':', '!' and of '<'/'>' pairs (a byte and the next one
// each '<' or '>', from a second load one byte on), reduced to bits by VPMOVMSKB. It stops at
// the first '\n'; when fewer than 33 bytes are left before one is found it returns nl = -1.
TEXT ·lineCuesAVX2(SB), NOSPLIT, $0-41
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ SI, DI
	LEAQ -33(SI)(DX*1), DX // the last start of a round: 33 bytes are read
	MOVQ $-1, R8           // colon
	XORL R9, R9            // cue bits
	// the bytes looked for, from memory (moving them from general registers with the
	// legacy SSE MOVQ tripled the whole program's time on AMD EPYC)
	VPBROADCASTB cueBytes<>+0(SB), Y10 // '\n'
	VPBROADCASTB cueBytes<>+1(SB), Y9  // ':'
	VPBROADCASTB cueBytes<>+2(SB), Y8  // bit 1: '<' (0x3c) becomes '>' (0x3e)
	VPBROADCASTB cueBytes<>+3(SB), Y7  // '>'
	VPBROADCASTB cueBytes<>+4(SB), Y6  // '!'

loop:
	CMPQ SI, DX
	JGT  tail
	VMOVDQU  (SI), Y0
	VMOVDQU  1(SI), Y1
	VPCMPEQB Y0, Y10, Y2
	VPMOVMSKB Y2, AX
	VPCMPEQB Y0, Y9, Y3
	VPMOVMSKB Y3, BX
	VPOR     Y0, Y8, Y4
	VPCMPEQB Y4, Y7, Y4
	VPOR     Y1, Y8, Y5
	VPCMPEQB Y5, Y7, Y5
	VPAND    Y4, Y5, Y4
	VPCMPEQB Y0, Y6, Y5
	VPOR     Y4, Y5, Y4
	VPMOVMSKB Y4, CX
	TESTL AX, AX
	JNZ   found
	ORL   CX, R9
	TESTL BX, BX
	JNZ   colonhit

next:
	ADDQ $32, SI
	JMP  loop

colonhit:
	TESTQ R8, R8
	JNS   next
	BSFL  BX, BX
	MOVQ  SI, R8
	SUBQ  DI, R8
	ADDQ  BX, R8
	JMP   next

found:
	BSFL AX, R10
	MOVL AX, R11           // the bits below the '\n': its bit, less one
	NEGL R11
	ANDL AX, R11
	DECL R11
	ANDL R11, CX
	ORL  CX, R9
	ANDL R11, BX
	TESTQ R8, R8
	JNS   done
	TESTL BX, BX
	JZ    done
	BSFL  BX, BX
	MOVQ  SI, R8
	SUBQ  DI, R8
	ADDQ  BX, R8

done:
	SUBQ DI, SI
	ADDQ R10, SI
	MOVQ SI, nl+24(FP)
	MOVQ R8, colon+32(FP)
	TESTL R9, R9
	SETNE cue+40(FP)
	VZEROUPPER
	RET

tail:
	MOVQ $-1, nl+24(FP)
	MOVQ $-1, colon+32(FP)
	MOVB $0, cue+40(FP)
	VZEROUPPER
	RET
