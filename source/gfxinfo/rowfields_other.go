//go:build !amd64

package gfxinfo

var useRowAVX2 = false

// rowFieldsAVX2 never answers: rowFieldsGo does.
func rowFieldsAVX2([]byte, int, []int, *[numCols]int64) bool { return false }
