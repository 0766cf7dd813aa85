package gfxinfo

import "golang.org/x/sys/cpu"

// useRowAVX2 selects rowFieldsAVX2 (a test turns it off to check the Go reader in rowFields).
var useRowAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2

// rowFieldsAVX2 reads the row rowFields reads when it is plain: every byte of b[:n] a digit or
// a comma, every field 1–19 digits (19 at most MaxInt64), as many fields as cols (one trailing
// comma allowed). It writes row[cols[k]] as rowFields does and reports ok; on any other row it
// reports false (having written some fields or none) and rowFieldsGo answers. b must run on
// for at least rowPad bytes past n (it reads whole 64-byte windows).
//
// Hand-written because Go has no vector operations: on 200k-row benchgen captures rowFields
// took 254.4 M instructions (17 columns) and 318.6 M (23) in Go, ~140 a field; with this
// 78.6 M and 97.6 M (callgrind, whole process 811.8 M → 660.4 M and 908.1 M → 703.8 M), and
// 70.0 M and 86.5 M, 34–36 a field, since columns are counted down to zero, TZCNT's carry
// tells an empty mask, every field is moved into place by one VPSHUFB and the two halves are
// joined in the vector (VPMULUDQ), and a whole window is checked with one mask.
//
//go:noescape
func rowFieldsAVX2(b []byte, n int, cols []int, row *[numCols]int64) (ok bool)
