//go:build !amd64

package logcat

var useAVX2 = false

func lineCues(b []byte) (nl, colon int, cue bool) { return lineCuesGo(b) }
