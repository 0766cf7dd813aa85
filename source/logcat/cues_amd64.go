package logcat

import "golang.org/x/sys/cpu"

// useAVX2 selects lineCuesAVX2 (a test turns it off to check lineCuesGo in Block).
var useAVX2 = cpu.X86.HasAVX2

// lineCuesAVX2 is lineCuesGo over 32 bytes a round, hand-written because Go has no vector
// operations: with it the scan of threadtime lines (plainLine and what it calls) took 145 M
// instructions for 40 MB of benchgen text where the word-at-a-time Go scan of the tag and the
// message took 214 M (callgrind, whole process). It returns nl = -1 when b's first '\n' is in its
// last 33 bytes or b has none: lineCuesGo then answers.
//
//go:noescape
func lineCuesAVX2(b []byte) (nl, colon int, cue bool)
